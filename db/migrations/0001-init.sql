-- NodePool Ledger schema v1. Times are epoch milliseconds UTC; cpu in millicores; memory in bytes; money in USD.

CREATE TABLE collection_runs (
  id            INTEGER PRIMARY KEY,
  kind          TEXT NOT NULL,             -- 'kubernetes' | 'cost-explorer' | 'pricing' | 'spot' | 'demo'
  started_at    INTEGER NOT NULL,
  finished_at   INTEGER,
  status        TEXT NOT NULL DEFAULT 'running', -- running | ok | failed
  source        TEXT NOT NULL,             -- 'sandbox' | 'aws'
  rows_written  INTEGER NOT NULL DEFAULT 0,
  message       TEXT
);

-- Every request made to a paid or rate-limited API, counted (Cost Explorer costs USD 0.01 each).
CREATE TABLE api_requests (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER REFERENCES collection_runs(id),
  at         INTEGER NOT NULL,
  service    TEXT NOT NULL,
  operation  TEXT NOT NULL,
  detail     TEXT
);

CREATE TABLE nodepools (
  name                  TEXT PRIMARY KEY,
  weight                INTEGER,
  consolidation_policy  TEXT,
  consolidate_after     TEXT,
  capacity_types_json   TEXT NOT NULL DEFAULT '[]',
  requirements_json     TEXT NOT NULL DEFAULT '[]',
  limits_json           TEXT NOT NULL DEFAULT '{}',
  budgets_json          TEXT NOT NULL DEFAULT '[]',
  nodeclass             TEXT,
  updated_at            INTEGER NOT NULL
);

CREATE TABLE namespaces (
  name        TEXT PRIMARY KEY,
  team        TEXT,
  labels_json TEXT NOT NULL DEFAULT '{}'
);

