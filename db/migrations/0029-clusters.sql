-- foreign_keys: off
-- Several clusters in one ledger (issue 25). A `clusters` table, and a cluster key on every table that holds one
-- cluster's data; an existing single-cluster ledger moves in place: cluster 1 is the one it held, every row is its.
-- The rule applied per table is in docs/clusters.md ("Which tables carry the cluster"); in short:
--   A  own key: cluster_id joins the table's unique key (rebuilt), placed right after the columns readers seek by
--      today, so a reader that does not filter by cluster yet keeps its seek and one that does checks it in the key
--   B  own column: the key is already unique across clusters (a Kubernetes uid, a snapshot id): a cluster_id column
--   C  rides its parent: reached only through a per-cluster parent's id (snapshot_id, alert_id, run_id): no column
--   D  shared: content-addressed or per-region/per-bill-source rows (pod specs, prices, CUR files): no column
--   E  ledger-wide with an optional cluster: cluster_id NULL = every cluster (budgets, alerts, runs)
-- Written with foreign keys off (open-db.ts runs a migration marked as this one so, then checks every key before
-- committing): rebuilding `snapshots` with them on would cascade-delete every snapshot's rows.
-- cluster_id DEFAULT 1 keeps today's single-cluster writers writing the one cluster; the multi-cluster collector sets it.

CREATE TABLE clusters (
  id              INTEGER PRIMARY KEY,
  name            TEXT NOT NULL UNIQUE,          -- the EKS cluster name: eks:eks-cluster-name on its instances and bill lines
  named_from      TEXT NOT NULL CHECK (named_from IN ('cur-tag', 'collect', 'clusters-file', 'context', 'placeholder')),
  account         TEXT,                          -- AWS account id (12 digits); NULL unknown
  region          TEXT,                          -- its AWS region; NULL unknown
  kube_context    TEXT,                          -- kubeconfig context; NULL in-cluster or unknown
  in_cluster      INTEGER NOT NULL DEFAULT 0,
  aws_profile     TEXT,                          -- AWS profile of its account (clusters file), or
  role_arn        TEXT,                          -- the role assumed for its account
  prometheus_url  TEXT,
  added_at        INTEGER NOT NULL               -- epoch ms
);

-- The one cluster of an existing ledger, named from its data: the cluster tag the CUR carried most lines for, else
-- a placeholder that the first `collect --cluster NAME` (or clusters file) on the file renames.
INSERT INTO clusters (id, name, named_from, region, added_at)
SELECT 1,
       COALESCE(t.cluster, 'default'),
       CASE WHEN t.cluster IS NULL THEN 'placeholder' ELSE 'cur-tag' END,
       (SELECT value FROM settings WHERE key = 'pricing.cluster-region'),
       CAST(unixepoch('subsec') * 1000 AS INTEGER)
FROM (SELECT (SELECT cluster FROM cur_nodepool_daily WHERE cluster <> '' GROUP BY cluster
              ORDER BY SUM(line_count) DESC, cluster LIMIT 1) AS cluster) t;

-- ---------------------------------------------------------------------------------------------------------------
-- A: own key, rebuilt. Each: the new table, the rows copied (cluster 1), the old one dropped, the new one renamed,
-- its indexes (and triggers) made again.

CREATE TABLE nodepools_new (
  name                  TEXT NOT NULL,
  weight                INTEGER,
  consolidation_policy  TEXT,
  consolidate_after     TEXT,
  capacity_types_json   TEXT NOT NULL DEFAULT '[]',
  requirements_json     TEXT NOT NULL DEFAULT '[]',
  limits_json           TEXT NOT NULL DEFAULT '{}',
  budgets_json          TEXT NOT NULL DEFAULT '[]',
  nodeclass             TEXT,
  updated_at            INTEGER NOT NULL,
  expire_after          TEXT,
  taints_json           TEXT NOT NULL DEFAULT '[]',
  cluster_id            INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (name, cluster_id)
);
INSERT INTO nodepools_new (name, weight, consolidation_policy, consolidate_after, capacity_types_json, requirements_json,
  limits_json, budgets_json, nodeclass, updated_at, expire_after, taints_json, cluster_id)
