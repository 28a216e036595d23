import type { Db } from '../open-db.js';
import { perConnection } from '../per-connection.js';
import { INTERVAL_CAP_MS } from './analytics-intervals.js';
import { type Coarsest, coarsestFor, pieceParams, QUARTER_DAY_MS, rangePieces } from './range-pieces.js';
import { DAY_MS, HOUR_MS, WEEK_MS } from '../../core/time.js';

/**
 * The hour, day and week rollups of migrations 0006 and 0007 (namespace columns added by 0010), and the quarter-day
 * ones of 0033 (6 hours: what a 90-day chart's 6- and 12-hour buckets read instead of every hour): kept in step with
 * each snapshot written, and read for ranges, so a range's cost is a few dozen rollup rows plus the snapshots of its
 * partial edge hours, whatever its length.
 *
 * A snapshot stands for the time until the next one, capped at INTERVAL_CAP_MS; the newest stands for nothing
 * yet. Writing a snapshot therefore also settles the one before it (and, written out of order, takes back the
 * time that one had claimed up to the snapshot after).
 */

const SPANS = [HOUR_MS, QUARTER_DAY_MS, DAY_MS, WEEK_MS] as const;
const CAP = INTERVAL_CAP_MS;

/** Hours-weighted NodePool sums: column name and its value from a snapshot_nodepools row `p` standing `h` hours. */
export const POOL_WEIGHTED: readonly (readonly [string, (h: string) => string])[] = [
  ['node_hours', (h) => `${h} * p.nodes`],
  ['cost_usd', (h) => `${h} * p.usd_per_hour`],
  ['alloc_cpu_m_hours', (h) => `${h} * p.alloc_cpu_m`],
  ['req_cpu_m_hours', (h) => `${h} * p.req_cpu_m`],
  ['alloc_memory_b_hours', (h) => `${h} * p.alloc_memory_b`],
  ['req_memory_b_hours', (h) => `${h} * p.req_memory_b`],
  ['alloc_pods_hours', (h) => `${h} * p.alloc_pods`],
  ['req_pods_hours', (h) => `${h} * p.req_pods`],
  ['alloc_gpu_hours', (h) => `${h} * p.alloc_gpu`],
  ['req_gpu_hours', (h) => `${h} * p.req_gpu`],
  ['cw_cpu_usd', (h) => `${h} * COALESCE(p.cpu_eff_usd_per_hour, 0)`],
  ['cw_memory_usd', (h) => `${h} * COALESCE(p.memory_eff_usd_per_hour, 0)`],
  ['cw_pods_usd', (h) => `${h} * COALESCE(p.pods_eff_usd_per_hour, 0)`],
  ['cw_gpu_usd', (h) => `${h} * COALESCE(p.gpu_eff_usd_per_hour, 0)`],
  ['gpu_nodes_usd', (h) => `${h} * COALESCE(p.gpu_nodes_usd_per_hour, 0)`],
  ['on_demand_usd', (h) => `${h} * COALESCE(p.on_demand_usd_per_hour, 0)`],
  ['on_demand_unknown_usd', (h) => `CASE WHEN p.on_demand_usd_per_hour IS NULL THEN ${h} * p.usd_per_hour ELSE 0 END`],
  // The relative-price weighting of idle (migration 0023; a row written without it: the 50/50 split).
  [
    'rp_requested_usd',
    (h) =>
      `${h} * COALESCE(p.rp_requested_usd_per_hour, 0.5 * COALESCE(p.cpu_eff_usd_per_hour, 0) + 0.5 * COALESCE(p.memory_eff_usd_per_hour, 0))`,
  ],
  ['rp_cpu_usd', (h) => `${h} * COALESCE(p.rp_cpu_usd_per_hour, 0.5 * p.usd_per_hour)`],
  ['rp_gpu_usd', (h) => `${h} * COALESCE(p.rp_gpu_usd_per_hour, 0)`],
];

/** Plain sums over the snapshots taken in a bucket (the overview's efficiency chart). */
const POOL_PLAIN: readonly (readonly [string, string])[] = [
  ['snap_nodes', 'p.nodes'],
  ['snap_alloc_cpu_m', 'p.alloc_cpu_m'],
  ['snap_req_cpu_m', 'p.req_cpu_m'],
  ['snap_alloc_memory_b', 'p.alloc_memory_b'],
  ['snap_req_memory_b', 'p.req_memory_b'],
  ['snap_usd_per_hour', 'p.usd_per_hour'],
];

