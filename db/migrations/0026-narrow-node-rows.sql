-- Narrow node rows (issue 24: a 13-month store at the envelope within 4 GB). snapshot_nodes held, in every row of
-- every snapshot, the node's name, NodePool, capacity type, instance type, allocatable and price source as text and
-- integers (143 bytes a row at the envelope fill, 66 million rows in 13 months); usage_nodes the node's name in a
-- rowid table with a second b-tree for its key (108 bytes a row). What a node is changes seldom; what it holds changes
-- every snapshot. So:
--   node_dims            what a node is: one row per distinct (name, NodePool, capacity type, instance type,
--                        allocatable, price source, currency), so a node has one row, a second only when one of these
--                        changes (an hourly row's allocatable is the hour's mean: it changes only when the node's did)
--   snapshot_node_rows   per snapshot and node_dims row: requests, price and the fold's weights (WITHOUT ROWID)
--   snapshot_nodes       a view with the old table's columns (and node_id), so every reader reads what it read; an
--                        INSTEAD OF trigger takes the old INSERT (kube-repository, bare-ingest, tests), others DELETE
--                        and UPDATE
--   node_names           a node name once; usage_node_rows per snapshot and name (WITHOUT ROWID), usage_nodes a view
-- Column types are the old ones, so a value reads back as it was stored (an integral mean as an integer).
-- db/repositories/retention-fold-repository.ts folds snapshot_node_rows directly.

CREATE TABLE node_dims (
  id              INTEGER PRIMARY KEY,
  node_name       TEXT NOT NULL,
  nodepool        TEXT,
  capacity_type   TEXT NOT NULL,
  instance_type   TEXT NOT NULL,
  alloc_cpu_m     INTEGER NOT NULL,
  alloc_memory_b  INTEGER NOT NULL,
  alloc_pods      INTEGER NOT NULL,
  alloc_gpu       INTEGER NOT NULL,
  price_source    TEXT,
  price_currency  TEXT NOT NULL
);
CREATE INDEX node_dims_name ON node_dims (node_name);

CREATE TABLE snapshot_node_rows (
  snapshot_id     INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  node_id         INTEGER NOT NULL,
  req_cpu_m       INTEGER NOT NULL,
  req_memory_b    INTEGER NOT NULL,
  req_pods        INTEGER NOT NULL,
  req_gpu         INTEGER NOT NULL,
  usd_per_hour    REAL,
  fold_ms         INTEGER,
  fold_snapshots  INTEGER,
  PRIMARY KEY (snapshot_id, node_id)
) WITHOUT ROWID;

-- DISTINCT takes NULLs as equal: one row per node as it was.
INSERT INTO node_dims (node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, price_source, price_currency)
SELECT DISTINCT node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, price_source, price_currency
FROM snapshot_nodes ORDER BY node_name;

INSERT INTO snapshot_node_rows (snapshot_id, node_id, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, fold_ms, fold_snapshots)
SELECT s.snapshot_id, d.id, s.req_cpu_m, s.req_memory_b, s.req_pods, s.req_gpu, s.usd_per_hour, s.fold_ms, s.fold_snapshots
FROM snapshot_nodes s JOIN node_dims d ON d.node_name = s.node_name AND d.nodepool IS s.nodepool AND d.capacity_type = s.capacity_type
  AND d.instance_type = s.instance_type AND d.alloc_cpu_m = s.alloc_cpu_m AND d.alloc_memory_b = s.alloc_memory_b AND d.alloc_pods = s.alloc_pods
  AND d.alloc_gpu = s.alloc_gpu AND d.price_source IS s.price_source AND d.price_currency = s.price_currency
ORDER BY s.snapshot_id, d.id;

DROP TABLE snapshot_nodes;

CREATE VIEW snapshot_nodes AS
SELECT r.snapshot_id, d.node_name, d.nodepool, d.capacity_type, d.instance_type, d.alloc_cpu_m, d.alloc_memory_b, d.alloc_pods, d.alloc_gpu,
       r.req_cpu_m, r.req_memory_b, r.req_pods, r.req_gpu, r.usd_per_hour, d.price_source, d.price_currency, r.fold_ms, r.fold_snapshots,
       r.node_id
FROM snapshot_node_rows r JOIN node_dims d ON d.id = r.node_id;

-- The old INSERT: the node's node_dims row (made when it is new), then its row. price_currency as the old default.
CREATE TRIGGER snapshot_nodes_insert INSTEAD OF INSERT ON snapshot_nodes
BEGIN
  INSERT INTO node_dims (node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, price_source, price_currency)
  SELECT NEW.node_name, NEW.nodepool, NEW.capacity_type, NEW.instance_type, NEW.alloc_cpu_m, NEW.alloc_memory_b, NEW.alloc_pods, NEW.alloc_gpu,
         NEW.price_source, COALESCE(NEW.price_currency, 'USD')
  WHERE NOT EXISTS (
    SELECT 1 FROM node_dims d WHERE d.node_name = NEW.node_name AND d.nodepool IS NEW.nodepool AND d.capacity_type = NEW.capacity_type
      AND d.instance_type = NEW.instance_type AND d.alloc_cpu_m = NEW.alloc_cpu_m AND d.alloc_memory_b = NEW.alloc_memory_b
      AND d.alloc_pods = NEW.alloc_pods AND d.alloc_gpu = NEW.alloc_gpu AND d.price_source IS NEW.price_source
      AND d.price_currency = COALESCE(NEW.price_currency, 'USD'));
  INSERT INTO snapshot_node_rows (snapshot_id, node_id, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, fold_ms, fold_snapshots)
  VALUES (NEW.snapshot_id, (
    SELECT d.id FROM node_dims d WHERE d.node_name = NEW.node_name AND d.nodepool IS NEW.nodepool AND d.capacity_type = NEW.capacity_type
      AND d.instance_type = NEW.instance_type AND d.alloc_cpu_m = NEW.alloc_cpu_m AND d.alloc_memory_b = NEW.alloc_memory_b
      AND d.alloc_pods = NEW.alloc_pods AND d.alloc_gpu = NEW.alloc_gpu AND d.price_source IS NEW.price_source
      AND d.price_currency = COALESCE(NEW.price_currency, 'USD')
    ORDER BY d.id LIMIT 1),
    NEW.req_cpu_m, NEW.req_memory_b, NEW.req_pods, NEW.req_gpu, NEW.usd_per_hour, NEW.fold_ms, NEW.fold_snapshots);
END;

CREATE TRIGGER snapshot_nodes_delete INSTEAD OF DELETE ON snapshot_nodes
BEGIN
  DELETE FROM snapshot_node_rows WHERE snapshot_id = OLD.snapshot_id AND node_id = OLD.node_id;
END;

-- An UPDATE of any column: the row goes and comes back through the INSERT (a changed node gets its node_dims row).
CREATE TRIGGER snapshot_nodes_update INSTEAD OF UPDATE ON snapshot_nodes
BEGIN
  DELETE FROM snapshot_node_rows WHERE snapshot_id = OLD.snapshot_id AND node_id = OLD.node_id;
  INSERT INTO snapshot_nodes (snapshot_id, node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu,
    req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, price_source, price_currency, fold_ms, fold_snapshots)
  VALUES (NEW.snapshot_id, NEW.node_name, NEW.nodepool, NEW.capacity_type, NEW.instance_type, NEW.alloc_cpu_m, NEW.alloc_memory_b, NEW.alloc_pods,
    NEW.alloc_gpu, NEW.req_cpu_m, NEW.req_memory_b, NEW.req_pods, NEW.req_gpu, NEW.usd_per_hour, NEW.price_source, NEW.price_currency,
    NEW.fold_ms, NEW.fold_snapshots);
END;

-- Node usage (kept as long as the 5-minute rows): the node's name once.
CREATE TABLE node_names (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE
);

CREATE TABLE usage_node_rows (
  snapshot_id  INTEGER NOT NULL REFERENCES snapshots(id),
  name_id      INTEGER NOT NULL,
  cpu_m        REAL NOT NULL,
  memory_b     INTEGER NOT NULL,
  measured_at  INTEGER NOT NULL,
  window_ms    INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, name_id)
) WITHOUT ROWID;