SELECT name, weight, consolidation_policy, consolidate_after, capacity_types_json, requirements_json,
  limits_json, budgets_json, nodeclass, updated_at, expire_after, taints_json, 1 FROM nodepools;
DROP TABLE nodepools;
ALTER TABLE nodepools_new RENAME TO nodepools;

CREATE TABLE namespaces_new (
  name        TEXT NOT NULL,
  team        TEXT,
  labels_json TEXT NOT NULL DEFAULT '{}',
  cluster_id  INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (name, cluster_id)
);
INSERT INTO namespaces_new (name, team, labels_json, cluster_id) SELECT name, team, labels_json, 1 FROM namespaces;
DROP TABLE namespaces;
ALTER TABLE namespaces_new RENAME TO namespaces;

CREATE TABLE nodes_new (
  name            TEXT NOT NULL,
  nodeclaim       TEXT,
  nodepool        TEXT,                  -- NULL: not launched by Karpenter
  instance_type   TEXT NOT NULL,
  capacity_type   TEXT NOT NULL,
  zone            TEXT NOT NULL,
  instance_id     TEXT,
  created_at      INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,
  last_seen       INTEGER NOT NULL,
  deleted_at      INTEGER,               -- first snapshot where it was gone
  alloc_cpu_m     INTEGER NOT NULL,
  alloc_memory_b  INTEGER NOT NULL,
  alloc_pods      INTEGER NOT NULL,
  alloc_gpu       INTEGER NOT NULL DEFAULT 0,
  labels_json     TEXT NOT NULL DEFAULT '{}',
  capacity_json   TEXT,
  cluster_id      INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (name, cluster_id)
);
INSERT INTO nodes_new (name, nodeclaim, nodepool, instance_type, capacity_type, zone, instance_id, created_at, first_seen,
  last_seen, deleted_at, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, labels_json, capacity_json, cluster_id)
SELECT name, nodeclaim, nodepool, instance_type, capacity_type, zone, instance_id, created_at, first_seen,
  last_seen, deleted_at, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, labels_json, capacity_json, 1 FROM nodes;
DROP TABLE nodes;
ALTER TABLE nodes_new RENAME TO nodes;
CREATE INDEX nodes_nodepool ON nodes(nodepool, cluster_id);
CREATE INDEX nodes_instance_id ON nodes(instance_id);
CREATE INDEX nodes_nodeclaim ON nodes(nodeclaim, cluster_id);

CREATE TABLE nodeclaims_new (
  name               TEXT NOT NULL,
  nodepool           TEXT,
  node_name          TEXT,
  instance_type      TEXT,
  capacity_type      TEXT,
  zone               TEXT,
  instance_id        TEXT,
  created_at         INTEGER NOT NULL,
  first_seen         INTEGER NOT NULL,
  last_seen          INTEGER NOT NULL,
  deleted_at         INTEGER,
  disruption_reason  TEXT,
  conditions_json    TEXT NOT NULL DEFAULT '[]',
  disruption_at      INTEGER,
  expire_after       TEXT,
  cluster_id         INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (name, cluster_id)
);
INSERT INTO nodeclaims_new (name, nodepool, node_name, instance_type, capacity_type, zone, instance_id, created_at, first_seen,
  last_seen, deleted_at, disruption_reason, conditions_json, disruption_at, expire_after, cluster_id)
SELECT name, nodepool, node_name, instance_type, capacity_type, zone, instance_id, created_at, first_seen,
  last_seen, deleted_at, disruption_reason, conditions_json, disruption_at, expire_after, 1 FROM nodeclaims;