/**
 * Hours-weighted namespace sums from a snapshot_namespaces row `n`. (aws_split_usd of migration 0006 is retired by
 * 0010: it was not AWS's method; the column stays, unwritten.)
 */
const NAMESPACE_WEIGHTED: readonly (readonly [string, (h: string) => string])[] = [
  ['request_share_usd', (h) => `${h} * n.usd_per_hour`],
  ['cpu_share_usd', (h) => `${h} * COALESCE(n.cpu_share_usd_per_hour, 0)`],
  ['memory_share_usd', (h) => `${h} * COALESCE(n.memory_share_usd_per_hour, 0)`],
  ['legacy_usd', (h) => `CASE WHEN n.cpu_share_usd_per_hour IS NULL THEN ${h} * n.usd_per_hour ELSE 0 END`],
  ['aws_split_cost_usd', (h) => `${h} * COALESCE(n.aws_split_cost_usd_per_hour, 0)`],
  ['aws_unused_cost_usd', (h) => `${h} * COALESCE(n.aws_unused_cost_usd_per_hour, 0)`],
  ['opencost_usd', (h) => `${h} * COALESCE(n.opencost_usd_per_hour, 0)`],
  ['legacy_methods_usd', (h) => `CASE WHEN n.aws_split_cost_usd_per_hour IS NULL THEN ${h} * n.usd_per_hour ELSE 0 END`],
  ['pod_hours', (h) => `${h} * n.pods`],
  ['usage_pod_hours', (h) => `${h} * COALESCE(n.usage_pods, 0)`],
];

const names = (cols: readonly (readonly [string, unknown])[]): string => cols.map(([c]) => c).join(', ');
const adding = (cols: readonly (readonly [string, unknown])[]): string => cols.map(([c]) => `${c} = ${c} + excluded.${c}`).join(', ');

/** Keeps the rollups in step: call inside the transaction that wrote a snapshot and its rollup rows. */
export function createRangeRollupWriter(db: Db) {
  const previous = db.prepare(
    'SELECT id, taken_at AS takenAt FROM snapshots WHERE taken_at < ? AND cluster_id = ? ORDER BY taken_at DESC LIMIT 1',
  );
  const next = db.prepare('SELECT taken_at FROM snapshots WHERE taken_at > ? AND cluster_id = ? ORDER BY taken_at LIMIT 1').pluck();
  const taken = db.prepare(`
    INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_taken, cluster_id) VALUES (?, ?, 1, ?)
    ON CONFLICT (span_ms, bucket_ms, cluster_id) DO UPDATE SET snapshots_taken = snapshots_taken + 1`);
  const plain = db.prepare(`
    INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, cluster_id, ${names(POOL_PLAIN)})
    SELECT @span, @bucket, p.nodepool, p.capacity_type, p.cluster_id, ${POOL_PLAIN.map(([, e]) => e).join(', ')}
    FROM snapshot_nodepools p WHERE p.snapshot_id = @id
    ON CONFLICT (span_ms, bucket_ms, nodepool, capacity_type, cluster_id) DO UPDATE SET ${adding(POOL_PLAIN)}`);
  const spanTime = db.prepare(`
    INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_weighted, hours, cluster_id) VALUES (@span, @bucket, @count, @h, @clusterId)
    ON CONFLICT (span_ms, bucket_ms, cluster_id) DO UPDATE SET snapshots_weighted = snapshots_weighted + excluded.snapshots_weighted, hours = hours + excluded.hours`);
  const poolTime = db.prepare(`
    INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, cluster_id, ${names(POOL_WEIGHTED)})
    SELECT @span, @bucket, p.nodepool, p.capacity_type, p.cluster_id, ${POOL_WEIGHTED.map(([, e]) => e('@h')).join(', ')}
    FROM snapshot_nodepools p WHERE p.snapshot_id = @id
    ON CONFLICT (span_ms, bucket_ms, nodepool, capacity_type, cluster_id) DO UPDATE SET ${adding(POOL_WEIGHTED)}`);
  // The team stays the one of the newest snapshot adding to the bucket (taking time back never makes it newer).
  const namespaceTime = db.prepare(`
    INSERT INTO rollup_namespaces (span_ms, bucket_ms, namespace, nodepool, team, newest_at, cluster_id, ${names(NAMESPACE_WEIGHTED)})
    SELECT @span, @bucket, n.namespace, n.nodepool, n.team, @takenAt, n.cluster_id, ${NAMESPACE_WEIGHTED.map(([, e]) => e('@h')).join(', ')}
    FROM snapshot_namespaces n WHERE n.snapshot_id = @id
    ON CONFLICT (span_ms, bucket_ms, namespace, nodepool, cluster_id) DO UPDATE SET
      team = CASE WHEN excluded.newest_at >= newest_at THEN excluded.team ELSE team END,
      newest_at = MAX(newest_at, excluded.newest_at), ${adding(NAMESPACE_WEIGHTED)}`);

  /** Adds (sign 1) or takes back (sign -1) the time [fromMs, toMs) of snapshot `id`, cut at each span's bucket boundaries. */
  const time = (id: number, takenAt: number, fromMs: number, toMs: number, sign: 1 | -1, clusterId: number): void => {
    for (const span of SPANS) {
      for (let a = fromMs; a < toMs;) {
        const bucket = Math.floor(a / span) * span;
        const b = Math.min(toMs, bucket + span);
        const h = (sign * (b - a)) / HOUR_MS;
        spanTime.run({ span, bucket, count: a === fromMs ? sign : 0, h, clusterId });
        poolTime.run({ span, bucket, id, h });
        namespaceTime.run({ span, bucket, id, h, takenAt });
        a = b;
      }
    }
  };

  return {
    /** After snapshot `id` taken at `takenAt` and its snapshot_nodepools / snapshot_namespaces rows are stored. */
    addSnapshot(id: number, takenAt: number, clusterId = 1): void {
      // The previous and next snapshot of the same cluster: each cluster's snapshots weigh the time to its own next one.
      const prev = previous.get(takenAt, clusterId) as { id: number; takenAt: number } | undefined;
      const nextAt = next.get(takenAt, clusterId) as number | undefined;
      for (const span of SPANS) {
        const bucket = Math.floor(takenAt / span) * span;
        taken.run(span, bucket, clusterId);
        plain.run({ span, bucket, id });
      }
      if (prev) {
        if (nextAt !== undefined)
          time(prev.id, prev.takenAt, prev.takenAt, prev.takenAt + Math.min(nextAt - prev.takenAt, CAP), -1, clusterId);
        time(prev.id, prev.takenAt, prev.takenAt, prev.takenAt + Math.min(takenAt - prev.takenAt, CAP), 1, clusterId);
      }
      if (nextAt !== undefined) time(id, takenAt, takenAt, takenAt + Math.min(nextAt - takenAt, CAP), 1, clusterId);
    },
  };
}

