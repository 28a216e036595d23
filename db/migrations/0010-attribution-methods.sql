-- Team attribution by the three methods side by side (core/attribution/): request share (unchanged), AWS split cost
-- allocation data for EKS as AWS defines it, and the OpenCost specification's workload cost.
--
-- The AWS split of migration 0003 (snapshot_namespaces.aws_split_usd_per_hour, rollup_namespaces.aws_split_usd) divided
-- the price against Kubernetes allocatable and handed the unrequested part to the pods: that is not AWS's method (AWS
-- divides by the instance type's capacity, weighs vCPU:GB 9:1, charges max(used, reserved) and spreads the unused part
-- by the split usage ratio). Those two columns are no longer written or read; new columns carry the new meaning.

-- Per namespace x NodePool per snapshot, USD/h: AWS's split cost and the unused cost it hands the namespace's pods,
-- the OpenCost workload cost, and how many of the pods had usage to feed max(request, usage) (0: requests only).
-- NULL in rows written before this migration (their pods' requests per node were not kept: no backfill possible).
ALTER TABLE snapshot_namespaces ADD COLUMN aws_split_cost_usd_per_hour REAL;
ALTER TABLE snapshot_namespaces ADD COLUMN aws_unused_cost_usd_per_hour REAL;
ALTER TABLE snapshot_namespaces ADD COLUMN opencost_usd_per_hour REAL;
ALTER TABLE snapshot_namespaces ADD COLUMN usage_pods INTEGER;

-- Their hours-weighted sums in the hour, day and week rollups (db/repositories/range-rollups.ts keeps them), and
-- legacy_methods_usd: Σ the 50/50 request-share cost × hours of rows without the new figures, which the two methods
-- fall back to (and say so). pod_hours / usage_pod_hours: Σ pods × hours and Σ pods with usage × hours, for saying
-- how much of the range usage fed.
ALTER TABLE rollup_namespaces ADD COLUMN aws_split_cost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_namespaces ADD COLUMN aws_unused_cost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_namespaces ADD COLUMN opencost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_namespaces ADD COLUMN legacy_methods_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_namespaces ADD COLUMN pod_hours REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_namespaces ADD COLUMN usage_pod_hours REAL NOT NULL DEFAULT 0;

-- Every rollup row so far sums snapshots without the new figures: all of its request-share cost is legacy. (Its
-- pod_hours stay 0: no usage was ever collected for it, which is all those two columns are read for.)
UPDATE rollup_namespaces SET legacy_methods_usd = request_share_usd;