DROP TABLE nodeclaims;
ALTER TABLE nodeclaims_new RENAME TO nodeclaims;
CREATE INDEX nodeclaims_instance_id ON nodeclaims(instance_id);
CREATE INDEX nodeclaims_deleted_at ON nodeclaims(deleted_at);
CREATE INDEX nodeclaims_created_at ON nodeclaims(created_at);

-- The disruption marks on nodes and nodeclaims went with the old tables: the same triggers again (0009, 0011). They
-- mark across clusters (events by name): a rebuild from a little too early costs time, never a wrong disruption.
CREATE TRIGGER disruptions_dirty_node_insert AFTER INSERT ON nodes
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, 9e15), (SELECT MIN(at) FROM events WHERE name IN (NEW.name, NEW.nodeclaim)))
  WHERE id = 1 AND EXISTS (SELECT 1 FROM events WHERE name IN (NEW.name, NEW.nodeclaim));
END;
CREATE TRIGGER disruptions_dirty_node_update AFTER UPDATE OF nodeclaim, nodepool, instance_type, capacity_type ON nodes
WHEN (NEW.nodeclaim IS NOT OLD.nodeclaim OR NEW.nodepool IS NOT OLD.nodepool OR NEW.instance_type IS NOT OLD.instance_type
      OR NEW.capacity_type IS NOT OLD.capacity_type)
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, 9e15), (SELECT MIN(at) FROM events WHERE name IN (NEW.name, NEW.nodeclaim, OLD.nodeclaim)))
  WHERE id = 1 AND EXISTS (SELECT 1 FROM events WHERE name IN (NEW.name, NEW.nodeclaim, OLD.nodeclaim));
END;
CREATE TRIGGER disruptions_dirty_nodeclaim_insert AFTER INSERT ON nodeclaims
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, NEW.created_at), NEW.created_at,
                          COALESCE((SELECT MIN(at) FROM events WHERE name IN (NEW.name, NEW.node_name)), 9e15))
  WHERE id = 1;
END;
CREATE TRIGGER disruptions_dirty_nodeclaim_update AFTER UPDATE OF node_name, nodepool, instance_type, capacity_type, created_at ON nodeclaims
WHEN (NEW.node_name IS NOT OLD.node_name OR NEW.nodepool IS NOT OLD.nodepool OR NEW.instance_type IS NOT OLD.instance_type
      OR NEW.capacity_type IS NOT OLD.capacity_type OR NEW.created_at IS NOT OLD.created_at)
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, 9e15), NEW.created_at, OLD.created_at,
                          COALESCE((SELECT MIN(at) FROM events WHERE name IN (NEW.name, NEW.node_name, OLD.node_name)), 9e15))
  WHERE id = 1;
END;
CREATE TRIGGER disruptions_dirty_nodeclaim_gone AFTER UPDATE OF deleted_at, disruption_reason, disruption_at, expire_after ON nodeclaims
WHEN (NEW.deleted_at IS NOT OLD.deleted_at OR NEW.disruption_reason IS NOT OLD.disruption_reason
      OR NEW.disruption_at IS NOT OLD.disruption_at OR NEW.expire_after IS NOT OLD.expire_after)
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, 9e15), COALESCE(NEW.deleted_at, 9e15), COALESCE(OLD.deleted_at, 9e15),
                          COALESCE(NEW.disruption_at, 9e15), COALESCE(OLD.disruption_at, 9e15))
  WHERE id = 1;
  UPDATE disruptions_state SET dirty_from_ms = NULL WHERE id = 1 AND dirty_from_ms >= 9e15;
END;