// ---- reading ------------------------------------------------------------------------------------------------

/**
 * Snapshots of the raw pieces (at most two, see range-pieces.ts), each weighted by the time to its next snapshot
 * (capped) clipped to its piece: `w(id, taken_at, start_ms, hours, counted)`. `counted` is 0 for a snapshot of the
 * second piece taken before it (it is counted where it was taken), so each snapshot counts once. MATERIALIZED:
 * otherwise SQLite inlines `hours`, next-snapshot lookup included, into every column that multiplies by it.
 *
 * An hourly snapshot (folded past the raw retention, migration 0021) stands for the time its snapshots stood for,
 * from its hour's start, and counts as the snapshots it folds: a partial hour past the raw retention reads its share
 * of the hour's means (whole hours read the rollups, which folding leaves as they were).
 */
const RAW_WEIGHTED = `
  rw AS MATERIALIZED (
    SELECT s.id, s.taken_at, pc.lo, pc.second, MAX(s.taken_at, pc.lo) AS start_ms, COALESCE(s.fold_snapshots, 1) AS snapshots,
           MIN(s.taken_at + COALESCE(s.fold_ms, MIN(COALESCE((SELECT MIN(x.taken_at) FROM snapshots x WHERE x.taken_at > s.taken_at AND x.cluster_id = s.cluster_id), s.taken_at) - s.taken_at, ${CAP})), pc.hi) AS end_ms
    FROM (SELECT CAST(@r1lo AS INTEGER) AS lo, CAST(@r1hi AS INTEGER) AS hi, 0 AS second
          UNION ALL SELECT CAST(@r2lo AS INTEGER), CAST(@r2hi AS INTEGER), 1) pc
    JOIN snapshots s ON s.taken_at >= pc.lo - ${HOUR_MS + CAP} AND s.taken_at < pc.hi
    WHERE pc.hi > pc.lo AND (@clusterId IS NULL OR s.cluster_id = @clusterId)
  ),
  w AS MATERIALIZED (
    SELECT id, taken_at, start_ms, (end_ms - start_ms) / 3600000.0 AS hours, CASE WHEN second = 0 OR taken_at >= lo THEN snapshots ELSE 0 END AS counted
    FROM rw WHERE end_ms > start_ms
  )`;

