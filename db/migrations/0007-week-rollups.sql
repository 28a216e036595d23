-- Week rollups beside the hour and day ones of 0006 (span_ms 604800000; 7-day buckets aligned on the epoch, as the
-- 7-day chart buckets are), so a 30-day range reads about 3 week rows and a few day rows per key instead of 30 day
-- rows. A week is the sum of its days: filled here from the day rows; db/repositories/range-rollups.ts keeps them.

INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_taken, snapshots_weighted, hours)
SELECT 604800000, (bucket_ms / 604800000) * 604800000, SUM(snapshots_taken), SUM(snapshots_weighted), TOTAL(hours)
FROM rollup_spans WHERE span_ms = 86400000 GROUP BY 2;

INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m, snap_alloc_memory_b,
  snap_req_memory_b, snap_usd_per_hour, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours, alloc_memory_b_hours, req_memory_b_hours,
  alloc_pods_hours, req_pods_hours, alloc_gpu_hours, req_gpu_hours, cw_cpu_usd, cw_memory_usd, cw_pods_usd, cw_gpu_usd, gpu_nodes_usd,
  on_demand_usd, on_demand_unknown_usd)
SELECT 604800000, (bucket_ms / 604800000) * 604800000, nodepool, capacity_type, TOTAL(snap_nodes), TOTAL(snap_alloc_cpu_m), TOTAL(snap_req_cpu_m),
  TOTAL(snap_alloc_memory_b), TOTAL(snap_req_memory_b), TOTAL(snap_usd_per_hour), TOTAL(node_hours), TOTAL(cost_usd), TOTAL(alloc_cpu_m_hours),
  TOTAL(req_cpu_m_hours), TOTAL(alloc_memory_b_hours), TOTAL(req_memory_b_hours), TOTAL(alloc_pods_hours), TOTAL(req_pods_hours),
  TOTAL(alloc_gpu_hours), TOTAL(req_gpu_hours), TOTAL(cw_cpu_usd), TOTAL(cw_memory_usd), TOTAL(cw_pods_usd), TOTAL(cw_gpu_usd),
  TOTAL(gpu_nodes_usd), TOTAL(on_demand_usd), TOTAL(on_demand_unknown_usd)
FROM rollup_nodepools WHERE span_ms = 86400000 GROUP BY 2, 3, 4;

-- With a single MAX() aggregate, SQLite takes the bare column `team` from the row holding the maximum.
INSERT INTO rollup_namespaces (span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd,
  memory_share_usd, aws_split_usd, legacy_usd)
SELECT 604800000, (bucket_ms / 604800000) * 604800000, namespace, nodepool, team, MAX(newest_at), TOTAL(request_share_usd),
  TOTAL(cpu_share_usd), TOTAL(memory_share_usd), TOTAL(aws_split_usd), TOTAL(legacy_usd)
FROM rollup_namespaces WHERE span_ms = 86400000 GROUP BY 2, 3, 4;