CREATE TABLE snapshots_new (
  id              INTEGER PRIMARY KEY,
  taken_at        INTEGER NOT NULL,
  run_id          INTEGER REFERENCES collection_runs(id),
  node_count      INTEGER NOT NULL,
  pod_count       INTEGER NOT NULL,
  currency        TEXT NOT NULL DEFAULT 'USD',
  kinds_json      TEXT,
  fold_ms         INTEGER,
  fold_snapshots  INTEGER,
  cluster_id      INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  UNIQUE (taken_at, cluster_id)
);
INSERT INTO snapshots_new (id, taken_at, run_id, node_count, pod_count, currency, kinds_json, fold_ms, fold_snapshots, cluster_id)
SELECT id, taken_at, run_id, node_count, pod_count, currency, kinds_json, fold_ms, fold_snapshots, 1 FROM snapshots;
DROP TABLE snapshots;
ALTER TABLE snapshots_new RENAME TO snapshots;
CREATE INDEX snapshots_raw ON snapshots(taken_at, cluster_id) WHERE fold_ms IS NULL;
CREATE INDEX snapshots_folded ON snapshots(taken_at, cluster_id) WHERE fold_ms IS NOT NULL;

CREATE TABLE rollup_spans_new (
  span_ms              INTEGER NOT NULL,
  bucket_ms            INTEGER NOT NULL,
  snapshots_taken      INTEGER NOT NULL DEFAULT 0,
  snapshots_weighted   INTEGER NOT NULL DEFAULT 0,
  hours                REAL NOT NULL DEFAULT 0,
  cluster_id           INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (span_ms, bucket_ms, cluster_id)
) WITHOUT ROWID;
INSERT INTO rollup_spans_new (span_ms, bucket_ms, snapshots_taken, snapshots_weighted, hours, cluster_id)
SELECT span_ms, bucket_ms, snapshots_taken, snapshots_weighted, hours, 1 FROM rollup_spans;
DROP TABLE rollup_spans;
ALTER TABLE rollup_spans_new RENAME TO rollup_spans;

CREATE TABLE rollup_nodepools_new (
  span_ms                INTEGER NOT NULL,
  bucket_ms              INTEGER NOT NULL,
  nodepool               TEXT NOT NULL,
  capacity_type          TEXT NOT NULL,
  snap_nodes             REAL NOT NULL DEFAULT 0,
  snap_alloc_cpu_m       REAL NOT NULL DEFAULT 0,
  snap_req_cpu_m         REAL NOT NULL DEFAULT 0,
  snap_alloc_memory_b    REAL NOT NULL DEFAULT 0,
  snap_req_memory_b      REAL NOT NULL DEFAULT 0,
  snap_usd_per_hour      REAL NOT NULL DEFAULT 0,
  node_hours             REAL NOT NULL DEFAULT 0,
  cost_usd               REAL NOT NULL DEFAULT 0,
  alloc_cpu_m_hours      REAL NOT NULL DEFAULT 0,
  req_cpu_m_hours        REAL NOT NULL DEFAULT 0,
  alloc_memory_b_hours   REAL NOT NULL DEFAULT 0,
  req_memory_b_hours     REAL NOT NULL DEFAULT 0,
  alloc_pods_hours       REAL NOT NULL DEFAULT 0,
  req_pods_hours         REAL NOT NULL DEFAULT 0,
  alloc_gpu_hours        REAL NOT NULL DEFAULT 0,
  req_gpu_hours          REAL NOT NULL DEFAULT 0,
  cw_cpu_usd             REAL NOT NULL DEFAULT 0,
  cw_memory_usd          REAL NOT NULL DEFAULT 0,
  cw_pods_usd            REAL NOT NULL DEFAULT 0,
  cw_gpu_usd             REAL NOT NULL DEFAULT 0,
  gpu_nodes_usd          REAL NOT NULL DEFAULT 0,
  on_demand_usd          REAL NOT NULL DEFAULT 0,
  on_demand_unknown_usd  REAL NOT NULL DEFAULT 0,
  rp_requested_usd       REAL NOT NULL DEFAULT 0,
  rp_cpu_usd             REAL NOT NULL DEFAULT 0,
  rp_gpu_usd             REAL NOT NULL DEFAULT 0,
  cluster_id             INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (span_ms, bucket_ms, nodepool, capacity_type, cluster_id)
) WITHOUT ROWID;
INSERT INTO rollup_nodepools_new (span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m,
  snap_alloc_memory_b, snap_req_memory_b, snap_usd_per_hour, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours,
  alloc_memory_b_hours, req_memory_b_hours, alloc_pods_hours, req_pods_hours, alloc_gpu_hours, req_gpu_hours, cw_cpu_usd,
  cw_memory_usd, cw_pods_usd, cw_gpu_usd, gpu_nodes_usd, on_demand_usd, on_demand_unknown_usd, rp_requested_usd, rp_cpu_usd,
  rp_gpu_usd, cluster_id)