/** Rows of a rollup table in the hour, quarter-day, day and week pieces (absent pieces are empty ranges). */
const inPieces = (table: string, cols: string) =>
  [
    [HOUR_MS, 'h1'],
    [HOUR_MS, 'h2'],
    [QUARTER_DAY_MS, 'q'],
    [DAY_MS, 'd1'],
    [DAY_MS, 'd2'],
    [WEEK_MS, 'w'],
  ]
    .map(
      ([span, p]) =>
        `SELECT ${cols} FROM ${table} WHERE span_ms = ${span} AND bucket_ms >= CAST(@${p}lo AS INTEGER) AND bucket_ms < CAST(@${p}hi AS INTEGER) AND (@clusterId IS NULL OR cluster_id = @clusterId)`,
    )
    .join('\n  UNION ALL ');

/** The start of the bucket holding `col`: buckets of @bucketMs from @originMs (0: aligned on the epoch); col >= origin. */
const BUCKET = (col: string) =>
  `((${col} - CAST(@originMs AS INTEGER)) / CAST(@bucketMs AS INTEGER)) * CAST(@bucketMs AS INTEGER) + CAST(@originMs AS INTEGER)`;
const totals = (cols: readonly (readonly [string, unknown])[]) => cols.map(([c]) => `TOTAL(${c}) AS ${c}`).join(', ');

type PoolSumsArray = (string | number)[];
/** A pool-sums row read raw: [bucket_ms,] nodepool, capacity_type, then the POOL_WEIGHTED columns in order. */
const poolSumsOf = (a: PoolSumsArray, at: number): RawPoolSums => {
  const n = (i: number): number => a[at + 2 + i] as number;
  return {
    nodepool: a[at] as string,
    capacity_type: a[at + 1] as string,
    node_hours: n(0),
    cost_usd: n(1),
    alloc_cpu_m_hours: n(2),
    req_cpu_m_hours: n(3),
    alloc_memory_b_hours: n(4),
    req_memory_b_hours: n(5),
    alloc_pods_hours: n(6),
    req_pods_hours: n(7),
    alloc_gpu_hours: n(8),
    req_gpu_hours: n(9),
    cw_cpu_usd: n(10),
    cw_memory_usd: n(11),
    cw_pods_usd: n(12),
    cw_gpu_usd: n(13),
    gpu_nodes_usd: n(14),
    on_demand_usd: n(15),
    on_demand_unknown_usd: n(16),
    rp_requested_usd: n(17),
    rp_cpu_usd: n(18),
    rp_gpu_usd: n(19),
  };
};
const bucketPoolSumsOf = (a: PoolSumsArray): RawPoolSums & { bucket_ms: number } => {
  const r = poolSumsOf(a, 1) as RawPoolSums & { bucket_ms: number };
  r.bucket_ms = a[0] as number;
  return r;
};

/**
 * A mapped row with its bucket's start set on it, not spread into a copy: a 20-property spread per row (1,200 rows
 * for a month's timeline) cost a third of the call and most of its garbage collection (npm run bench, store).
 */
export function withBucketStart<T extends object>(row: T, bucketStartMs: number): T & { bucketStartMs: number } {
  const r = row as T & { bucketStartMs: number };
  r.bucketStartMs = bucketStartMs;
  return r;
}

export type NamespaceSumsArray = (string | number | null)[];
/** A namespace-sums row read raw: [bucket_ms,] namespace, nodepool, team, newest, then the NAMESPACE_WEIGHTED columns in order. */
const namespaceSumsOf = (a: NamespaceSumsArray, at: number): RawNamespaceSums => {
  const n = (i: number): number => a[at + 4 + i] as number;
  return {
    namespace: a[at] as string,
    nodepool: a[at + 1] as string,
    team: a[at + 2] as string | null,
    newest: a[at + 3] as number,
    request_share_usd: n(0),
    cpu_share_usd: n(1),
    memory_share_usd: n(2),
    legacy_usd: n(3),
    aws_split_cost_usd: n(4),
    aws_unused_cost_usd: n(5),
    opencost_usd: n(6),
    legacy_methods_usd: n(7),
    pod_hours: n(8),
    usage_pod_hours: n(9),
  };
};
const bucketNamespaceSumsOf = (a: NamespaceSumsArray): RawNamespaceSums & { bucket_ms: number } => {
  const r = namespaceSumsOf(a, 1) as RawNamespaceSums & { bucket_ms: number };
  r.bucket_ms = a[0] as number;
  return r;
};

