-- Disruptions kept, not rebuilt per request. They are derived from events, nodes and nodeclaims by the pure
-- server/analytics/disruptions.ts; a month of a churning 1,000-node cluster (12k events) took ~150 ms to rebuild on
-- every /api/consolidation request (npm run bench, store). Writers do not know about this table: the triggers below
-- record the earliest time whose disruptions may have changed (disruptions_state.dirty_from_ms), and the reader
-- rebuilds from a little before it, in one write transaction, before it answers (db/repositories/disruptions-repository.ts).
-- The node's deletion time is not kept: it is joined when read, as it comes later than the events.

CREATE TABLE disruptions (
  id                TEXT NOT NULL,              -- `<atMs>-<nodeclaim or node name>` (not unique: a blocked attempt can share it)
  at                INTEGER NOT NULL,
  node_name         TEXT,
  nodeclaim         TEXT,
  nodepool          TEXT NOT NULL,
  reason            TEXT NOT NULL,
  action            TEXT,
  source            TEXT NOT NULL,              -- event | nodeclaim
  spot_interrupted  INTEGER NOT NULL,
  instance_type     TEXT,
  capacity_type     TEXT,
  replacements_json TEXT NOT NULL,
  message           TEXT NOT NULL,
  blocked           INTEGER NOT NULL,
  seq               INTEGER NOT NULL            -- order among disruptions at the same time, as the analytics sorted them
);
CREATE INDEX disruptions_at ON disruptions(at, seq);

CREATE TABLE disruptions_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  dirty_from_ms  INTEGER                        -- NULL: the table is up to date
);
-- Existing databases: build everything on the first read.
INSERT INTO disruptions_state (id, dirty_from_ms) VALUES (1, 0);

-- Events by the object they name, for the triggers on nodes and nodeclaims.
CREATE INDEX IF NOT EXISTS events_name ON events(name, at);

CREATE TRIGGER disruptions_dirty_event_insert AFTER INSERT ON events
WHEN NEW.reason IN ('DisruptionTerminating', 'DisruptionLaunching', 'SpotInterrupted', 'DisruptionBlocked')
BEGIN
  UPDATE disruptions_state SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, NEW.at), NEW.at) WHERE id = 1;
END;

CREATE TRIGGER disruptions_dirty_event_update AFTER UPDATE ON events
WHEN (NEW.at IS NOT OLD.at OR NEW.message IS NOT OLD.message OR NEW.reason IS NOT OLD.reason OR NEW.name IS NOT OLD.name)
BEGIN
  UPDATE disruptions_state SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, NEW.at), NEW.at, OLD.at) WHERE id = 1;
END;

CREATE TRIGGER disruptions_dirty_event_delete AFTER DELETE ON events
BEGIN
  UPDATE disruptions_state SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, OLD.at), OLD.at) WHERE id = 1;
END;

-- A node or NodeClaim seen after the events that name it gives them their NodePool, instance type, node or claim.
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
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, 9e15), (SELECT MIN(at) FROM events WHERE name IN (NEW.name, NEW.node_name)))
  WHERE id = 1 AND EXISTS (SELECT 1 FROM events WHERE name IN (NEW.name, NEW.node_name));
END;

CREATE TRIGGER disruptions_dirty_nodeclaim_update AFTER UPDATE OF node_name, nodepool, instance_type, capacity_type ON nodeclaims
WHEN (NEW.node_name IS NOT OLD.node_name OR NEW.nodepool IS NOT OLD.nodepool OR NEW.instance_type IS NOT OLD.instance_type
      OR NEW.capacity_type IS NOT OLD.capacity_type)
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, 9e15), (SELECT MIN(at) FROM events WHERE name IN (NEW.name, NEW.node_name, OLD.node_name)))
  WHERE id = 1 AND EXISTS (SELECT 1 FROM events WHERE name IN (NEW.name, NEW.node_name, OLD.node_name));
END;

-- A NodeClaim gone with a disruption reason and no event is a disruption of its own, at its deletion.
CREATE TRIGGER disruptions_dirty_nodeclaim_gone AFTER UPDATE OF deleted_at, disruption_reason ON nodeclaims
WHEN (NEW.deleted_at IS NOT OLD.deleted_at OR NEW.disruption_reason IS NOT OLD.disruption_reason)
  AND COALESCE(NEW.deleted_at, OLD.deleted_at) IS NOT NULL
BEGIN
  UPDATE disruptions_state
  SET dirty_from_ms = MIN(COALESCE(dirty_from_ms, COALESCE(NEW.deleted_at, OLD.deleted_at)),
                          COALESCE(NEW.deleted_at, OLD.deleted_at), COALESCE(OLD.deleted_at, NEW.deleted_at))
  WHERE id = 1;
END;
