-- Per-instance Cost Explorer lines (group_by RESOURCE_ID) join NodeClaims by instance id (nodes already have this index).
CREATE INDEX IF NOT EXISTS nodeclaims_instance_id ON nodeclaims(instance_id);
