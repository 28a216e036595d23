-- Narrow CUR resource days (issue 24: a 13-month store at the envelope within 4 GB). cur_resource_daily held, in
-- every row, the CUR source (an S3 URI), billing period, day, resource id, line item type, usage type, product code,
-- operation, category, cluster, NodePool, NodeClaim, attribution and commitment as text, twice over (the table and its
-- nine-column text primary key), and three more indexes: about 440 bytes a resource-day, 2.1 million of them in 13
-- months at the envelope (0.82 GiB). What a resource is (its period, id, cluster, NodePool, NodeClaim, attribution)
-- and what kind of line it is (type, usage type, product, operation, category, commitment) repeat; per row only the
-- day and the figures are its own. So:
--   cur_period_keys     (source, billing period) once, deleted with its cur_periods row
--   cur_line_kinds      what kind of line: one row per distinct (line item type, usage type, product code, operation,
--                       category, commitment ARN), a few dozen in a real CUR
--   cur_resource_keys   what a resource is in one period: id, cluster, NodePool, NodeClaim, attribution
--   cur_resource_lines  per resource key, UTC day and line kind: the figures (WITHOUT ROWID). A figure equal to the one
--                       it usually equals is stored as NULL (amortized, net unblended and public on-demand = unblended;
--                       net amortized = amortized), day as NULL when it is day_ms's UTC date: both read back exactly.
--   cur_resource_daily  a view with the old table's columns in the old order, so every reader reads what it read; an
--                       INSTEAD OF trigger takes the old INSERT (the importer, the bench's generator, tests). Deletes go
--                       to cur_resource_lines and cur_resource_keys (db/repositories/cur-repository.ts, retention prune).
-- The importer writes one row per old key (period, day, resource, line kind, commitment: collectors/cur/period-rows.ts
-- sums lines by it), which is what the old primary key enforced; the new key also holds the resource's attribution.

ALTER TABLE cur_resource_daily RENAME TO cur_resource_daily_0030;
DROP INDEX cur_resource_daily_resource;
DROP INDEX cur_resource_daily_nodepool;
DROP INDEX cur_resource_daily_day;

CREATE TABLE cur_period_keys (
  id              INTEGER PRIMARY KEY,
  source          TEXT NOT NULL,
  billing_period  TEXT NOT NULL,
  UNIQUE (source, billing_period),
  FOREIGN KEY (source, billing_period) REFERENCES cur_periods(source, billing_period) ON DELETE CASCADE
);

CREATE TABLE cur_line_kinds (
  id              INTEGER PRIMARY KEY,
  line_item_type  TEXT NOT NULL,
  usage_type      TEXT NOT NULL,
  product_code    TEXT NOT NULL,
  operation       TEXT NOT NULL,
  category        TEXT NOT NULL CHECK (category IN ('instances', 'volumes', 'data-transfer', 'other')),
  commitment_arn  TEXT NOT NULL,
  UNIQUE (line_item_type, usage_type, product_code, operation, category, commitment_arn)
);

CREATE TABLE cur_resource_keys (
  id             INTEGER PRIMARY KEY,
  period_id      INTEGER NOT NULL REFERENCES cur_period_keys(id) ON DELETE CASCADE,
  resource_id    TEXT NOT NULL,
  cluster        TEXT NOT NULL,
  nodepool       TEXT NOT NULL,
  nodeclaim      TEXT NOT NULL,
  attributed_by  TEXT NOT NULL CHECK (attributed_by IN ('tag', 'nodeclaim', 'none'))
);
CREATE INDEX cur_resource_keys_resource ON cur_resource_keys (resource_id);
CREATE INDEX cur_resource_keys_nodepool ON cur_resource_keys (nodepool);
CREATE INDEX cur_resource_keys_period ON cur_resource_keys (period_id);

CREATE TABLE cur_resource_lines (
  resource_key          INTEGER NOT NULL REFERENCES cur_resource_keys(id) ON DELETE CASCADE,
  day_ms                INTEGER NOT NULL,
  line_kind             INTEGER NOT NULL REFERENCES cur_line_kinds(id),
  day                   TEXT,   -- NULL: strftime('%Y-%m-%d') of day_ms
  unblended_usd         REAL NOT NULL,
  amortized_usd         REAL,   -- NULL: unblended_usd
  net_unblended_usd     REAL,   -- NULL: unblended_usd
  net_amortized_usd     REAL,   -- NULL: amortized_usd (as read)
  usage_amount          REAL NOT NULL,
  public_on_demand_usd  REAL,   -- NULL: unblended_usd
  line_count            INTEGER NOT NULL,
  PRIMARY KEY (resource_key, day_ms, line_kind)
) WITHOUT ROWID;
-- "Explain this bill" reads one UTC day of every resource (0018's cur_resource_daily_day).
CREATE INDEX cur_resource_lines_day ON cur_resource_lines (day_ms);

CREATE VIEW cur_resource_daily AS
SELECT k.source, k.billing_period, COALESCE(l.day, strftime('%Y-%m-%d', l.day_ms / 1000, 'unixepoch')) AS day, l.day_ms, r.resource_id,
       t.line_item_type, t.usage_type, t.product_code, t.operation, t.category, r.cluster, r.nodepool, r.nodeclaim, r.attributed_by,
       t.commitment_arn, l.unblended_usd, COALESCE(l.amortized_usd, l.unblended_usd) AS amortized_usd,
       COALESCE(l.net_unblended_usd, l.unblended_usd) AS net_unblended_usd,
       COALESCE(l.net_amortized_usd, l.amortized_usd, l.unblended_usd) AS net_amortized_usd, l.usage_amount,
       COALESCE(l.public_on_demand_usd, l.unblended_usd) AS public_on_demand_usd, l.line_count
FROM cur_resource_lines l
  JOIN cur_resource_keys r ON r.id = l.resource_key
  JOIN cur_line_kinds t ON t.id = l.line_kind
  JOIN cur_period_keys k ON k.id = r.period_id;

-- The old INSERT: the period, line kind and resource keys (made when new), then the row. The old columns' defaults
-- ('' for operation, cluster, NodePool, NodeClaim and commitment) where a value is left out; a figure left NULL fails
-- as the old NOT NULL did.
CREATE TRIGGER cur_resource_daily_insert INSTEAD OF INSERT ON cur_resource_daily
BEGIN
  SELECT RAISE(ABORT, 'NOT NULL constraint failed: cur_resource_daily')
  WHERE NEW.source IS NULL OR NEW.billing_period IS NULL OR NEW.day IS NULL OR NEW.day_ms IS NULL OR NEW.resource_id IS NULL
    OR NEW.line_item_type IS NULL OR NEW.usage_type IS NULL OR NEW.product_code IS NULL OR NEW.category IS NULL OR NEW.attributed_by IS NULL
    OR NEW.unblended_usd IS NULL OR NEW.amortized_usd IS NULL OR NEW.net_unblended_usd IS NULL OR NEW.net_amortized_usd IS NULL
    OR NEW.usage_amount IS NULL OR NEW.public_on_demand_usd IS NULL OR NEW.line_count IS NULL;
  INSERT INTO cur_period_keys (source, billing_period)
  SELECT NEW.source, NEW.billing_period
  WHERE NOT EXISTS (SELECT 1 FROM cur_period_keys WHERE source = NEW.source AND billing_period = NEW.billing_period);
  INSERT INTO cur_line_kinds (line_item_type, usage_type, product_code, operation, category, commitment_arn)
  SELECT NEW.line_item_type, NEW.usage_type, NEW.product_code, COALESCE(NEW.operation, ''), NEW.category, COALESCE(NEW.commitment_arn, '')
  WHERE NOT EXISTS (
    SELECT 1 FROM cur_line_kinds WHERE line_item_type = NEW.line_item_type AND usage_type = NEW.usage_type AND product_code = NEW.product_code
      AND operation = COALESCE(NEW.operation, '') AND category = NEW.category AND commitment_arn = COALESCE(NEW.commitment_arn, ''));
  INSERT INTO cur_resource_keys (period_id, resource_id, cluster, nodepool, nodeclaim, attributed_by)
  SELECT p.id, NEW.resource_id, COALESCE(NEW.cluster, ''), COALESCE(NEW.nodepool, ''), COALESCE(NEW.nodeclaim, ''), NEW.attributed_by
  FROM cur_period_keys p
  WHERE p.source = NEW.source AND p.billing_period = NEW.billing_period AND NOT EXISTS (
    SELECT 1 FROM cur_resource_keys r WHERE r.resource_id = NEW.resource_id AND r.period_id = p.id AND r.cluster = COALESCE(NEW.cluster, '')
      AND r.nodepool = COALESCE(NEW.nodepool, '') AND r.nodeclaim = COALESCE(NEW.nodeclaim, '') AND r.attributed_by = NEW.attributed_by);
  INSERT INTO cur_resource_lines (resource_key, day_ms, line_kind, day, unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd,
    usage_amount, public_on_demand_usd, line_count)
  VALUES (
    (SELECT r.id FROM cur_resource_keys r JOIN cur_period_keys p ON p.id = r.period_id
     WHERE r.resource_id = NEW.resource_id AND p.source = NEW.source AND p.billing_period = NEW.billing_period
       AND r.cluster = COALESCE(NEW.cluster, '') AND r.nodepool = COALESCE(NEW.nodepool, '') AND r.nodeclaim = COALESCE(NEW.nodeclaim, '')
       AND r.attributed_by = NEW.attributed_by),
    NEW.day_ms,
    (SELECT id FROM cur_line_kinds WHERE line_item_type = NEW.line_item_type AND usage_type = NEW.usage_type AND product_code = NEW.product_code
       AND operation = COALESCE(NEW.operation, '') AND category = NEW.category AND commitment_arn = COALESCE(NEW.commitment_arn, '')),
    CASE WHEN NEW.day = strftime('%Y-%m-%d', NEW.day_ms / 1000, 'unixepoch') THEN NULL ELSE NEW.day END,
    NEW.unblended_usd,
    CASE WHEN NEW.amortized_usd = NEW.unblended_usd THEN NULL ELSE NEW.amortized_usd END,
    CASE WHEN NEW.net_unblended_usd = NEW.unblended_usd THEN NULL ELSE NEW.net_unblended_usd END,
    CASE WHEN NEW.net_amortized_usd = NEW.amortized_usd THEN NULL ELSE NEW.net_amortized_usd END,
    NEW.usage_amount,
    CASE WHEN NEW.public_on_demand_usd = NEW.unblended_usd THEN NULL ELSE NEW.public_on_demand_usd END,
    NEW.line_count);
END;

-- The old rows, in key order (keys made in first-seen order).
INSERT INTO cur_period_keys (source, billing_period) SELECT DISTINCT source, billing_period FROM cur_resource_daily_0030 ORDER BY 1, 2;
INSERT INTO cur_line_kinds (line_item_type, usage_type, product_code, operation, category, commitment_arn)
SELECT DISTINCT line_item_type, usage_type, product_code, operation, category, commitment_arn FROM cur_resource_daily_0030 ORDER BY 1, 2, 3, 4, 5, 6;
INSERT INTO cur_resource_keys (period_id, resource_id, cluster, nodepool, nodeclaim, attributed_by)
SELECT DISTINCT p.id, o.resource_id, o.cluster, o.nodepool, o.nodeclaim, o.attributed_by
FROM cur_resource_daily_0030 o JOIN cur_period_keys p ON p.source = o.source AND p.billing_period = o.billing_period
ORDER BY p.id, o.resource_id, o.cluster, o.nodepool, o.nodeclaim, o.attributed_by;
INSERT INTO cur_resource_daily SELECT * FROM cur_resource_daily_0030 ORDER BY source, billing_period, day_ms, resource_id;
DROP TABLE cur_resource_daily_0030;

-- Narrow container samples (the same issue). usage_samples held, in every row of every snapshot, the container's
-- namespace, workload, container, pod, node and NodePool as text, and two indexes (one over four of those texts): about
-- 186 bytes a sample, 150,000 samples a snapshot at the envelope, 3.6 million in the 2 hours kept (0.62 GiB). What a
-- workload's container is repeats in every sample; per sample only its pod, node and figures are its own. So:
--   usage_sample_dims  what a container of a workload is: cluster, namespace, workload, container, NodePool, requests
--                      and CPU limit — one row per distinct combination (a Deployment's replicas share one per NodePool)
--   usage_sample_rows  per sample: snapshot and time, its usage_sample_dims row, the pod's name (only the part after
--                      "<workload>-" when it starts so), its node (node_names, migration 0026), usage, and how long
--                      before taken_at metrics-server measured it
--   usage_samples      a view with the old table's columns (and sample_id), so every reader reads what it read; an INSTEAD OF trigger
--                      takes the old INSERT (the collector, the bench's generator, tests). Deletes go to
--                      usage_sample_rows (usage-repository's prune, the retention fold and snapshot rows).
-- usage_samples_workload (namespace, kind, workload, container, time) had no reader left; the time index stays.
-- A usage_sample_dims row no sample references any more is kept (a row per workload container and request change).

ALTER TABLE usage_samples RENAME TO usage_samples_0030;
DROP INDEX usage_samples_taken_at;
DROP INDEX usage_samples_workload;

CREATE TABLE usage_sample_dims (
  id             INTEGER PRIMARY KEY,
  cluster_id     INTEGER NOT NULL REFERENCES clusters(id),
  namespace      TEXT NOT NULL,
  workload_kind  TEXT NOT NULL,
  workload_name  TEXT NOT NULL,
  container      TEXT NOT NULL,
  nodepool       TEXT,
  req_cpu_m      INTEGER,
  req_memory_b   INTEGER,
  lim_cpu_m      INTEGER
);
CREATE INDEX usage_sample_dims_workload ON usage_sample_dims (namespace, workload_name, container);

CREATE TABLE usage_sample_rows (
  id                  INTEGER PRIMARY KEY,
  snapshot_id         INTEGER NOT NULL REFERENCES snapshots(id),
  taken_at            INTEGER NOT NULL,
  dims_id             INTEGER NOT NULL REFERENCES usage_sample_dims(id),
  pod                 TEXT,      -- NULL: the workload's name, '-' and pod_suffix
  pod_suffix          TEXT,
  node_id             INTEGER,   -- node_names.id; NULL: no node
  cpu_m               REAL NOT NULL,
  memory_b            INTEGER NOT NULL,
  measured_before_ms  INTEGER NOT NULL,  -- taken_at - measured_at
  window_ms           INTEGER NOT NULL
);
CREATE INDEX usage_sample_rows_taken_at ON usage_sample_rows (taken_at);

CREATE VIEW usage_samples AS
SELECT s.snapshot_id, s.taken_at, d.namespace, d.workload_kind, d.workload_name, d.container,
       COALESCE(s.pod, d.workload_name || '-' || s.pod_suffix) AS pod, n.name AS node_name, d.nodepool, s.cpu_m, s.memory_b, d.req_cpu_m,
       d.req_memory_b, s.taken_at - s.measured_before_ms AS measured_at, s.window_ms, d.lim_cpu_m, d.cluster_id, s.id AS sample_id
FROM usage_sample_rows s JOIN usage_sample_dims d ON d.id = s.dims_id LEFT JOIN node_names n ON n.id = s.node_id;

-- A DELETE through the view (the store bench's fill, tests): the sample's row. The product deletes from the table.
CREATE TRIGGER usage_samples_delete INSTEAD OF DELETE ON usage_samples
BEGIN
  DELETE FROM usage_sample_rows WHERE id = OLD.sample_id;
END;

-- The old INSERT: the container's usage_sample_dims row and the node's name (made when new), then the sample. The
-- cluster as the old default (1) when left out; a value the old NOT NULL refused fails the same way.
CREATE TRIGGER usage_samples_insert INSTEAD OF INSERT ON usage_samples
BEGIN
  SELECT RAISE(ABORT, 'NOT NULL constraint failed: usage_samples')
  WHERE NEW.snapshot_id IS NULL OR NEW.taken_at IS NULL OR NEW.namespace IS NULL OR NEW.workload_kind IS NULL OR NEW.workload_name IS NULL
    OR NEW.container IS NULL OR NEW.pod IS NULL OR NEW.cpu_m IS NULL OR NEW.memory_b IS NULL OR NEW.measured_at IS NULL OR NEW.window_ms IS NULL;
  INSERT INTO usage_sample_dims (cluster_id, namespace, workload_kind, workload_name, container, nodepool, req_cpu_m, req_memory_b, lim_cpu_m)
  SELECT COALESCE(NEW.cluster_id, 1), NEW.namespace, NEW.workload_kind, NEW.workload_name, NEW.container, NEW.nodepool, NEW.req_cpu_m,
         NEW.req_memory_b, NEW.lim_cpu_m
  WHERE NOT EXISTS (
    SELECT 1 FROM usage_sample_dims d WHERE d.namespace = NEW.namespace AND d.workload_name = NEW.workload_name AND d.container = NEW.container
      AND d.workload_kind = NEW.workload_kind AND d.cluster_id = COALESCE(NEW.cluster_id, 1) AND d.nodepool IS NEW.nodepool
      AND d.req_cpu_m IS NEW.req_cpu_m AND d.req_memory_b IS NEW.req_memory_b AND d.lim_cpu_m IS NEW.lim_cpu_m);
  INSERT OR IGNORE INTO node_names (name) SELECT NEW.node_name WHERE NEW.node_name IS NOT NULL;
  INSERT INTO usage_sample_rows (snapshot_id, taken_at, dims_id, pod, pod_suffix, node_id, cpu_m, memory_b, measured_before_ms, window_ms)
  VALUES (NEW.snapshot_id, NEW.taken_at,
    (SELECT d.id FROM usage_sample_dims d WHERE d.namespace = NEW.namespace AND d.workload_name = NEW.workload_name AND d.container = NEW.container
       AND d.workload_kind = NEW.workload_kind AND d.cluster_id = COALESCE(NEW.cluster_id, 1) AND d.nodepool IS NEW.nodepool
       AND d.req_cpu_m IS NEW.req_cpu_m AND d.req_memory_b IS NEW.req_memory_b AND d.lim_cpu_m IS NEW.lim_cpu_m
     ORDER BY d.id LIMIT 1),
    CASE WHEN length(NEW.pod) > length(NEW.workload_name) + 1 AND substr(NEW.pod, 1, length(NEW.workload_name) + 1) = NEW.workload_name || '-'
         THEN NULL ELSE NEW.pod END,
    CASE WHEN length(NEW.pod) > length(NEW.workload_name) + 1 AND substr(NEW.pod, 1, length(NEW.workload_name) + 1) = NEW.workload_name || '-'
         THEN substr(NEW.pod, length(NEW.workload_name) + 2) END,
    (SELECT id FROM node_names WHERE name = NEW.node_name),
    NEW.cpu_m, NEW.memory_b, NEW.taken_at - NEW.measured_at, NEW.window_ms);
END;

INSERT INTO usage_samples (snapshot_id, taken_at, namespace, workload_kind, workload_name, container, pod, node_name, nodepool, cpu_m, memory_b,
  req_cpu_m, req_memory_b, measured_at, window_ms, lim_cpu_m, cluster_id)
SELECT snapshot_id, taken_at, namespace, workload_kind, workload_name, container, pod, node_name, nodepool, cpu_m, memory_b, req_cpu_m,
  req_memory_b, measured_at, window_ms, lim_cpu_m, cluster_id
FROM usage_samples_0030 ORDER BY rowid;
DROP TABLE usage_samples_0030;
