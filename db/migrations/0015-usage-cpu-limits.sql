-- CPU limits beside the requests in usage (issue 15): a container whose CPU p95 sits at or near its limit is being
-- throttled by the CFS quota even when its request is lower, so right-sizing flags it. Samples and hourly rollups
-- written before this migration read NULL (limit not known). Millicores; the largest limit seen in the hour.
ALTER TABLE usage_samples ADD COLUMN lim_cpu_m INTEGER;
ALTER TABLE usage_workload_hours ADD COLUMN lim_cpu_m INTEGER;
