/**
 * The SQL that gives every snapshot its weight in hours: the time until the next snapshot, capped (a
 * collector gap is not cost), clipped to [@fromMs, @toMs). Snapshots just outside the range are read so
 * LEAD sees the next one and the one before `from` can cover its start. The newest snapshot weighs 0.
 * Yields the CTE `w(id, taken_at, start_ms, hours)`; the statement adds its own SELECT.
 *
 * better-sqlite3 binds JS numbers as REAL, and REAL arithmetic does not floor: parameters are CAST.
 */

/** An interval between snapshots longer than this counts only this long (the reports estimate uses the same). */
export const INTERVAL_CAP_MS = 15 * 60_000;

export const WEIGHTED_SNAPSHOTS_CTE = `
  s AS (
    SELECT id, taken_at, LEAD(taken_at) OVER (ORDER BY taken_at) AS next_at
    FROM snapshots
    WHERE taken_at >= CAST(@fromMs AS INTEGER) - ${INTERVAL_CAP_MS} AND taken_at < CAST(@toMs AS INTEGER) + ${INTERVAL_CAP_MS}
  ),
  iv AS (
    SELECT id, taken_at, MAX(taken_at, CAST(@fromMs AS INTEGER)) AS start_ms,
           MIN(taken_at + MIN(COALESCE(next_at, taken_at) - taken_at, ${INTERVAL_CAP_MS}), CAST(@toMs AS INTEGER)) AS end_ms
    FROM s
  ),
  w AS (SELECT id, taken_at, start_ms, (end_ms - start_ms) / 3600000.0 AS hours FROM iv WHERE end_ms > start_ms)`;

/** Hours-weighted sums over snapshot_nodepools rows `p` joined to `w`, one column per quantity. */
export const POOL_SUM_COLUMNS = `
  TOTAL(w.hours * p.nodes) AS node_hours,
  TOTAL(w.hours * p.usd_per_hour) AS cost_usd,
  TOTAL(w.hours * p.alloc_cpu_m) AS alloc_cpu_m_hours,
  TOTAL(w.hours * p.req_cpu_m) AS req_cpu_m_hours,
  TOTAL(w.hours * p.alloc_memory_b) AS alloc_memory_b_hours,
  TOTAL(w.hours * p.req_memory_b) AS req_memory_b_hours,
  TOTAL(w.hours * p.alloc_pods) AS alloc_pods_hours,
  TOTAL(w.hours * p.req_pods) AS req_pods_hours,
  TOTAL(w.hours * p.alloc_gpu) AS alloc_gpu_hours,
  TOTAL(w.hours * p.req_gpu) AS req_gpu_hours,
  TOTAL(w.hours * p.cpu_eff_usd_per_hour) AS cw_cpu_usd,
  TOTAL(w.hours * p.memory_eff_usd_per_hour) AS cw_memory_usd,
  TOTAL(w.hours * p.pods_eff_usd_per_hour) AS cw_pods_usd,
  TOTAL(w.hours * p.gpu_eff_usd_per_hour) AS cw_gpu_usd,
  TOTAL(w.hours * p.gpu_nodes_usd_per_hour) AS gpu_nodes_usd,
  TOTAL(w.hours * p.on_demand_usd_per_hour) AS on_demand_usd,
  TOTAL(CASE WHEN p.on_demand_usd_per_hour IS NULL THEN w.hours * p.usd_per_hour ELSE 0 END) AS on_demand_unknown_usd`;
