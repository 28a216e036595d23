-- Retention with downsampling (issue 24). The collector folds the 5-minute snapshots older than the raw retention
-- (default 14 days) into one snapshot per UTC hour, kept with everything else for the retention (default 13 months;
-- older rows are deleted). db/repositories/retention-fold-repository.ts folds, one 5-minute snapshot per transaction,
-- in time order: the first snapshot taken in an hour becomes the hour's snapshot (moved to the hour's start), each
-- later one is folded into it and deleted. So a reader never sees an hour half folded: the hour's snapshot stands for
-- the time its folded snapshots stood for, the rest of the hour's snapshots for theirs. The rollups (0006, 0007) stay
-- as written: a range of whole hours reads the same figures before and after a fold.
--
-- A folded (hourly) snapshot is a snapshot like any other whose rows hold, for what range reads weigh by time, the
-- time-weighted means over its hour, and for what they sum per snapshot (usage), the sums over its hour:
--   snapshots: node_count, pod_count           time-weighted means (REAL)
--   snapshot_nodepools, snapshot_namespaces    time-weighted means over the hour's snapshots (a key absent counts 0)
--   snapshot_nodes                             time-weighted means over the time the node was there (fold_ms)
--   usage_snapshots, usage_namespaces,         sums over the hour's snapshots (fold_snapshots of them)
--   usage_nodepools
--   usage_nodes, usage_samples                 not kept: node usage stays per NodePool (usage_nodepools), container
--                                              usage per workload-hour (usage_workload_hours)

-- NULL: a snapshot as taken (it stands for the time to the next one, at most 15 minutes). Else an hourly snapshot at
-- its hour's start: the time (ms) its folded snapshots stood for, and how many were taken in the hour.
ALTER TABLE snapshots ADD COLUMN fold_ms INTEGER;
ALTER TABLE snapshots ADD COLUMN fold_snapshots INTEGER;
-- The fold looks for the oldest snapshots as taken; the status for the span of the hourly ones.
CREATE INDEX snapshots_raw ON snapshots(taken_at) WHERE fold_ms IS NULL;
CREATE INDEX snapshots_folded ON snapshots(taken_at) WHERE fold_ms IS NOT NULL;

-- Per node of an hourly snapshot: the time (ms) of the hour the node stood for, in how many of its snapshots.
ALTER TABLE snapshot_nodes ADD COLUMN fold_ms INTEGER;
ALTER TABLE snapshot_nodes ADD COLUMN fold_snapshots INTEGER;

-- Of an hourly snapshot: how many usage snapshots it sums, and how many of them had metrics-server's answer.
ALTER TABLE usage_snapshots ADD COLUMN fold_snapshots INTEGER;
ALTER TABLE usage_snapshots ADD COLUMN fold_available INTEGER;
ALTER TABLE usage_namespaces ADD COLUMN fold_snapshots INTEGER;
ALTER TABLE usage_nodepools ADD COLUMN fold_snapshots INTEGER;
-- The NodePool's allocatable summed over the same snapshots (a 5-minute row reads it from snapshot_nodepools): usage ÷
-- allocatable compares like with like however many of the hour's snapshots had usage.
ALTER TABLE usage_nodepools ADD COLUMN alloc_cpu_m REAL;
ALTER TABLE usage_nodepools ADD COLUMN alloc_memory_b REAL;
