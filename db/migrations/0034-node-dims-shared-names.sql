-- Names held by more than one node_dims row (issue 24: `GET /api/nodes/changes` at 90 days within 2x of 1 day at the
-- envelope). A node is matched between two snapshots by name (db/repositories/node-aggregates-repository.ts): a row of
-- one snapshot whose node_dims row the other does not hold is gone, unless the other holds its name under another
-- node_dims row (the node relabelled, or its allocatable changed). That can only be a name with two node_dims rows or
-- more, and few names have them; so these rows' ids are kept here, and a changed node's name is read only for them.
-- Before, the name of every changed node was read and matched: at 5,000 nodes every node changes between snapshots
-- 30 or 90 days apart, 11,000 names a request against 2,000 at 1 day.
-- Kept by triggers, so every writer keeps it (the collector's snapshot_nodes view, the retention fold's new rows, the
-- bulk generator): when a name gets a second row, all its rows' ids; nothing deletes node_dims rows (an id left here
-- is only read by name, so one too many costs a lookup, never a wrong answer).
CREATE TABLE node_dims_shared_names (
  node_id  INTEGER PRIMARY KEY
);

-- Through node_dims_name: one index walk over the 400,000 rows at the envelope, no table row read but the few shared.
INSERT INTO node_dims_shared_names (node_id)
SELECT d.id
FROM (SELECT node_name FROM node_dims GROUP BY node_name HAVING COUNT(*) > 1) s
  JOIN node_dims d ON d.node_name = s.node_name;

CREATE TRIGGER node_dims_shared_names_insert AFTER INSERT ON node_dims
WHEN EXISTS (SELECT 1 FROM node_dims d WHERE d.node_name = NEW.node_name AND d.id <> NEW.id)
BEGIN
  INSERT OR IGNORE INTO node_dims_shared_names (node_id) SELECT d.id FROM node_dims d WHERE d.node_name = NEW.node_name;
END;

CREATE TRIGGER node_dims_shared_names_rename AFTER UPDATE OF node_name ON node_dims
WHEN EXISTS (SELECT 1 FROM node_dims d WHERE d.node_name = NEW.node_name AND d.id <> NEW.id)
BEGIN
  INSERT OR IGNORE INTO node_dims_shared_names (node_id) SELECT d.id FROM node_dims d WHERE d.node_name = NEW.node_name;
END;