-- One row per Kubernetes Node ever seen (joined with its NodeClaim where Karpenter launched it).
CREATE TABLE nodes (
  name            TEXT PRIMARY KEY,
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
  labels_json     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX nodes_nodepool ON nodes(nodepool);
CREATE INDEX nodes_instance_id ON nodes(instance_id);

CREATE TABLE nodeclaims (
  name               TEXT PRIMARY KEY,
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
  conditions_json    TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE pods (
  uid             TEXT PRIMARY KEY,
  namespace       TEXT NOT NULL,
  name            TEXT NOT NULL,
  node_name       TEXT,
  owner_kind      TEXT,
  owner_name      TEXT,
  team            TEXT,
  req_cpu_m       INTEGER NOT NULL,
  req_memory_b    INTEGER NOT NULL,
  req_gpu         INTEGER NOT NULL DEFAULT 0,
  do_not_disrupt  INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,
  last_seen       INTEGER NOT NULL,
  labels_json     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX pods_node ON pods(node_name);

CREATE TABLE snapshots (
  id         INTEGER PRIMARY KEY,
  taken_at   INTEGER NOT NULL UNIQUE,
  run_id     INTEGER REFERENCES collection_runs(id),
  node_count INTEGER NOT NULL,
  pod_count  INTEGER NOT NULL
);

-- Per node per snapshot: allocatable, summed effective requests of its bound running pods, and its price then.
CREATE TABLE snapshot_nodes (
  snapshot_id     INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  node_name       TEXT NOT NULL,
  nodepool        TEXT,
  capacity_type   TEXT NOT NULL,
  instance_type   TEXT NOT NULL,
  alloc_cpu_m     INTEGER NOT NULL,
  alloc_memory_b  INTEGER NOT NULL,
  alloc_pods      INTEGER NOT NULL,
  alloc_gpu       INTEGER NOT NULL,
  req_cpu_m       INTEGER NOT NULL,
  req_memory_b    INTEGER NOT NULL,
  req_pods        INTEGER NOT NULL,
  req_gpu         INTEGER NOT NULL,
  usd_per_hour    REAL,
  price_source    TEXT,
  PRIMARY KEY (snapshot_id, node_name)
) WITHOUT ROWID;

-- Rollup per NodePool x capacity type per snapshot ('' = nodes without a NodePool), so range queries never scan nodes.
CREATE TABLE snapshot_nodepools (
  snapshot_id     INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  taken_at        INTEGER NOT NULL,
  nodepool        TEXT NOT NULL,
  capacity_type   TEXT NOT NULL,
  nodes           INTEGER NOT NULL,
  alloc_cpu_m     INTEGER NOT NULL,
  alloc_memory_b  INTEGER NOT NULL,
  alloc_pods      INTEGER NOT NULL,
  alloc_gpu       INTEGER NOT NULL,
  req_cpu_m       INTEGER NOT NULL,
  req_memory_b    INTEGER NOT NULL,
  req_pods        INTEGER NOT NULL,
  req_gpu         INTEGER NOT NULL,
  usd_per_hour    REAL NOT NULL,
  PRIMARY KEY (snapshot_id, nodepool, capacity_type)
) WITHOUT ROWID;
CREATE INDEX snapshot_nodepools_time ON snapshot_nodepools(taken_at, nodepool);

-- Rollup per namespace x NodePool per snapshot: requests, and the request-share of node cost (cpu/memory 50/50).
CREATE TABLE snapshot_namespaces (
  snapshot_id     INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  taken_at        INTEGER NOT NULL,
  namespace       TEXT NOT NULL,
  nodepool        TEXT NOT NULL,
  team            TEXT,
  pods            INTEGER NOT NULL,
  req_cpu_m       INTEGER NOT NULL,
  req_memory_b    INTEGER NOT NULL,
  usd_per_hour    REAL NOT NULL,
  PRIMARY KEY (snapshot_id, namespace, nodepool)
) WITHOUT ROWID;
CREATE INDEX snapshot_namespaces_time ON snapshot_namespaces(taken_at);

CREATE TABLE events (
  uid        TEXT PRIMARY KEY,
  at         INTEGER NOT NULL,
  type       TEXT NOT NULL,
  reason     TEXT NOT NULL,
  message    TEXT NOT NULL,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  namespace  TEXT
);
CREATE INDEX events_at ON events(at);

-- Cost Explorer lines (or an imported CSV). nodepool '' = untagged: kept, never dropped.
CREATE TABLE cost_lines (
  id               INTEGER PRIMARY KEY,
  source           TEXT NOT NULL,          -- 'cost-explorer' | 'csv:<name>'
  granularity      TEXT NOT NULL,          -- DAILY | HOURLY
  period_start     TEXT NOT NULL,          -- as Cost Explorer gives it: 2026-11-01 or 2026-11-01T00:00:00Z
  period_start_ms  INTEGER NOT NULL,
  group_by         TEXT NOT NULL,          -- second grouping dimension: PURCHASE_TYPE | INSTANCE_TYPE | RESOURCE_ID
  nodepool         TEXT NOT NULL,
  dimension_value  TEXT NOT NULL,
  unblended_usd    REAL NOT NULL,
  amortized_usd    REAL,
  usage_quantity   REAL,
  usage_unit       TEXT,
  estimated        INTEGER NOT NULL,
  fetched_at       INTEGER NOT NULL,
  UNIQUE (source, granularity, group_by, period_start, nodepool, dimension_value)
);
CREATE INDEX cost_lines_period ON cost_lines(period_start_ms);

-- Price history. On-demand rows have zone ''. source: pricing-api | spot-history | static-table.
CREATE TABLE prices (
  kind           TEXT NOT NULL,           -- on-demand | spot
  region         TEXT NOT NULL,
  instance_type  TEXT NOT NULL,
  zone           TEXT NOT NULL,
  effective_at   INTEGER NOT NULL,
  usd_per_hour   REAL NOT NULL,
  source         TEXT NOT NULL,
  PRIMARY KEY (kind, region, instance_type, zone, effective_at)
) WITHOUT ROWID;

CREATE TABLE settings (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
