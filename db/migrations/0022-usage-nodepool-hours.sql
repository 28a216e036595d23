-- The efficiency chart's usage line per NodePool and UTC hour (issue 24 item 4): the pods' usage (metrics.k8s.io)
-- and the allocatable of the same NodePool, summed over the snapshots taken in the hour that read usage, kept as each
-- snapshot's usage is written. A range reads these for its whole hours and usage_nodepools only for the partial hours
-- at its ends, so 30 or 90 days cost about what a day does (usage_nodepools holds a row per NodePool per snapshot:
-- 8,640 snapshots a month at 5 minutes), and the hours stay when 5-minute rows are folded or pruned.
CREATE TABLE usage_nodepool_hours (
  hour_ms            INTEGER NOT NULL,
  nodepool           TEXT NOT NULL,
  snapshots          INTEGER NOT NULL,
  pod_usage_cpu_m    REAL NOT NULL,
  pod_usage_memory_b REAL NOT NULL,
  alloc_cpu_m        REAL NOT NULL,
  alloc_memory_b     REAL NOT NULL,
  PRIMARY KEY (hour_ms, nodepool)
) WITHOUT ROWID;

-- What was stored before this migration.
INSERT INTO usage_nodepool_hours (hour_ms, nodepool, snapshots, pod_usage_cpu_m, pod_usage_memory_b, alloc_cpu_m, alloc_memory_b)
SELECT (u.taken_at / 3600000) * 3600000, u.nodepool, COUNT(*), TOTAL(u.pod_usage_cpu_m), TOTAL(u.pod_usage_memory_b),
       TOTAL(COALESCE(u.alloc_cpu_m, (SELECT TOTAL(a.alloc_cpu_m) FROM snapshot_nodepools a WHERE a.snapshot_id = u.snapshot_id AND a.nodepool = u.nodepool))),
       TOTAL(COALESCE(u.alloc_memory_b, (SELECT TOTAL(a.alloc_memory_b) FROM snapshot_nodepools a WHERE a.snapshot_id = u.snapshot_id AND a.nodepool = u.nodepool)))
FROM usage_nodepools u
GROUP BY 1, 2;
