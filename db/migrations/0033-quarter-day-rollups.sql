-- Quarter-day rollups (issue 24: every ranged route as fast at 90 days as at 1 day): a 90-day chart takes 6-hour
-- (efficiency) or 12-hour (consolidation timeline) buckets, in which UTC days do not nest, so it read every hour
-- rollup of the range: 2,160 hours x each NodePool and capacity type. Beside the hour, day and week rows of 0006 and
-- 0007, rows of span_ms 21600000 (6 hours, buckets at 00:00, 06:00, 12:00 and 18:00 UTC): the same sums over a
-- quarter of a day, a sixth of the rows. A quarter is the sum of its hours: filled here from the hour rows (as 0007
-- filled weeks from days); db/repositories/range-rollups.ts keeps them with every snapshot written and reads them
-- where a bucket is a multiple of 6 hours and not of a day (range-pieces.ts).

INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_taken, snapshots_weighted, hours, cluster_id)
SELECT 21600000, (bucket_ms / 21600000) * 21600000, SUM(snapshots_taken), SUM(snapshots_weighted), TOTAL(hours), cluster_id
FROM rollup_spans WHERE span_ms = 3600000 GROUP BY 2, cluster_id;

INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m, snap_alloc_memory_b,
  snap_req_memory_b, snap_usd_per_hour, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours, alloc_memory_b_hours, req_memory_b_hours,
  alloc_pods_hours, req_pods_hours, alloc_gpu_hours, req_gpu_hours, cw_cpu_usd, cw_memory_usd, cw_pods_usd, cw_gpu_usd, gpu_nodes_usd,
  on_demand_usd, on_demand_unknown_usd, rp_requested_usd, rp_cpu_usd, rp_gpu_usd, cluster_id)
SELECT 21600000, (bucket_ms / 21600000) * 21600000, nodepool, capacity_type, TOTAL(snap_nodes), TOTAL(snap_alloc_cpu_m), TOTAL(snap_req_cpu_m),
  TOTAL(snap_alloc_memory_b), TOTAL(snap_req_memory_b), TOTAL(snap_usd_per_hour), TOTAL(node_hours), TOTAL(cost_usd), TOTAL(alloc_cpu_m_hours),
  TOTAL(req_cpu_m_hours), TOTAL(alloc_memory_b_hours), TOTAL(req_memory_b_hours), TOTAL(alloc_pods_hours), TOTAL(req_pods_hours),
  TOTAL(alloc_gpu_hours), TOTAL(req_gpu_hours), TOTAL(cw_cpu_usd), TOTAL(cw_memory_usd), TOTAL(cw_pods_usd), TOTAL(cw_gpu_usd),
  TOTAL(gpu_nodes_usd), TOTAL(on_demand_usd), TOTAL(on_demand_unknown_usd), TOTAL(rp_requested_usd), TOTAL(rp_cpu_usd), TOTAL(rp_gpu_usd),
  cluster_id
FROM rollup_nodepools WHERE span_ms = 3600000 GROUP BY 2, 3, 4, cluster_id;

-- With a single MAX() aggregate, SQLite takes the bare column `team` from the row holding the maximum: the team of the
-- newest snapshot adding to the quarter, as the writer keeps it.
INSERT INTO rollup_namespaces (span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd,
  memory_share_usd, aws_split_usd, legacy_usd, aws_split_cost_usd, aws_unused_cost_usd, opencost_usd, legacy_methods_usd,
  pod_hours, usage_pod_hours, cluster_id)
SELECT 21600000, (bucket_ms / 21600000) * 21600000, namespace, nodepool, team, MAX(newest_at), TOTAL(request_share_usd),
  TOTAL(cpu_share_usd), TOTAL(memory_share_usd), TOTAL(aws_split_usd), TOTAL(legacy_usd), TOTAL(aws_split_cost_usd),
  TOTAL(aws_unused_cost_usd), TOTAL(opencost_usd), TOTAL(legacy_methods_usd), TOTAL(pod_hours), TOTAL(usage_pod_hours), cluster_id
FROM rollup_namespaces WHERE span_ms = 3600000 GROUP BY 2, 3, 4, cluster_id;

-- The consolidation timeline's markers over the same quarter days: the kept disruptions (not blocked attempts) counted
-- per quarter x cluster x NodePool x reason, with the first and last time, so 90 days of 12-hour marker buckets read
-- 360 quarters per key instead of every disruption (~90,000 at the envelope, 0032's index alone: ~30 ms). Recounted
-- by disruptions-repository.ts from where refresh() rebuilds; the first disruption of a group (by time, then seq) is
-- still looked up in disruptions by its first time.
CREATE TABLE disruption_quarters (
  bucket_ms    INTEGER NOT NULL,   -- the quarter day's start, epoch ms UTC (a multiple of 21600000)
  cluster_id   INTEGER NOT NULL REFERENCES clusters(id),
  nodepool     TEXT NOT NULL,
  reason       TEXT NOT NULL,
  disruptions  INTEGER NOT NULL,
  first_at     INTEGER NOT NULL,
  last_at      INTEGER NOT NULL,
  PRIMARY KEY (bucket_ms, cluster_id, nodepool, reason)
) WITHOUT ROWID;

INSERT INTO disruption_quarters (bucket_ms, cluster_id, nodepool, reason, disruptions, first_at, last_at)
SELECT (CAST(at AS INTEGER) / 21600000) * 21600000, cluster_id, nodepool, reason, COUNT(*), MIN(at), MAX(at)
FROM disruptions WHERE blocked = 0 GROUP BY 1, 2, 3, 4;