SELECT span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m,
  snap_alloc_memory_b, snap_req_memory_b, snap_usd_per_hour, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours,
  alloc_memory_b_hours, req_memory_b_hours, alloc_pods_hours, req_pods_hours, alloc_gpu_hours, req_gpu_hours, cw_cpu_usd,
  cw_memory_usd, cw_pods_usd, cw_gpu_usd, gpu_nodes_usd, on_demand_usd, on_demand_unknown_usd, rp_requested_usd, rp_cpu_usd,
  rp_gpu_usd, 1 FROM rollup_nodepools;
DROP TABLE rollup_nodepools;
ALTER TABLE rollup_nodepools_new RENAME TO rollup_nodepools;

CREATE TABLE rollup_namespaces_new (
  span_ms             INTEGER NOT NULL,
  bucket_ms           INTEGER NOT NULL,
  namespace           TEXT NOT NULL,
  nodepool            TEXT NOT NULL,
  team                TEXT,
  newest_at           INTEGER NOT NULL,
  request_share_usd   REAL NOT NULL DEFAULT 0,
  cpu_share_usd       REAL NOT NULL DEFAULT 0,
  memory_share_usd    REAL NOT NULL DEFAULT 0,
  aws_split_usd       REAL NOT NULL DEFAULT 0,
  legacy_usd          REAL NOT NULL DEFAULT 0,
  aws_split_cost_usd  REAL NOT NULL DEFAULT 0,
  aws_unused_cost_usd REAL NOT NULL DEFAULT 0,
  opencost_usd        REAL NOT NULL DEFAULT 0,
  legacy_methods_usd  REAL NOT NULL DEFAULT 0,
  pod_hours           REAL NOT NULL DEFAULT 0,
  usage_pod_hours     REAL NOT NULL DEFAULT 0,
  cluster_id          INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (span_ms, bucket_ms, namespace, nodepool, cluster_id)
) WITHOUT ROWID;
INSERT INTO rollup_namespaces_new (span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd,
  memory_share_usd, aws_split_usd, legacy_usd, aws_split_cost_usd, aws_unused_cost_usd, opencost_usd, legacy_methods_usd,
  pod_hours, usage_pod_hours, cluster_id)
SELECT span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd,
  memory_share_usd, aws_split_usd, legacy_usd, aws_split_cost_usd, aws_unused_cost_usd, opencost_usd, legacy_methods_usd,
  pod_hours, usage_pod_hours, 1 FROM rollup_namespaces;
DROP TABLE rollup_namespaces;
ALTER TABLE rollup_namespaces_new RENAME TO rollup_namespaces;

CREATE TABLE usage_hours_new (
  hour_start  INTEGER NOT NULL,
  final       INTEGER NOT NULL DEFAULT 0,
  cluster_id  INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (hour_start, cluster_id)
);
INSERT INTO usage_hours_new (hour_start, final, cluster_id) SELECT hour_start, final, 1 FROM usage_hours;
DROP TABLE usage_hours;
ALTER TABLE usage_hours_new RENAME TO usage_hours;

