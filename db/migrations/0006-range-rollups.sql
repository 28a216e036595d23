-- Rollups per UTC hour and per UTC day, so a 30-day range reads 30 day rows instead of 8,640 snapshots' rows.
-- span_ms is 3600000 (hour) or 86400000 (day); bucket_ms the bucket's start, epoch ms UTC.
--
-- Each snapshot stands for the time until the next one, capped at 15 minutes (a collector gap is not cost); the
-- newest stands for nothing yet. "Weighted" columns hold Σ quantity x hours of that time falling in the bucket
-- (an interval crossing a bucket boundary is split there), so the sum over whole buckets of a range equals the
-- sum the snapshots give over it. "snap_" columns hold plain Σ over the snapshots taken in the bucket (the
-- overview's efficiency chart averages those). db/repositories/range-rollups.ts keeps them in step with every
-- snapshot written and reads them; this migration fills them from the snapshots already stored.

CREATE TABLE rollup_spans (
  span_ms              INTEGER NOT NULL,
  bucket_ms            INTEGER NOT NULL,
  snapshots_taken      INTEGER NOT NULL DEFAULT 0,   -- snapshots taken in the bucket
  snapshots_weighted   INTEGER NOT NULL DEFAULT 0,   -- of those, the ones that stand for some time (all but the newest)
  hours                REAL NOT NULL DEFAULT 0,      -- hours of snapshot time falling in the bucket
  PRIMARY KEY (span_ms, bucket_ms)
) WITHOUT ROWID;

CREATE TABLE rollup_nodepools (
  span_ms                INTEGER NOT NULL,
  bucket_ms              INTEGER NOT NULL,
  nodepool               TEXT NOT NULL,
  capacity_type          TEXT NOT NULL,
  snap_nodes             REAL NOT NULL DEFAULT 0,
  snap_alloc_cpu_m       REAL NOT NULL DEFAULT 0,
  snap_req_cpu_m         REAL NOT NULL DEFAULT 0,
  snap_alloc_memory_b    REAL NOT NULL DEFAULT 0,
  snap_req_memory_b      REAL NOT NULL DEFAULT 0,
  snap_usd_per_hour      REAL NOT NULL DEFAULT 0,
  node_hours             REAL NOT NULL DEFAULT 0,
  cost_usd               REAL NOT NULL DEFAULT 0,
  alloc_cpu_m_hours      REAL NOT NULL DEFAULT 0,
  req_cpu_m_hours        REAL NOT NULL DEFAULT 0,
  alloc_memory_b_hours   REAL NOT NULL DEFAULT 0,
  req_memory_b_hours     REAL NOT NULL DEFAULT 0,
  alloc_pods_hours       REAL NOT NULL DEFAULT 0,
  req_pods_hours         REAL NOT NULL DEFAULT 0,
  alloc_gpu_hours        REAL NOT NULL DEFAULT 0,
  req_gpu_hours          REAL NOT NULL DEFAULT 0,
  cw_cpu_usd             REAL NOT NULL DEFAULT 0,
  cw_memory_usd          REAL NOT NULL DEFAULT 0,
  cw_pods_usd            REAL NOT NULL DEFAULT 0,
  cw_gpu_usd             REAL NOT NULL DEFAULT 0,
  gpu_nodes_usd          REAL NOT NULL DEFAULT 0,
  on_demand_usd          REAL NOT NULL DEFAULT 0,
  on_demand_unknown_usd  REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (span_ms, bucket_ms, nodepool, capacity_type)
) WITHOUT ROWID;

-- team: the namespace's team at the newest snapshot contributing to the bucket (newest_at).
CREATE TABLE rollup_namespaces (
  span_ms            INTEGER NOT NULL,
  bucket_ms          INTEGER NOT NULL,
  namespace          TEXT NOT NULL,
  nodepool           TEXT NOT NULL,
  team               TEXT,
  newest_at          INTEGER NOT NULL,
  request_share_usd  REAL NOT NULL DEFAULT 0,
  cpu_share_usd      REAL NOT NULL DEFAULT 0,
  memory_share_usd   REAL NOT NULL DEFAULT 0,
  aws_split_usd      REAL NOT NULL DEFAULT 0,
  legacy_usd         REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (span_ms, bucket_ms, namespace, nodepool)
) WITHOUT ROWID;

-- Consolidation events join NodeClaim events to their node by nodes.nodeclaim, and list NodeClaims gone in a range.
CREATE INDEX nodes_nodeclaim ON nodes(nodeclaim);
CREATE INDEX nodeclaims_deleted_at ON nodeclaims(deleted_at);

-- Backfill. Each snapshot's time [taken_at, taken_at + min(next - taken_at, 15 min)), cut at hour and day boundaries.
CREATE TEMP TABLE rollup_parts AS
WITH s AS (SELECT id, taken_at, LEAD(taken_at) OVER (ORDER BY taken_at) AS next_at FROM snapshots),
iv AS (SELECT id, taken_at, taken_at + MIN(next_at - taken_at, 900000) AS end_ms FROM s WHERE next_at IS NOT NULL),
spans (span_ms) AS (VALUES (3600000), (86400000))
SELECT iv.id, iv.taken_at, spans.span_ms, iv.taken_at AS a, MIN(iv.end_ms, (iv.taken_at / spans.span_ms + 1) * spans.span_ms) AS b
FROM iv, spans WHERE iv.end_ms > iv.taken_at
UNION ALL
SELECT iv.id, iv.taken_at, spans.span_ms, (iv.taken_at / spans.span_ms + 1) * spans.span_ms, iv.end_ms
FROM iv, spans WHERE iv.end_ms > (iv.taken_at / spans.span_ms + 1) * spans.span_ms;

INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_taken)
SELECT spans.span_ms, (s.taken_at / spans.span_ms) * spans.span_ms, COUNT(*)
FROM snapshots s, (SELECT 3600000 AS span_ms UNION ALL SELECT 86400000) spans
WHERE true GROUP BY 1, 2;

INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_weighted, hours)
SELECT span_ms, (a / span_ms) * span_ms, COUNT(DISTINCT CASE WHEN a = taken_at THEN id END), TOTAL((b - a) / 3600000.0)
FROM temp.rollup_parts WHERE true GROUP BY 1, 2
ON CONFLICT (span_ms, bucket_ms) DO UPDATE SET snapshots_weighted = excluded.snapshots_weighted, hours = excluded.hours;

INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m,
  snap_alloc_memory_b, snap_req_memory_b, snap_usd_per_hour)
SELECT spans.span_ms, (p.taken_at / spans.span_ms) * spans.span_ms, p.nodepool, p.capacity_type, TOTAL(p.nodes), TOTAL(p.alloc_cpu_m),
  TOTAL(p.req_cpu_m), TOTAL(p.alloc_memory_b), TOTAL(p.req_memory_b), TOTAL(p.usd_per_hour)
FROM snapshot_nodepools p, (SELECT 3600000 AS span_ms UNION ALL SELECT 86400000) spans
WHERE true GROUP BY 1, 2, 3, 4;

INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours,
  alloc_memory_b_hours, req_memory_b_hours, alloc_pods_hours, req_pods_hours, alloc_gpu_hours, req_gpu_hours, cw_cpu_usd, cw_memory_usd,
  cw_pods_usd, cw_gpu_usd, gpu_nodes_usd, on_demand_usd, on_demand_unknown_usd)
SELECT r.span_ms, (r.a / r.span_ms) * r.span_ms, p.nodepool, p.capacity_type,
  TOTAL(h * p.nodes), TOTAL(h * p.usd_per_hour), TOTAL(h * p.alloc_cpu_m), TOTAL(h * p.req_cpu_m), TOTAL(h * p.alloc_memory_b),
  TOTAL(h * p.req_memory_b), TOTAL(h * p.alloc_pods), TOTAL(h * p.req_pods), TOTAL(h * p.alloc_gpu), TOTAL(h * p.req_gpu),
  TOTAL(h * p.cpu_eff_usd_per_hour), TOTAL(h * p.memory_eff_usd_per_hour), TOTAL(h * p.pods_eff_usd_per_hour), TOTAL(h * p.gpu_eff_usd_per_hour),
  TOTAL(h * p.gpu_nodes_usd_per_hour), TOTAL(h * p.on_demand_usd_per_hour),
  TOTAL(CASE WHEN p.on_demand_usd_per_hour IS NULL THEN h * p.usd_per_hour ELSE 0 END)
FROM (SELECT id, span_ms, a, (b - a) / 3600000.0 AS h FROM temp.rollup_parts) r JOIN snapshot_nodepools p ON p.snapshot_id = r.id
WHERE true GROUP BY 1, 2, 3, 4
ON CONFLICT (span_ms, bucket_ms, nodepool, capacity_type) DO UPDATE SET
  node_hours = excluded.node_hours, cost_usd = excluded.cost_usd, alloc_cpu_m_hours = excluded.alloc_cpu_m_hours,
  req_cpu_m_hours = excluded.req_cpu_m_hours, alloc_memory_b_hours = excluded.alloc_memory_b_hours, req_memory_b_hours = excluded.req_memory_b_hours,
  alloc_pods_hours = excluded.alloc_pods_hours, req_pods_hours = excluded.req_pods_hours, alloc_gpu_hours = excluded.alloc_gpu_hours,
  req_gpu_hours = excluded.req_gpu_hours, cw_cpu_usd = excluded.cw_cpu_usd, cw_memory_usd = excluded.cw_memory_usd, cw_pods_usd = excluded.cw_pods_usd,
  cw_gpu_usd = excluded.cw_gpu_usd, gpu_nodes_usd = excluded.gpu_nodes_usd, on_demand_usd = excluded.on_demand_usd,
  on_demand_unknown_usd = excluded.on_demand_unknown_usd;

-- With a single MAX() aggregate, SQLite takes the bare column `team` from the row holding the maximum.
INSERT INTO rollup_namespaces (span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd,
  memory_share_usd, aws_split_usd, legacy_usd)
SELECT r.span_ms, (r.a / r.span_ms) * r.span_ms, n.namespace, n.nodepool, n.team, MAX(r.taken_at),
  TOTAL(h * n.usd_per_hour), TOTAL(h * n.cpu_share_usd_per_hour), TOTAL(h * n.memory_share_usd_per_hour), TOTAL(h * n.aws_split_usd_per_hour),
  TOTAL(CASE WHEN n.cpu_share_usd_per_hour IS NULL THEN h * n.usd_per_hour ELSE 0 END)
FROM (SELECT id, taken_at, span_ms, a, (b - a) / 3600000.0 AS h FROM temp.rollup_parts) r JOIN snapshot_namespaces n ON n.snapshot_id = r.id
WHERE true GROUP BY 1, 2, 3, 4;

DROP TABLE temp.rollup_parts;