/**
 * Pieces [bucket_ms, namespace, nodepool, team, newest_at, ...NAMESPACE_WEIGHTED] summed per bucket x namespace x
 * NodePool, ordered by those three (strings by code unit, as SQLite's BINARY collation orders ASCII names), the team
 * taken from the piece with the newest snapshot (as SQLite's bare column beside a lone MAX()). The pieces are the
 * caller's to give (as a statement's rows are): the first of each group is summed into in place, not copied (a copy of
 * each of a 90-day series' 4,140 rows was a quarter of its garbage).
 */
export function groupNamespacePieces(pieces: readonly NamespaceSumsArray[]): NamespaceSumsArray[] {
  const groups = new Map<string, NamespaceSumsArray>();
  for (const a of pieces) {
    const key = `${a[0] as number}\u0000${a[1] as string}\u0000${a[2] as string}`;
    const g = groups.get(key);
    if (g === undefined) {
      // TOTAL() reads NULL as 0.
      for (let i = 5; i < a.length; i++) if (a[i] === null) a[i] = 0;
      groups.set(key, a);
      continue;
    }
    if ((a[4] as number) > (g[4] as number)) {
      g[3] = a[3];
      g[4] = a[4];
    }
    for (let i = 5; i < a.length; i++) g[i] = (g[i] as number) + ((a[i] as number | null) ?? 0);
  }
  const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return [...groups.values()].sort(
    (x, y) => (x[0] as number) - (y[0] as number) || cmp(x[1] as string, y[1] as string) || cmp(x[2] as string, y[2] as string),
  );
}

export interface RollupRange {
  fromMs: number;
  toMs: number;
  nodePool?: string;
  /** One cluster's rows (clusters.id); absent or null: every cluster's (docs/clusters.md). */
  clusterId?: number | null;
}

/** A range cut into buckets of `bucketMs` from `originMs` (default 0: aligned on the epoch; at or before fromMs). */
export interface BucketedRange extends RollupRange {
  bucketMs: number;
  originMs?: number;
}

/** Hours-weighted sums of one NodePool x capacity type (columns named as in POOL_WEIGHTED). */
export interface RawPoolSums {
  nodepool: string;
  capacity_type: string;
  node_hours: number;
  cost_usd: number;
  alloc_cpu_m_hours: number;
  req_cpu_m_hours: number;
  alloc_memory_b_hours: number;
  req_memory_b_hours: number;
  alloc_pods_hours: number;
  req_pods_hours: number;
  alloc_gpu_hours: number;
  req_gpu_hours: number;
  cw_cpu_usd: number;
  cw_memory_usd: number;
  cw_pods_usd: number;
  cw_gpu_usd: number;
  gpu_nodes_usd: number;
  on_demand_usd: number;
  on_demand_unknown_usd: number;
  rp_requested_usd: number;
  rp_cpu_usd: number;
  rp_gpu_usd: number;
}

/** Hours-weighted cost sums of one namespace x NodePool, with the team at its newest snapshot. */
export interface RawNamespaceSums {
  namespace: string;
  nodepool: string;
  team: string | null;
  newest: number;
  request_share_usd: number;
  cpu_share_usd: number;
  memory_share_usd: number;
  legacy_usd: number;
  aws_split_cost_usd: number;
  aws_unused_cost_usd: number;
  opencost_usd: number;
  legacy_methods_usd: number;
  pod_hours: number;
  usage_pod_hours: number;
}

/**
 * Range reads over the rollups (plus the snapshots of partial edge hours), in the row shapes the repositories map.
 * One reader per connection: its statements are prepared once, however many repositories and services read through
 * it (reports, packing and teams each make one). Preparing its dozen statements cost more than most of the reads.
 */
export const createRangeRollupReader: (db: Db) => RangeRollupReader = perConnection((db) => prepareRangeRollupReader(db));