CREATE TABLE usage_workload_hours_new (
  hour_start    INTEGER NOT NULL,
  namespace     TEXT NOT NULL,
  workload_kind TEXT NOT NULL,
  workload_name TEXT NOT NULL,
  container     TEXT NOT NULL,
  samples       INTEGER NOT NULL,
  pods          INTEGER NOT NULL,
  cpu_p50_m     REAL NOT NULL,
  cpu_p95_m     REAL NOT NULL,
  cpu_p99_m     REAL NOT NULL,
  cpu_max_m     REAL NOT NULL,
  cpu_avg_m     REAL NOT NULL,
  memory_max_b  INTEGER NOT NULL,
  memory_avg_b  REAL NOT NULL,
  req_cpu_m     INTEGER,
  req_memory_b  INTEGER,
  oom_kills     INTEGER NOT NULL,
  source        TEXT NOT NULL,
  lim_cpu_m     INTEGER,
  cluster_id    INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (namespace, workload_kind, workload_name, container, hour_start, cluster_id)
) WITHOUT ROWID;
INSERT INTO usage_workload_hours_new (hour_start, namespace, workload_kind, workload_name, container, samples, pods, cpu_p50_m,
  cpu_p95_m, cpu_p99_m, cpu_max_m, cpu_avg_m, memory_max_b, memory_avg_b, req_cpu_m, req_memory_b, oom_kills, source, lim_cpu_m,
  cluster_id)
SELECT hour_start, namespace, workload_kind, workload_name, container, samples, pods, cpu_p50_m,
  cpu_p95_m, cpu_p99_m, cpu_max_m, cpu_avg_m, memory_max_b, memory_avg_b, req_cpu_m, req_memory_b, oom_kills, source, lim_cpu_m,
  1 FROM usage_workload_hours;
DROP TABLE usage_workload_hours;
ALTER TABLE usage_workload_hours_new RENAME TO usage_workload_hours;
CREATE INDEX usage_workload_hours_hour ON usage_workload_hours (hour_start, cluster_id);

CREATE TABLE usage_nodepool_hours_new (
  hour_ms            INTEGER NOT NULL,
  nodepool           TEXT NOT NULL,
  snapshots          INTEGER NOT NULL,
  pod_usage_cpu_m    REAL NOT NULL,
  pod_usage_memory_b REAL NOT NULL,
  alloc_cpu_m        REAL NOT NULL,
  alloc_memory_b     REAL NOT NULL,
  cluster_id         INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (hour_ms, nodepool, cluster_id)
) WITHOUT ROWID;
INSERT INTO usage_nodepool_hours_new (hour_ms, nodepool, snapshots, pod_usage_cpu_m, pod_usage_memory_b, alloc_cpu_m, alloc_memory_b, cluster_id)
SELECT hour_ms, nodepool, snapshots, pod_usage_cpu_m, pod_usage_memory_b, alloc_cpu_m, alloc_memory_b, 1 FROM usage_nodepool_hours;
DROP TABLE usage_nodepool_hours;
ALTER TABLE usage_nodepool_hours_new RENAME TO usage_nodepool_hours;

CREATE TABLE kube_object_versions_new (
  kind        TEXT NOT NULL,
  namespace   TEXT NOT NULL,            -- '' for cluster-scoped objects
  name        TEXT NOT NULL,
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  hash        TEXT NOT NULL,
  cluster_id  INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  PRIMARY KEY (kind, namespace, name, first_seen, cluster_id)
) WITHOUT ROWID;
INSERT INTO kube_object_versions_new (kind, namespace, name, first_seen, last_seen, hash, cluster_id)
SELECT kind, namespace, name, first_seen, last_seen, hash, 1 FROM kube_object_versions;
DROP TABLE kube_object_versions;
ALTER TABLE kube_object_versions_new RENAME TO kube_object_versions;
CREATE INDEX kube_object_versions_time ON kube_object_versions(kind, last_seen, cluster_id);
CREATE INDEX kube_object_versions_hash ON kube_object_versions(hash);

