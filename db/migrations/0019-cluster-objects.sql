-- What Karpenter reads, kept so a stored snapshot can be handed to the scheduling engine as the cluster was
-- (issue 21 items 1-3, 8; issue 22 items 3, 6, 7). Written by db/repositories/kube-repository.ts in the snapshot's
-- own transaction; read back as ClusterObjects by db/repositories/cluster-snapshot-repository.ts. Rows written before
-- this migration have NULL in the new columns and no versions: the reader falls back to what it read before (pods
-- as running and unconstrained, the NodePools as last stored) and says so.

-- Pods: their phase and when they finished (the first snapshot that saw them Succeeded or Failed: a reader at t
-- leaves out pods finished by t), when they were first seen bound (pending before), status.startTime (what a
-- do-not-disrupt duration runs from), the do-not-disrupt and pod-deletion-cost annotations as written ("30m" is
-- kept as "30m"), their PersistentVolumeClaim volumes, and the hash of their scheduling spec.
ALTER TABLE pods ADD COLUMN phase TEXT;
ALTER TABLE pods ADD COLUMN finished_at INTEGER;
ALTER TABLE pods ADD COLUMN scheduled_at INTEGER;
ALTER TABLE pods ADD COLUMN started_at INTEGER;
ALTER TABLE pods ADD COLUMN do_not_disrupt_value TEXT;
ALTER TABLE pods ADD COLUMN deletion_cost TEXT;
ALTER TABLE pods ADD COLUMN volumes_json TEXT;
ALTER TABLE pods ADD COLUMN spec_hash TEXT;

-- Each distinct scheduling spec once (core/model.ts PodSchedulingSpec: node selector, affinity, tolerations,
-- topology spread, priority, effective requests, host ports), as the kube-scheduler's equivalence classes group
-- pods: a Deployment's 300 replicas reference one row.
CREATE TABLE pod_specs (
  hash       TEXT PRIMARY KEY,
  spec_json  TEXT NOT NULL
) WITHOUT ROWID;

-- Versioned objects of the low-cardinality kinds (NodePool, Node (its taints, cordon, allocatable), PodDisruptionBudget,
-- DaemonSet, PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, EC2NodeClass, NodeOverlay): one row per
-- version, [first_seen, last_seen] the snapshots that saw that body, the body stored once per content hash. A
-- reader at snapshot time t takes the versions with first_seen <= t <= last_seen. An object gone and back starts a
-- new version (the gap is kept).
CREATE TABLE kube_object_bodies (
  hash       TEXT PRIMARY KEY,
  body_json  TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE kube_object_versions (
  kind        TEXT NOT NULL,
  namespace   TEXT NOT NULL,            -- '' for cluster-scoped objects
  name        TEXT NOT NULL,
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  hash        TEXT NOT NULL,
  PRIMARY KEY (kind, namespace, name, first_seen)
) WITHOUT ROWID;
CREATE INDEX kube_object_versions_time ON kube_object_versions(kind, last_seen);
-- Retention finds bodies no version references any more by this (db/repositories/retention-prune-repository.ts).
CREATE INDEX kube_object_versions_hash ON kube_object_versions(hash);

-- Per snapshot: which versioned kinds it read, and why not where it could not ({"NodeOverlay": {"state": "absent",
-- "message": "…"}}). NULL: taken before this migration (no kind was read).
ALTER TABLE snapshots ADD COLUMN kinds_json TEXT;

-- Karpenter's own explanations of its consolidation decisions (v1.9.0+ ConsolidationCandidate and
-- ConsolidationRejected, v1.14.0 ConsolidationApproved, every release's Unconsolidatable), parsed from the events
-- (core/karpenter/events.ts parseConsolidationEvent) and kept with the disruptions, per event: one decision is
-- written on the Node and on its NodeClaim (or on the NodePool for a multi-node approval); node_name, nodeclaim and
-- nodepool are filled from whichever was named, through the nodes and nodeclaims tables.
CREATE TABLE karpenter_explanations (
  event_uid         TEXT PRIMARY KEY,
  at                INTEGER NOT NULL,
  kind              TEXT NOT NULL,       -- candidate | rejected | approved | unconsolidatable
  object_kind       TEXT NOT NULL,       -- Node | NodeClaim | NodePool
  object_name       TEXT NOT NULL,
  node_name         TEXT,
  nodeclaim         TEXT,
  nodepool          TEXT,
  decision          TEXT,                -- delete | replace (candidate, rejected)
  nodes_in_command  INTEGER,             -- how many nodes the command disrupts (multi-node: "part of N-node")
  replacements      INTEGER,
  savings           REAL,                -- Karpenter's estimated savings per hour, as written ($X.XX)
  rejection         TEXT,                -- budget | scheduling | churn | unknown | score (rejected)
  score             REAL,                -- Balanced (approved): score, threshold, k, savings and disruption shares in %
  threshold         REAL,
  k                 INTEGER,
  savings_percent   REAL,
  disruption_percent REAL,
  cause             TEXT,                -- unconsolidatable: core/karpenter/events.ts UnconsolidatableCause
  message           TEXT NOT NULL
);
CREATE INDEX karpenter_explanations_at ON karpenter_explanations(at);
CREATE INDEX karpenter_explanations_nodeclaim ON karpenter_explanations(nodeclaim, at);
CREATE INDEX karpenter_explanations_node ON karpenter_explanations(node_name, at);

-- Pods seen pending before they were bound: what a reader at a time before their binding takes as pending (the
-- pending query names these conditions so SQLite uses the partial index; most pods are bound when first seen).
-- Retention finds pod specs no pod references any more by this.
CREATE INDEX pods_spec_hash ON pods(spec_hash) WHERE spec_hash IS NOT NULL;
CREATE INDEX pods_bound_late ON pods(scheduled_at) WHERE scheduled_at IS NOT NULL AND scheduled_at > first_seen;
