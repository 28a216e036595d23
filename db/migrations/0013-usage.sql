-- What pods really use (issue 15): the resource metrics API (metrics.k8s.io/v1beta1, metrics-server) read with every
-- snapshot, and a Prometheus-compatible API's history (collect --prometheus). Written by db/repositories/
-- usage-repository.ts in the snapshot's own transaction; read through the same file. CPU in millicores (REAL:
-- metrics-server reports nanocores), memory in bytes (working set), times epoch ms UTC.

-- Per snapshot: whether usage could be read (available | absent | unavailable | forbidden | failed) and how many of
-- its pods metrics-server reported. A snapshot without a row here was taken before usage was collected.
CREATE TABLE usage_snapshots (
  snapshot_id     INTEGER PRIMARY KEY REFERENCES snapshots(id),
  taken_at        INTEGER NOT NULL,
  state           TEXT NOT NULL,
  message         TEXT,
  pods_with_usage INTEGER NOT NULL
);
CREATE INDEX usage_snapshots_taken_at ON usage_snapshots (taken_at);

-- Per container per snapshot, kept only `retention` (the collector's --usage-retention, default 3 days) behind the
-- newest snapshot and never before its hour is rolled up into usage_workload_hours. The workload is the owning
-- Deployment / StatefulSet / Job / DaemonSet (core/usage.ts workloadOf); requests are the container's own.
CREATE TABLE usage_samples (
  snapshot_id   INTEGER NOT NULL REFERENCES snapshots(id),
  taken_at      INTEGER NOT NULL,
  namespace     TEXT NOT NULL,
  workload_kind TEXT NOT NULL,
  workload_name TEXT NOT NULL,
  container     TEXT NOT NULL,
  pod           TEXT NOT NULL,
  node_name     TEXT,
  nodepool      TEXT,
  cpu_m         REAL NOT NULL,
  memory_b      INTEGER NOT NULL,
  req_cpu_m     INTEGER,
  req_memory_b  INTEGER,
  -- The PodMetrics timestamp and window (metrics-server's own measurement time, a little before taken_at).
  measured_at   INTEGER NOT NULL,
  window_ms     INTEGER NOT NULL
);
CREATE INDEX usage_samples_taken_at ON usage_samples (taken_at);
CREATE INDEX usage_samples_workload ON usage_samples (namespace, workload_kind, workload_name, container, taken_at);

-- Hours that have samples, and whether their workload rollups are final (written once a snapshot of a later hour
-- arrives; until then a reader computes the open hour from usage_samples).
CREATE TABLE usage_hours (
  hour_start INTEGER PRIMARY KEY,
  final      INTEGER NOT NULL DEFAULT 0
);

-- Per workload x container x UTC hour: CPU p50/p95/p99/max/mean over every sample of every pod of the workload in the
-- hour (linear interpolation between closest ranks, as Prometheus' quantile_over_time), memory working set max and
-- mean, the sample and pod counts, the largest request seen, the OOM kills that ended in the hour. source:
-- 'metrics-server' (rolled up from usage_samples) or 'prometheus' (a backfill; never replaces a metrics-server row).
CREATE TABLE usage_workload_hours (
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
  PRIMARY KEY (namespace, workload_kind, workload_name, container, hour_start)
) WITHOUT ROWID;
CREATE INDEX usage_workload_hours_hour ON usage_workload_hours (hour_start);

-- OOM kills as the Pod objects report them (status.containerStatuses[].lastState.terminated.reason OOMKilled): one row
-- per pod, container and finishedAt, however many snapshots still show it. memory_limit_b: the container's memory
-- limit then (where the kill happened), null without one.
CREATE TABLE usage_oom_kills (
  pod_uid        TEXT NOT NULL,
  container      TEXT NOT NULL,
  at             INTEGER NOT NULL,
  namespace      TEXT NOT NULL,
  workload_kind  TEXT NOT NULL,
  workload_name  TEXT NOT NULL,
  pod            TEXT NOT NULL,
  memory_limit_b INTEGER,
  snapshot_id    INTEGER REFERENCES snapshots(id),
  PRIMARY KEY (pod_uid, container, at)
) WITHOUT ROWID;
CREATE INDEX usage_oom_kills_workload ON usage_oom_kills (namespace, workload_kind, workload_name, container, at);

-- Per namespace x NodePool per snapshot: usage beside the requests of the same pods (snapshot_namespaces holds every
-- pod's requests; *_with_usage only those metrics-server reported, so usage / request compares like with like).
CREATE TABLE usage_namespaces (
  snapshot_id              INTEGER NOT NULL REFERENCES snapshots(id),
  taken_at                 INTEGER NOT NULL,
  namespace                TEXT NOT NULL,
  nodepool                 TEXT NOT NULL,
  pods                     INTEGER NOT NULL,
  pods_with_usage          INTEGER NOT NULL,
  req_cpu_m                INTEGER NOT NULL,
  req_memory_b             INTEGER NOT NULL,
  req_cpu_m_with_usage     INTEGER NOT NULL,
  req_memory_b_with_usage  INTEGER NOT NULL,
  usage_cpu_m              REAL NOT NULL,
  usage_memory_b           INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, namespace, nodepool)
);
CREATE INDEX usage_namespaces_taken_at ON usage_namespaces (taken_at);

-- Per NodePool per snapshot ('' = nodes without one): its pods' usage, and its nodes' own usage from NodeMetrics
-- (every process on the node: kubelet, runtime, system daemons, pods).
CREATE TABLE usage_nodepools (
  snapshot_id        INTEGER NOT NULL REFERENCES snapshots(id),
  taken_at           INTEGER NOT NULL,
  nodepool           TEXT NOT NULL,
  nodes              INTEGER NOT NULL,
  nodes_with_usage   INTEGER NOT NULL,
  pod_usage_cpu_m    REAL NOT NULL,
  pod_usage_memory_b INTEGER NOT NULL,
  node_usage_cpu_m   REAL NOT NULL,
  node_usage_memory_b INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, nodepool)
);
CREATE INDEX usage_nodepools_taken_at ON usage_nodepools (taken_at);

-- Per node per snapshot, from NodeMetrics (kept like snapshot_nodes).
CREATE TABLE usage_nodes (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
  node_name   TEXT NOT NULL,
  cpu_m       REAL NOT NULL,
  memory_b    INTEGER NOT NULL,
  measured_at INTEGER NOT NULL,
  window_ms   INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, node_name)
);