-- Cost Explorer lines: a multi-cluster account's one query groups by the cluster tag, each line lands on its cluster.
CREATE TABLE cost_lines_new (
  id                 INTEGER PRIMARY KEY,
  source             TEXT NOT NULL,          -- 'cost-explorer' | 'csv:<name>'
  granularity        TEXT NOT NULL,          -- DAILY | HOURLY
  period_start       TEXT NOT NULL,          -- as Cost Explorer gives it: 2026-11-01 or 2026-11-01T00:00:00Z
  period_start_ms    INTEGER NOT NULL,
  group_by           TEXT NOT NULL,          -- second grouping dimension: PURCHASE_TYPE | INSTANCE_TYPE | RESOURCE_ID
  nodepool           TEXT NOT NULL,
  dimension_value    TEXT NOT NULL,
  unblended_usd      REAL NOT NULL,
  amortized_usd      REAL,
  usage_quantity     REAL,
  usage_unit         TEXT,
  estimated          INTEGER NOT NULL,
  fetched_at         INTEGER NOT NULL,
  currency           TEXT NOT NULL DEFAULT 'USD',
  net_unblended_usd  REAL,
  net_amortized_usd  REAL,
  cluster_id         INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id),
  UNIQUE (source, granularity, group_by, period_start, nodepool, dimension_value, cluster_id)
);
INSERT INTO cost_lines_new (id, source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value,
  unblended_usd, amortized_usd, usage_quantity, usage_unit, estimated, fetched_at, currency, net_unblended_usd, net_amortized_usd,
  cluster_id)
SELECT id, source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value,
  unblended_usd, amortized_usd, usage_quantity, usage_unit, estimated, fetched_at, currency, net_unblended_usd, net_amortized_usd,
  1 FROM cost_lines;
DROP TABLE cost_lines;
ALTER TABLE cost_lines_new RENAME TO cost_lines;
CREATE INDEX cost_lines_period ON cost_lines(period_start_ms, cluster_id);
CREATE INDEX cost_lines_source_period ON cost_lines(source, period_start_ms, cluster_id);

-- ---------------------------------------------------------------------------------------------------------------
-- B: own column; the key is already unique across clusters. Readers range these by time: the cluster joins the index.
-- pods is a view over pod_rows and pod_dims since 0027: the cluster rides pod_rows (pod_dims are shared content).
ALTER TABLE pod_rows ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE events ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE karpenter_explanations ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE disruptions ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE snapshot_nodepools ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE snapshot_namespaces ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE usage_snapshots ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE usage_samples ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE usage_namespaces ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE usage_nodepools ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
ALTER TABLE usage_oom_kills ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 1 REFERENCES clusters(id);
DROP INDEX events_at;
CREATE INDEX events_at ON events(at, cluster_id);
DROP INDEX disruptions_at;
CREATE INDEX disruptions_at ON disruptions(at, seq, cluster_id);
DROP INDEX snapshot_nodepools_time;
CREATE INDEX snapshot_nodepools_time ON snapshot_nodepools(taken_at, nodepool, cluster_id);
DROP INDEX snapshot_namespaces_time;
CREATE INDEX snapshot_namespaces_time ON snapshot_namespaces(taken_at, cluster_id);
DROP INDEX karpenter_explanations_at;
CREATE INDEX karpenter_explanations_at ON karpenter_explanations(at, cluster_id);

-- ---------------------------------------------------------------------------------------------------------------
-- E: ledger-wide rows that may concern one cluster; NULL = every cluster (an account's Cost Explorer run, a budget of
-- the whole ledger). Existing rows were all the one cluster's.
ALTER TABLE collection_runs ADD COLUMN cluster_id INTEGER REFERENCES clusters(id);
ALTER TABLE budgets ADD COLUMN cluster_id INTEGER REFERENCES clusters(id);
ALTER TABLE alerts ADD COLUMN cluster_id INTEGER REFERENCES clusters(id);
UPDATE collection_runs SET cluster_id = 1;
UPDATE budgets SET cluster_id = 1;
UPDATE alerts SET cluster_id = 1;
DROP INDEX alerts_open;
CREATE UNIQUE INDEX alerts_open ON alerts(rule, subject, IFNULL(cluster_id, 0)) WHERE phase <> 'resolved';
