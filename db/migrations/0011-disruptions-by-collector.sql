-- Disruptions are kept current by the writer, not by the reader: the collector (collect, collect --watch, the demo's
-- seeding) rebuilds what changed in the same transaction as the snapshot and events it wrote
-- (db/repositories/kube-repository.ts -> disruptions-repository.ts refresh()), so `serve` opens the file read-only
-- and a GET never takes a write lock. The triggers below still note the earliest time whose disruptions may have
-- changed; the writer rebuilds from a little before it before it commits.
--
-- The builder (core/karpenter/disruptions.ts) reads more of what the cluster shows than 0009's: the events of every
-- release (Deprovisioning* of v0.3x, TerminatingOnInterruption and the interruption warnings of the AWS provider),
-- NodeClaims created at a disruption decision, the time of a NodeClaim's DisruptionReason condition and its
-- expireAfter. So the triggers are replaced, the NodeClaims keep two more fields, and the table is rebuilt whole
-- once, by the first writer that opens the file (db/open-db.ts).

ALTER TABLE nodeclaims ADD COLUMN disruption_at INTEGER;  -- lastTransitionTime of its DisruptionReason condition (epoch ms)
ALTER TABLE nodeclaims ADD COLUMN expire_after TEXT;      -- spec.expireAfter as written ("720h", "Never"); NULL unknown
CREATE INDEX IF NOT EXISTS nodeclaims_created_at ON nodeclaims(created_at);

DROP TRIGGER IF EXISTS disruptions_dirty_event_insert;
DROP TRIGGER IF EXISTS disruptions_dirty_event_update;
DROP TRIGGER IF EXISTS disruptions_dirty_event_delete;
DROP TRIGGER IF EXISTS disruptions_dirty_node_insert;
DROP TRIGGER IF EXISTS disruptions_dirty_node_update;
DROP TRIGGER IF EXISTS disruptions_dirty_nodeclaim_insert;
DROP TRIGGER IF EXISTS disruptions_dirty_nodeclaim_update;
DROP TRIGGER IF EXISTS disruptions_dirty_nodeclaim_gone;

-- The reasons are core/karpenter/events.ts DISRUPTION_EVENT_REASONS (a test keeps the two lists equal).
CREATE TRIGGER disruptions_dirty_event_insert AFTER INSERT ON events
WHEN NEW.reason IN ('DisruptionTerminating', 'DeprovisioningTerminating', 'DisruptionLaunching', 'DeprovisioningLaunching',
  'DisruptionBlocked', 'DeprovisioningBlocked', 'TerminatingOnInterruption', 'SpotInterrupted',
  'CapacityReservationInstanceInterrupted', 'InstanceStopping', 'InstanceTerminating', 'InstanceUnhealthy')
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

-- A new NodeClaim may be a replacement created at a decision: the disruptions around its creation, and those of the
-- events naming it.
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

-- Gone, or marked for disruption (the DisruptionReason condition and its time), or given an expireAfter: the
-- disruption at its deletion, and the decision its condition dates. (9e15 stands for "no time": a change that dates
-- nothing leaves the table as clean as it was.)
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

-- The row a reset may have removed, and everything rebuilt once by the first writer.
INSERT OR IGNORE INTO disruptions_state (id, dirty_from_ms) VALUES (1, 0);
UPDATE disruptions_state SET dirty_from_ms = 0 WHERE id = 1;
