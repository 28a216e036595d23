-- Spot price history is asked for every instance type the NodePools admit, in every zone the cluster names
-- (collectors/spot/sync.ts): how far each market's history is stored, so the next ask starts there (incremental,
-- across runs of `collect`) and a market EC2 has no price for is not asked again from scratch at every run.
-- asked_until: the EndTime of the last DescribeSpotPriceHistory answer stored for the market (epoch ms); zone '*'
-- when it was asked without a zone filter (no zone known).
CREATE TABLE spot_price_coverage (
  region         TEXT NOT NULL,
  instance_type  TEXT NOT NULL,
  zone           TEXT NOT NULL,
  asked_until    INTEGER NOT NULL,
  PRIMARY KEY (region, instance_type, zone)
) WITHOUT ROWID;

-- Markets stored before: their history is known at least up to their newest change (EC2 answers the price in effect
-- at StartTime, so starting there loses nothing).
INSERT INTO spot_price_coverage (region, instance_type, zone, asked_until)
SELECT region, instance_type, zone, MAX(effective_at) FROM prices WHERE kind = 'spot' GROUP BY region, instance_type, zone;

-- One weighting for idle (issue 21 item 7, core/cost-weights.ts): a node's price split into CPU, memory and GPU by
-- OpenCost's base prices (0.031611 a core-hour, 0.004237 a GiB-hour, 0.95 a GPU-hour) times its allocatable, instead
-- of 50/50. Per NodePool x capacity type per snapshot: Σ price × (w_cpu × cpu requested ÷ allocatable + w_memory ×
-- … + w_gpu × …) (the part of the price requests cover; idle is the rest), Σ price × w_cpu and Σ price × w_gpu (the
-- CPU and GPU parts: the rates per vCPU-hour and GPU-hour; memory's is the rest). The same hours-weighted in the
-- rollups. Filled here exactly from snapshot_nodes (each node's allocatable, requests and price are stored there).
ALTER TABLE snapshot_nodepools ADD COLUMN rp_requested_usd_per_hour REAL;
ALTER TABLE snapshot_nodepools ADD COLUMN rp_cpu_usd_per_hour REAL;
ALTER TABLE snapshot_nodepools ADD COLUMN rp_gpu_usd_per_hour REAL;
ALTER TABLE rollup_nodepools ADD COLUMN rp_requested_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_nodepools ADD COLUMN rp_cpu_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE rollup_nodepools ADD COLUMN rp_gpu_usd REAL NOT NULL DEFAULT 0;

CREATE TEMP TABLE rp_nodes AS
WITH n AS (
  SELECT snapshot_id, COALESCE(nodepool, '') AS nodepool, capacity_type, COALESCE(usd_per_hour, 0) AS price,
    alloc_cpu_m / 1000.0 * 0.031611 AS c, alloc_memory_b / 1073741824.0 * 0.004237 AS m, alloc_gpu * 0.95 AS g,
    alloc_cpu_m, req_cpu_m, alloc_memory_b, req_memory_b, alloc_gpu, req_gpu
  FROM snapshot_nodes
),
w AS (
  SELECT *, CASE WHEN c + m + g > 0 THEN c / (c + m + g) ELSE 0.5 END AS wc, CASE WHEN c + m + g > 0 THEN m / (c + m + g) ELSE 0.5 END AS wm,
    CASE WHEN c + m + g > 0 THEN g / (c + m + g) ELSE 0 END AS wg
  FROM n
)
SELECT snapshot_id, nodepool, capacity_type,
  TOTAL(price * (wc * CASE WHEN alloc_cpu_m > 0 THEN CAST(req_cpu_m AS REAL) / alloc_cpu_m ELSE 0 END
    + wm * CASE WHEN alloc_memory_b > 0 THEN CAST(req_memory_b AS REAL) / alloc_memory_b ELSE 0 END
    + wg * CASE WHEN alloc_gpu > 0 THEN CAST(req_gpu AS REAL) / alloc_gpu ELSE 0 END)) AS requested,
  TOTAL(price * wc) AS cpu, TOTAL(price * wg) AS gpu
FROM w GROUP BY snapshot_id, nodepool, capacity_type;

UPDATE snapshot_nodepools SET rp_requested_usd_per_hour = r.requested, rp_cpu_usd_per_hour = r.cpu, rp_gpu_usd_per_hour = r.gpu
FROM temp.rp_nodes r
WHERE r.snapshot_id = snapshot_nodepools.snapshot_id AND r.nodepool = snapshot_nodepools.nodepool AND r.capacity_type = snapshot_nodepools.capacity_type;
-- A NodePool row without its nodes (none stored): the 50/50 split it was shown with.
UPDATE snapshot_nodepools SET rp_requested_usd_per_hour = 0.5 * COALESCE(cpu_eff_usd_per_hour, 0) + 0.5 * COALESCE(memory_eff_usd_per_hour, 0),
  rp_cpu_usd_per_hour = 0.5 * usd_per_hour, rp_gpu_usd_per_hour = 0
WHERE rp_requested_usd_per_hour IS NULL;
DROP TABLE temp.rp_nodes;

-- Rollup rows whose snapshots are no longer stored keep the 50/50 split they were shown with; the others are
-- recomputed. The hour and day rollups: each snapshot's time [taken_at, taken_at + min(next − taken_at, 15 min)) cut at hour and
-- day boundaries, as migration 0006 filled them; the week rollups are the sums of their days, as 0007 filled them.
UPDATE rollup_nodepools SET rp_requested_usd = 0.5 * cw_cpu_usd + 0.5 * cw_memory_usd, rp_cpu_usd = 0.5 * cost_usd, rp_gpu_usd = 0;

CREATE TEMP TABLE rp_parts AS
WITH s AS (SELECT id, taken_at, LEAD(taken_at) OVER (ORDER BY taken_at) AS next_at FROM snapshots),
iv AS (SELECT id, taken_at, taken_at + MIN(next_at - taken_at, 900000) AS end_ms FROM s WHERE next_at IS NOT NULL),
spans (span_ms) AS (VALUES (3600000), (86400000))
SELECT iv.id, spans.span_ms, iv.taken_at AS a, MIN(iv.end_ms, (iv.taken_at / spans.span_ms + 1) * spans.span_ms) AS b
FROM iv, spans WHERE iv.end_ms > iv.taken_at
UNION ALL
SELECT iv.id, spans.span_ms, (iv.taken_at / spans.span_ms + 1) * spans.span_ms, iv.end_ms
FROM iv, spans WHERE iv.end_ms > (iv.taken_at / spans.span_ms + 1) * spans.span_ms;

UPDATE rollup_nodepools SET rp_requested_usd = r.requested, rp_cpu_usd = r.cpu, rp_gpu_usd = r.gpu
FROM (
  SELECT x.span_ms, (x.a / x.span_ms) * x.span_ms AS bucket_ms, p.nodepool, p.capacity_type,
    TOTAL((x.b - x.a) / 3600000.0 * p.rp_requested_usd_per_hour) AS requested, TOTAL((x.b - x.a) / 3600000.0 * p.rp_cpu_usd_per_hour) AS cpu,
    TOTAL((x.b - x.a) / 3600000.0 * p.rp_gpu_usd_per_hour) AS gpu
  FROM temp.rp_parts x JOIN snapshot_nodepools p ON p.snapshot_id = x.id
  GROUP BY 1, 2, 3, 4
) r
WHERE r.span_ms = rollup_nodepools.span_ms AND r.bucket_ms = rollup_nodepools.bucket_ms AND r.nodepool = rollup_nodepools.nodepool
  AND r.capacity_type = rollup_nodepools.capacity_type;
DROP TABLE temp.rp_parts;

UPDATE rollup_nodepools SET rp_requested_usd = d.requested, rp_cpu_usd = d.cpu, rp_gpu_usd = d.gpu
FROM (
  SELECT (bucket_ms / 604800000) * 604800000 AS week_ms, nodepool, capacity_type, TOTAL(rp_requested_usd) AS requested,
    TOTAL(rp_cpu_usd) AS cpu, TOTAL(rp_gpu_usd) AS gpu
  FROM rollup_nodepools WHERE span_ms = 86400000 GROUP BY 1, 2, 3
) d
WHERE rollup_nodepools.span_ms = 604800000 AND d.week_ms = rollup_nodepools.bucket_ms AND d.nodepool = rollup_nodepools.nodepool
  AND d.capacity_type = rollup_nodepools.capacity_type;