INSERT INTO node_names (name) SELECT DISTINCT node_name FROM usage_nodes ORDER BY node_name;
INSERT INTO usage_node_rows (snapshot_id, name_id, cpu_m, memory_b, measured_at, window_ms)
SELECT u.snapshot_id, n.id, u.cpu_m, u.memory_b, u.measured_at, u.window_ms
FROM usage_nodes u JOIN node_names n ON n.name = u.node_name ORDER BY u.snapshot_id, n.id;
DROP TABLE usage_nodes;

CREATE VIEW usage_nodes AS
SELECT u.snapshot_id, n.name AS node_name, u.cpu_m, u.memory_b, u.measured_at, u.window_ms, u.name_id
FROM usage_node_rows u JOIN node_names n ON n.id = u.name_id;

CREATE TRIGGER usage_nodes_insert INSTEAD OF INSERT ON usage_nodes
BEGIN
  INSERT OR IGNORE INTO node_names (name) VALUES (NEW.node_name);
  INSERT INTO usage_node_rows (snapshot_id, name_id, cpu_m, memory_b, measured_at, window_ms)
  VALUES (NEW.snapshot_id, (SELECT id FROM node_names WHERE name = NEW.node_name), NEW.cpu_m, NEW.memory_b, NEW.measured_at, NEW.window_ms);
END;

CREATE TRIGGER usage_nodes_delete INSTEAD OF DELETE ON usage_nodes
BEGIN
  DELETE FROM usage_node_rows WHERE snapshot_id = OLD.snapshot_id AND name_id = OLD.name_id;
END;
