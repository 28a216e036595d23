-- NodePool taints (spec.template.spec.taints), for the what-if engine: a pod lands on a tainted NodePool's nodes only
-- if it tolerates the taint (week4's system NodePool is tainted CriticalAddonsOnly, spot-batch workload=batch), and
-- Karpenter puts the template's taints on every node it launches. JSON array of {key, value?, effect}; '[]' for
-- NodePools collected before this column existed (read as untainted until the next collection).

ALTER TABLE nodepools ADD COLUMN taints_json TEXT NOT NULL DEFAULT '[]';
