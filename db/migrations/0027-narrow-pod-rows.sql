-- Narrow pod rows (issue 24: a 13-month store at the envelope within 4 GB). pods held, in every row, the pod's uid as
-- 36 characters (twice: the table and its primary-key index), its namespace, owner, team, requests and labels as text,
-- and its node's name (again in pods_node): about 280 bytes a pod with its indexes, 12 million pods in 13 months at
-- the envelope (3.1 GiB). What a workload's pods share is stored once; per pod only what is its own:
--   pod_dims   what a workload's pods share: namespace, owner, team, requests, do-not-disrupt and deletion-cost
--              annotations, labels, scheduling spec hash — one row per distinct combination (a Deployment's replicas
--              of one ReplicaSet share one; a StatefulSet's, whose labels name the pod, one each)
--   pod_rows   per pod: uid (16 bytes when it is a canonical lowercase UUID, as the API server writes it; the text
--              otherwise), its pod_dims row, its name (only the part after "<owner>-" when it starts so), its node
--              (node_names, migration 0026; NULL when unbound), first/last seen, phase and the instants of 0019
--   pods       a view with the old table's columns (and pod_id), so every reader reads what it read; INSTEAD OF
--              triggers take the old INSERT (bare-ingest, tests), UPDATE and DELETE. The collector's upsert writes
--              pod_rows directly (db/repositories/pod-rows.ts).
-- Column types are the old ones, so a value reads back as it was stored.

CREATE TABLE pod_dims (
  id                    INTEGER PRIMARY KEY,
  namespace             TEXT NOT NULL,
  owner_kind            TEXT,
  owner_name            TEXT,
  team                  TEXT,
  req_cpu_m             INTEGER NOT NULL,
  req_memory_b          INTEGER NOT NULL,
  req_gpu               INTEGER NOT NULL,
  do_not_disrupt        INTEGER NOT NULL,
  do_not_disrupt_value  TEXT,
  deletion_cost         TEXT,
  labels_json           TEXT NOT NULL,
  spec_hash             TEXT
);
CREATE INDEX pod_dims_owner ON pod_dims (namespace, owner_name);
-- Retention finds pod specs no pod references any more by this (and pod_dims no pod row references by pod_rows_dims).
CREATE INDEX pod_dims_spec_hash ON pod_dims (spec_hash) WHERE spec_hash IS NOT NULL;

CREATE TABLE pod_rows (
  id            INTEGER PRIMARY KEY,
  uid           BLOB NOT NULL UNIQUE,  -- BLOB affinity: a text uid is kept as text
  dims_id       INTEGER NOT NULL,
  name          TEXT,             -- NULL: the owner's name, '-' and name_suffix
  name_suffix   TEXT,
  node_id       INTEGER,          -- node_names.id
  created_at    INTEGER NOT NULL,
  first_seen    INTEGER NOT NULL,
  last_seen     INTEGER NOT NULL,
  phase         TEXT,
  finished_at   INTEGER,
  scheduled_at  INTEGER,
  started_at    INTEGER,
  volumes_json  TEXT
);
CREATE INDEX pod_rows_node ON pod_rows (node_id);
CREATE INDEX pod_rows_dims ON pod_rows (dims_id);
-- Pods seen pending before they were bound (0019's pods_bound_late).
CREATE INDEX pod_rows_bound_late ON pod_rows (scheduled_at) WHERE scheduled_at IS NOT NULL AND scheduled_at > first_seen;

-- The old rows: node names first (one row a name), then what pods share, then the pods in their old order.
INSERT OR IGNORE INTO node_names (name) SELECT DISTINCT node_name FROM pods WHERE node_name IS NOT NULL ORDER BY node_name;

-- DISTINCT takes NULLs as equal: one row per distinct combination.
INSERT INTO pod_dims (namespace, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, do_not_disrupt_value,
  deletion_cost, labels_json, spec_hash)
SELECT DISTINCT namespace, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, do_not_disrupt_value, deletion_cost,
  labels_json, spec_hash
FROM pods ORDER BY namespace, owner_name;

INSERT INTO pod_rows (id, uid, dims_id, name, name_suffix, node_id, created_at, first_seen, last_seen, phase, finished_at, scheduled_at,
  started_at, volumes_json)
SELECT p.rowid,
  CASE WHEN length(p.uid) = 36 AND lower(substr(hex(unhex(replace(p.uid, '-', ''))), 1, 8) || '-' || substr(hex(unhex(replace(p.uid, '-', ''))), 9, 4)
         || '-' || substr(hex(unhex(replace(p.uid, '-', ''))), 13, 4) || '-' || substr(hex(unhex(replace(p.uid, '-', ''))), 17, 4) || '-'
         || substr(hex(unhex(replace(p.uid, '-', ''))), 21, 12)) = p.uid
       THEN unhex(replace(p.uid, '-', '')) ELSE p.uid END,
  d.id,
  CASE WHEN p.owner_name IS NOT NULL AND length(p.name) > length(p.owner_name) + 1 AND substr(p.name, 1, length(p.owner_name) + 1) = p.owner_name || '-'
       THEN NULL ELSE p.name END,
  CASE WHEN p.owner_name IS NOT NULL AND length(p.name) > length(p.owner_name) + 1 AND substr(p.name, 1, length(p.owner_name) + 1) = p.owner_name || '-'
       THEN substr(p.name, length(p.owner_name) + 2) END,
  (SELECT nn.id FROM node_names nn WHERE nn.name = p.node_name),
  p.created_at, p.first_seen, p.last_seen, p.phase, p.finished_at, p.scheduled_at, p.started_at, p.volumes_json
FROM pods p JOIN pod_dims d ON d.namespace = p.namespace AND d.owner_kind IS p.owner_kind AND d.owner_name IS p.owner_name AND d.team IS p.team
  AND d.req_cpu_m = p.req_cpu_m AND d.req_memory_b = p.req_memory_b AND d.req_gpu = p.req_gpu AND d.do_not_disrupt = p.do_not_disrupt
  AND d.do_not_disrupt_value IS p.do_not_disrupt_value AND d.deletion_cost IS p.deletion_cost AND d.labels_json = p.labels_json
  AND d.spec_hash IS p.spec_hash
ORDER BY p.rowid;

DROP TABLE pods;

CREATE VIEW pods AS
SELECT
  CASE WHEN typeof(r.uid) = 'blob' THEN lower(substr(hex(r.uid), 1, 8) || '-' || substr(hex(r.uid), 9, 4) || '-' || substr(hex(r.uid), 13, 4) || '-'
         || substr(hex(r.uid), 17, 4) || '-' || substr(hex(r.uid), 21, 12)) ELSE r.uid END AS uid,
  d.namespace, COALESCE(r.name, d.owner_name || '-' || r.name_suffix) AS name, n.name AS node_name, d.owner_kind, d.owner_name, d.team,
  d.req_cpu_m, d.req_memory_b, d.req_gpu, d.do_not_disrupt, r.created_at, r.first_seen, r.last_seen, d.labels_json, r.phase, r.finished_at,
  r.scheduled_at, r.started_at, d.do_not_disrupt_value, d.deletion_cost, r.volumes_json, d.spec_hash, r.id AS pod_id, r.node_id
FROM pod_rows r JOIN pod_dims d ON d.id = r.dims_id LEFT JOIN node_names n ON n.id = r.node_id;

-- The old INSERT: the node's name and the pod's pod_dims row (each made when new), then its row (a uid already stored
-- fails as the old primary key did). Defaults as the old table's.
CREATE TRIGGER pods_insert INSTEAD OF INSERT ON pods
BEGIN
  INSERT OR IGNORE INTO node_names (name) SELECT NEW.node_name WHERE NEW.node_name IS NOT NULL;
  INSERT INTO pod_dims (namespace, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, do_not_disrupt_value,
    deletion_cost, labels_json, spec_hash)
  SELECT NEW.namespace, NEW.owner_kind, NEW.owner_name, NEW.team, NEW.req_cpu_m, NEW.req_memory_b, COALESCE(NEW.req_gpu, 0),
    COALESCE(NEW.do_not_disrupt, 0), NEW.do_not_disrupt_value, NEW.deletion_cost, COALESCE(NEW.labels_json, '{}'), NEW.spec_hash
  WHERE NOT EXISTS (
    SELECT 1 FROM pod_dims d WHERE d.namespace = NEW.namespace AND d.owner_kind IS NEW.owner_kind AND d.owner_name IS NEW.owner_name
      AND d.team IS NEW.team AND d.req_cpu_m = NEW.req_cpu_m AND d.req_memory_b = NEW.req_memory_b AND d.req_gpu = COALESCE(NEW.req_gpu, 0)
      AND d.do_not_disrupt = COALESCE(NEW.do_not_disrupt, 0) AND d.do_not_disrupt_value IS NEW.do_not_disrupt_value
      AND d.deletion_cost IS NEW.deletion_cost AND d.labels_json = COALESCE(NEW.labels_json, '{}') AND d.spec_hash IS NEW.spec_hash);
  INSERT INTO pod_rows (uid, dims_id, name, name_suffix, node_id, created_at, first_seen, last_seen, phase, finished_at, scheduled_at, started_at,
    volumes_json)
  SELECT
    CASE WHEN length(NEW.uid) = 36 AND lower(substr(hex(unhex(replace(NEW.uid, '-', ''))), 1, 8) || '-'
           || substr(hex(unhex(replace(NEW.uid, '-', ''))), 9, 4) || '-' || substr(hex(unhex(replace(NEW.uid, '-', ''))), 13, 4) || '-'
           || substr(hex(unhex(replace(NEW.uid, '-', ''))), 17, 4) || '-' || substr(hex(unhex(replace(NEW.uid, '-', ''))), 21, 12)) = NEW.uid
         THEN unhex(replace(NEW.uid, '-', '')) ELSE NEW.uid END,
    (SELECT d.id FROM pod_dims d WHERE d.namespace = NEW.namespace AND d.owner_kind IS NEW.owner_kind AND d.owner_name IS NEW.owner_name
      AND d.team IS NEW.team AND d.req_cpu_m = NEW.req_cpu_m AND d.req_memory_b = NEW.req_memory_b AND d.req_gpu = COALESCE(NEW.req_gpu, 0)
      AND d.do_not_disrupt = COALESCE(NEW.do_not_disrupt, 0) AND d.do_not_disrupt_value IS NEW.do_not_disrupt_value
      AND d.deletion_cost IS NEW.deletion_cost AND d.labels_json = COALESCE(NEW.labels_json, '{}') AND d.spec_hash IS NEW.spec_hash
     ORDER BY d.id LIMIT 1),
    CASE WHEN x.suffix THEN NULL ELSE NEW.name END,
    CASE WHEN x.suffix THEN substr(NEW.name, length(NEW.owner_name) + 2) END,
    (SELECT id FROM node_names WHERE name = NEW.node_name),
    NEW.created_at, NEW.first_seen, NEW.last_seen, NEW.phase, NEW.finished_at, NEW.scheduled_at, NEW.started_at, NEW.volumes_json
  FROM (SELECT COALESCE(NEW.owner_name IS NOT NULL AND length(NEW.name) > length(NEW.owner_name) + 1
          AND substr(NEW.name, 1, length(NEW.owner_name) + 1) = NEW.owner_name || '-', 0) AS suffix) x;
END;

CREATE TRIGGER pods_delete INSTEAD OF DELETE ON pods
BEGIN
  DELETE FROM pod_rows WHERE id = OLD.pod_id;
END;

-- An UPDATE of any column: the row goes and comes back through the INSERT (the newest id), then takes its id back (the
-- retention sweep's order).
CREATE TRIGGER pods_update INSTEAD OF UPDATE ON pods
BEGIN
  DELETE FROM pod_rows WHERE id = OLD.pod_id;
  INSERT INTO pods (uid, namespace, name, node_name, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, created_at,
    first_seen, last_seen, labels_json, phase, finished_at, scheduled_at, started_at, do_not_disrupt_value, deletion_cost, volumes_json, spec_hash)
  VALUES (NEW.uid, NEW.namespace, NEW.name, NEW.node_name, NEW.owner_kind, NEW.owner_name, NEW.team, NEW.req_cpu_m, NEW.req_memory_b, NEW.req_gpu,
    NEW.do_not_disrupt, NEW.created_at, NEW.first_seen, NEW.last_seen, NEW.labels_json, NEW.phase, NEW.finished_at, NEW.scheduled_at,
    NEW.started_at, NEW.do_not_disrupt_value, NEW.deletion_cost, NEW.volumes_json, NEW.spec_hash);
  UPDATE pod_rows SET id = OLD.pod_id WHERE id = (SELECT MAX(id) FROM pod_rows);
END;