function prepareRangeRollupReader(db: Db) {
  const poolPieces = (bucket: boolean) => `
    pieces AS (
      SELECT ${bucket ? `${BUCKET('w.start_ms')} AS bucket_ms, ` : ''}p.nodepool, p.capacity_type, ${POOL_WEIGHTED.map(([c, e]) => `${e('w.hours')} AS ${c}`).join(', ')}
      FROM w JOIN snapshot_nodepools p ON p.snapshot_id = w.id
      UNION ALL ${inPieces('rollup_nodepools', `${bucket ? `${BUCKET('bucket_ms')}, ` : ''}nodepool, capacity_type, ${names(POOL_WEIGHTED)}`)}
    )`;
  // Rows come back as arrays and are mapped here: better-sqlite3 builds row objects property by property, which
  // for ~20 columns costs more than the query (a 1-day timeline at 5-minute buckets is 1,400 such rows).
  const poolSums = db
    .prepare(
      `
    WITH ${RAW_WEIGHTED}, ${poolPieces(false)}
    SELECT nodepool, capacity_type, ${totals(POOL_WEIGHTED)} FROM pieces
    WHERE (@nodePool IS NULL OR nodepool = @nodePool)
    GROUP BY nodepool, capacity_type ORDER BY nodepool, capacity_type`,
    )
    .raw(true);
  const bucketPoolSums = db
    .prepare(
      `
    WITH ${RAW_WEIGHTED}, ${poolPieces(true)}
    SELECT bucket_ms, nodepool, capacity_type, ${totals(POOL_WEIGHTED)} FROM pieces
    WHERE (@nodePool IS NULL OR nodepool = @nodePool)
    GROUP BY bucket_ms, nodepool, capacity_type ORDER BY bucket_ms, nodepool, capacity_type`,
    )
    .raw(true);

  const coveragePieces = (bucket: boolean) => `
    pieces AS (
      SELECT ${bucket ? `${BUCKET('start_ms')} AS bucket_ms, ` : ''}hours, counted AS snapshots FROM w
      UNION ALL ${inPieces('rollup_spans', `${bucket ? `${BUCKET('bucket_ms')}, ` : ''}hours, snapshots_weighted`)}
    )`;
  const coverage = db.prepare(`
    WITH ${RAW_WEIGHTED}, ${coveragePieces(false)}
    SELECT TOTAL(hours) AS hours, CAST(TOTAL(snapshots) AS INTEGER) AS snapshots FROM pieces`);
  const bucketCoverage = db.prepare(`
    WITH ${RAW_WEIGHTED}, ${coveragePieces(true)}
    SELECT bucket_ms, TOTAL(hours) AS hours, CAST(TOTAL(snapshots) AS INTEGER) AS snapshots FROM pieces
    GROUP BY bucket_ms HAVING TOTAL(hours) > 0 OR TOTAL(snapshots) > 0 ORDER BY bucket_ms`);

  // With a single MAX() aggregate, SQLite takes the bare column `team` from the row holding the maximum.
  // Raw arrays, as the pool sums: row objects of 15 columns cost more than the query (4,590 rows for a 30-day series
  // of 153 namespace x NodePool pairs: 26 ms as objects, the GROUP BY itself 13 ms; npm run bench, store).
  const namespaceSums = db
    .prepare(
      `
    WITH ${RAW_WEIGHTED},
    pieces AS (
      SELECT n.namespace, n.nodepool, n.team, w.taken_at AS newest_at, ${NAMESPACE_WEIGHTED.map(([c, e]) => `${e('w.hours')} AS ${c}`).join(', ')}
      FROM w JOIN snapshot_namespaces n ON n.snapshot_id = w.id
      UNION ALL ${inPieces('rollup_namespaces', `namespace, nodepool, team, newest_at, ${names(NAMESPACE_WEIGHTED)}`)}
    )
    SELECT namespace, nodepool, team, MAX(newest_at) AS newest, ${totals(NAMESPACE_WEIGHTED)} FROM pieces
    WHERE (@nodePool IS NULL OR nodepool = @nodePool)
    GROUP BY namespace, nodepool ORDER BY namespace, nodepool`,
    )
    .raw(true);
  // The same per bucket: the team is the one at the newest snapshot in the bucket, as namespaceSums over the bucket's range.
  // Its pieces unsummed, added up per bucket x namespace x NodePool in groupNamespacePieces: SQLite's GROUP BY
  // sorted the 4,590 rows of a 30-day series (15 columns each) through a temporary B-tree, twice the cost of reading
  // them (npm run bench, store: GET /api/teams/cost/series 30 d).
  const bucketNamespaceSums = db
    .prepare(
      `
    WITH ${RAW_WEIGHTED},
    pieces AS (
      SELECT ${BUCKET('w.start_ms')} AS bucket_ms, n.namespace, n.nodepool, n.team, w.taken_at AS newest_at,
             ${NAMESPACE_WEIGHTED.map(([c, e]) => `${e('w.hours')} AS ${c}`).join(', ')}
      FROM w JOIN snapshot_namespaces n ON n.snapshot_id = w.id
      UNION ALL ${inPieces('rollup_namespaces', `${BUCKET('bucket_ms')}, namespace, nodepool, team, newest_at, ${names(NAMESPACE_WEIGHTED)}`)}
    )
    SELECT bucket_ms, namespace, nodepool, team, newest_at, ${names(NAMESPACE_WEIGHTED)} FROM pieces
    WHERE (@nodePool IS NULL OR nodepool = @nodePool)`,
    )
    .raw(true);

  // Per day: read with day rollups at most (see estimateByDay below). Raw pieces never cross an hour boundary, so
  // each lies within one UTC day.
  const estimateByDay = db.prepare(`
    WITH ${RAW_WEIGHTED},
    pieces AS (
      SELECT (w.start_ms / ${DAY_MS}) * ${DAY_MS} AS day_ms, p.nodepool, p.capacity_type, w.hours * p.usd_per_hour AS usd
      FROM w JOIN snapshot_nodepools p ON p.snapshot_id = w.id
      UNION ALL ${inPieces('rollup_nodepools', `(bucket_ms / ${DAY_MS}) * ${DAY_MS}, nodepool, capacity_type, cost_usd`)}
    )
    SELECT day_ms, nodepool, capacity_type, TOTAL(usd) AS usd FROM pieces
    WHERE (@nodePool IS NULL OR nodepool = @nodePool)
    GROUP BY day_ms, nodepool, capacity_type ORDER BY day_ms, nodepool, capacity_type`);

  // Plain sums over the snapshots taken in each bucket, and how many were taken there.
  const rawTaken = (col: string) =>
    `(${col} >= CAST(@r1lo AS INTEGER) AND ${col} < CAST(@r1hi AS INTEGER)) OR (${col} >= CAST(@r2lo AS INTEGER) AND ${col} < CAST(@r2hi AS INTEGER))`;
  // An hourly snapshot weighs as the snapshots it folds (its means times their number stand for their sums).
  const efficiencyBuckets = db.prepare(`
    WITH pieces AS (
      SELECT ${BUCKET('p.taken_at')} AS bucket_ms, p.nodepool, p.req_cpu_m * k.n AS req_cpu, p.alloc_cpu_m * k.n AS alloc_cpu,
             p.req_memory_b * k.n AS req_mem, p.alloc_memory_b * k.n AS alloc_mem, p.nodes * k.n AS nodes, p.usd_per_hour * k.n AS usd
      FROM snapshot_nodepools p JOIN (SELECT id, COALESCE(fold_snapshots, 1) AS n FROM snapshots WHERE @clusterId IS NULL OR cluster_id = @clusterId) k ON k.id = p.snapshot_id
      WHERE ${rawTaken('p.taken_at')}
      UNION ALL SELECT * FROM (${inPieces('rollup_nodepools', `${BUCKET('bucket_ms')} AS bucket_ms, nodepool, snap_req_cpu_m, snap_alloc_cpu_m, snap_req_memory_b, snap_alloc_memory_b, snap_nodes, snap_usd_per_hour`)})
      -- A bucket row can hold only time spilt over from a snapshot taken before it: no snapshot of the pool was taken there.
      WHERE snap_nodes > 0
    ),
    counts AS (
      SELECT ${BUCKET('taken_at')} AS bucket_ms, COALESCE(fold_snapshots, 1) AS snapshots FROM snapshots WHERE ${rawTaken('taken_at')} AND (@clusterId IS NULL OR cluster_id = @clusterId)
      UNION ALL ${inPieces('rollup_spans', `${BUCKET('bucket_ms')}, snapshots_taken`)}
    ),
    b AS (SELECT bucket_ms, TOTAL(snapshots) AS snapshots FROM counts GROUP BY bucket_ms HAVING TOTAL(snapshots) > 0)
    SELECT b.bucket_ms, pc.nodepool, TOTAL(pc.req_cpu) AS req_cpu, TOTAL(pc.alloc_cpu) AS alloc_cpu, TOTAL(pc.req_mem) AS req_mem,
           TOTAL(pc.alloc_mem) AS alloc_mem, TOTAL(pc.nodes) AS nodes, TOTAL(pc.usd) AS usd, CAST(b.snapshots AS INTEGER) AS snapshots
    FROM pieces pc JOIN b ON b.bucket_ms = pc.bucket_ms
    WHERE (@nodePool IS NULL OR pc.nodepool = @nodePool)
    GROUP BY b.bucket_ms, pc.nodepool ORDER BY pc.nodepool, b.bucket_ms`);

  const params = (r: RollupRange, coarsest: Coarsest = 'week') => ({
    ...pieceParams(rangePieces(r.fromMs, r.toMs, coarsest)),
    nodePool: r.nodePool ?? null,
    clusterId: r.clusterId ?? null,
  });
  const bucketed = (r: BucketedRange) => {
    if (!Number.isInteger(r.bucketMs) || r.bucketMs <= 0) throw new RangeError(`bucketMs must be a positive integer, got ${r.bucketMs}`);
    // An origin after `from` would put the first pieces before bucket 0 (the epoch default is left as it always was).
    if (r.originMs !== undefined && (!Number.isInteger(r.originMs) || r.originMs > r.fromMs)) {
      throw new RangeError(`originMs must be an integer at or before fromMs, got ${r.originMs}`);
    }
    const originMs = r.originMs ?? 0;
    return { ...params(r, coarsestFor(r.bucketMs, originMs)), bucketMs: r.bucketMs, originMs };
  };

  return {
    /** Hours-weighted sums per NodePool x capacity type over [fromMs, toMs). */
    poolSums: (r: RollupRange): RawPoolSums[] => (poolSums.all(params(r)) as PoolSumsArray[]).map((a) => poolSumsOf(a, 0)),
    /** The same per bucket of the time (buckets aligned on the epoch). */
    bucketPoolSums: (r: BucketedRange): (RawPoolSums & { bucket_ms: number })[] =>
      (bucketPoolSums.all(bucketed(r)) as PoolSumsArray[]).map(bucketPoolSumsOf),
    /** Hours of [fromMs, toMs) the snapshots stand for, and how many snapshots stand for some of it. */
    coverage: (r: RollupRange) => coverage.get(params(r)) as { hours: number; snapshots: number },
    bucketCoverage: (r: BucketedRange) => bucketCoverage.all(bucketed(r)) as { bucket_ms: number; hours: number; snapshots: number }[],
    /** Per namespace x NodePool: hours-weighted cost sums and the team at the newest snapshot. */
    namespaceSums: (r: RollupRange): RawNamespaceSums[] =>
      (namespaceSums.all(params(r)) as NamespaceSumsArray[]).map((a) => namespaceSumsOf(a, 0)),
    /** The same as arrays: [namespace, nodepool, team, newest, ...the NAMESPACE_WEIGHTED columns in order]. */
    namespaceSumArrays: (r: RollupRange): readonly NamespaceSumsArray[] => namespaceSums.all(params(r)) as NamespaceSumsArray[],
    /** The same per bucket (the team at the newest snapshot of the bucket). */
    bucketNamespaceSums: (r: BucketedRange): (RawNamespaceSums & { bucket_ms: number })[] =>
      groupNamespacePieces(bucketNamespaceSums.all(bucketed(r)) as NamespaceSumsArray[]).map(bucketNamespaceSumsOf),
    /**
     * The same as arrays, [bucket_ms, namespace, nodepool, team, newest, ...the NAMESPACE_WEIGHTED columns in order],
     * for a reader that maps each row once into its own shape.
     */
    bucketNamespaceSumArrays: (r: BucketedRange): readonly NamespaceSumsArray[] =>
      groupNamespacePieces(bucketNamespaceSums.all(bucketed(r)) as NamespaceSumsArray[]),
    /** Σ price x hours per UTC day (of the time), NodePool and capacity type. */
    estimateByDay: (r: RollupRange) =>
      estimateByDay.all(params(r, 'day')) as { day_ms: number; nodepool: string; capacity_type: string; usd: number }[],
    /** Plain sums per bucket of the snapshots taken in [fromMs, toMs), with the number of snapshots in the bucket. */
    efficiencyBuckets: (r: BucketedRange) =>
      efficiencyBuckets.all(bucketed(r)) as {
        bucket_ms: number;
        nodepool: string;
        req_cpu: number;
        alloc_cpu: number;
        req_mem: number;
        alloc_mem: number;
        nodes: number;
        usd: number;
        snapshots: number;
      }[],
  };
}

export type RangeRollupReader = ReturnType<typeof prepareRangeRollupReader>;
