import type { Db } from '../open-db.js';
import { INTERVAL_CAP_MS } from './analytics-intervals.js';
import { assertKnownSnapshotChildren, createSnapshotRowsDeleter, withoutForeignKeys } from './retention-snapshot-rows.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/**
 * Folds 5-minute snapshots into hourly ones (migration 0021), one snapshot per transaction, oldest first. The first
 * snapshot taken in a UTC hour becomes the hour's snapshot (moved to the hour's start); each later one of the hour is
 * folded into it and deleted. A snapshot stands for the time to the next one, at most INTERVAL_CAP_MS (as the range
 * reads weigh it); the hour's snapshot stands for the sum of those times (fold_ms) and holds:
 *  - snapshots, snapshot_nodepools, snapshot_namespaces: time-weighted means (a NodePool or namespace absent from a
 *    snapshot counts 0 for its time); each snapshot_nodes row: its means over the time the node was there (its own
 *    fold_ms), so a node of 20 minutes weighs 20 minutes;
 *  - usage_snapshots, usage_namespaces, usage_nodepools: sums (their readers add snapshots up), fold_snapshots of them;
 *  - usage_nodes and usage_samples of a folded snapshot are deleted: node usage is kept per NodePool in usage_nodepools,
 *    container usage per workload-hour in usage_workload_hours (written once the hour is over, before any fold of it);
 *  - OOM kills keep their row and point at the hour's snapshot.
 * Means are updated as m + (x − m) × h ÷ (c + h): a value that did not change over the hour stays exactly itself.
 *
 * The same fold, one level up (migration 0030): hourly snapshots past the hourly retention into one per UTC day. An
 * hourly snapshot is folded as a 5-minute one is, weighing its fold_ms (each node row its own fold_ms) and counting its
 * fold_snapshots; its usage rows are already sums (usage_nodepools' allocatable too). fold_span_ms says which level a
 * folded snapshot is. Every figure over whole days is unchanged (to float noise: the means are blended, not re-read).
 *
 * Every table is read and written by explicit column lists (below): a column added to one of these tables later is
 * not folded (NULL or its default in hourly rows) until it is added here. A table referencing snapshots(id) that is
 * not handled here and in retention-snapshot-rows.ts stops retention with an error naming it.
 */

/** snapshots: time-weighted means. */
const SNAPSHOT_MEANS = ['node_count', 'pod_count'] as const;
/** snapshot_nodepools key and time-weighted means. */
const POOL_KEY = ['nodepool', 'capacity_type'] as const;
/** The snapshot's cluster (migration 0029): the same in every row of a snapshot, carried into the hour's rows. */
const POOL_NEWEST = ['cluster_id'] as const;
export const POOL_MEANS = [
  'nodes',
  'alloc_cpu_m',
  'alloc_memory_b',
  'alloc_pods',
  'alloc_gpu',
  'req_cpu_m',
  'req_memory_b',
  'req_pods',
  'req_gpu',
  'usd_per_hour',
  'cpu_eff_usd_per_hour',
  'memory_eff_usd_per_hour',
  'pods_eff_usd_per_hour',
  'gpu_eff_usd_per_hour',
  'gpu_nodes_usd_per_hour',
  'on_demand_usd_per_hour',
  // The relative-price weighting's sums (migration 0023).
  'rp_requested_usd_per_hour',
  'rp_cpu_usd_per_hour',
  'rp_gpu_usd_per_hour',
] as const;
/** snapshot_namespaces key, the newest value kept (team), and time-weighted means. */
const NAMESPACE_KEY = ['namespace', 'nodepool'] as const;
const NAMESPACE_NEWEST = ['team', 'cluster_id'] as const;
export const NAMESPACE_MEANS = [
  'pods',
  'req_cpu_m',
  'req_memory_b',
  'usd_per_hour',
  'cpu_share_usd_per_hour',
  'memory_share_usd_per_hour',
  'aws_split_usd_per_hour',
  'aws_split_cost_usd_per_hour',
  'aws_unused_cost_usd_per_hour',
  'opencost_usd_per_hour',
  'usage_pods',
] as const;
/** snapshot_nodes: the newest value kept (what the node is), and means over its time. */
const NODE_NEWEST = ['nodepool', 'capacity_type', 'instance_type', 'price_source', 'price_currency'] as const;
const NODE_MEANS = [
  'alloc_cpu_m',
  'alloc_memory_b',
  'alloc_pods',
  'alloc_gpu',
  'req_cpu_m',
  'req_memory_b',
  'req_pods',
  'req_gpu',
] as const;
/** usage_namespaces and usage_nodepools: sums. */
const USAGE_NAMESPACE_SUMS = [
  'pods',
  'pods_with_usage',
  'req_cpu_m',
  'req_memory_b',
  'req_cpu_m_with_usage',
  'req_memory_b_with_usage',
  'usage_cpu_m',
  'usage_memory_b',
] as const;
const USAGE_NODEPOOL_SUMS = [
  'nodes',
  'nodes_with_usage',
  'pod_usage_cpu_m',
  'pod_usage_memory_b',
  'node_usage_cpu_m',
  'node_usage_memory_b',
] as const;

const list = (cols: readonly string[], prefix = ''): string => cols.map((c) => `${prefix}${c}`).join(', ');
/** The blend of a mean with a new value weighing @r of the new total: m + (x − m) × r. */
const blend = (col: string, x: string): string => `${col} = ${col} + (${x} - ${col}) * @r`;
const on = (key: readonly string[], a: string, b: string): string => key.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');

export interface FoldedSnapshot {
  /** The 5-minute snapshot folded (its time as taken). */
  takenAt: number;
  /** The hour it was folded into. */
  hourMs: number;
  /** What it stood for, ms. */
  standsForMs: number;
  /** true: it became its hour's snapshot; false: it was folded into one and deleted. */
  becameHour: boolean;
  /** How long its transaction took, ms. */
  ms: number;
}

/**
 * Every column of the tables folded by means is a key, a mean or kept newest: a column a later migration adds is
 * named here, before anything is folded, rather than left as the first snapshot of the hour had it.
 */
function assertKnownFoldColumns(db: Db): void {
  const known: Record<string, readonly string[]> = {
    snapshot_nodepools: ['snapshot_id', 'taken_at', ...POOL_KEY, ...POOL_NEWEST, ...POOL_MEANS],
    snapshot_namespaces: ['snapshot_id', 'taken_at', ...NAMESPACE_KEY, ...NAMESPACE_NEWEST, ...NAMESPACE_MEANS],
  };
  for (const [table, columns] of Object.entries(known)) {
    const all = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
    const unknown = all.filter((c) => !columns.includes(c));
    if (unknown.length > 0)
      throw new Error(
        `retention cannot fold ${table}: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a key or a mean of db/repositories/retention-fold-repository.ts (add ${unknown.length === 1 ? 'it' : 'them'} there)`,
      );
  }
}

export function createRetentionFoldRepository(db: Db) {
  assertKnownSnapshotChildren(db);
  assertKnownFoldColumns(db);
  const oldestRaw = db.prepare(
    'SELECT id, taken_at AS takenAt, run_id AS runId, node_count AS nodeCount, pod_count AS podCount, cluster_id AS clusterId, fold_ms AS foldMs, fold_snapshots AS foldSnapshots FROM snapshots WHERE fold_ms IS NULL AND taken_at < ? ORDER BY taken_at LIMIT 1',
  );
  const rawBefore = db.prepare('SELECT COUNT(*) FROM snapshots WHERE fold_ms IS NULL AND taken_at < ?').pluck();
  const oldestHourly = db.prepare(
    `SELECT id, taken_at AS takenAt, run_id AS runId, node_count AS nodeCount, pod_count AS podCount, cluster_id AS clusterId, fold_ms AS foldMs, fold_snapshots AS foldSnapshots FROM snapshots WHERE fold_span_ms = ${HOUR_MS} AND taken_at < ? ORDER BY taken_at LIMIT 1`,
  );
  const hourlyBefore = db.prepare(`SELECT COUNT(*) FROM snapshots WHERE fold_span_ms = ${HOUR_MS} AND taken_at < ?`).pluck();
  // Each cluster's snapshots fold among themselves (migration 0029): its next snapshot, its hour's snapshot.
  const nextAfter = db.prepare('SELECT MIN(taken_at) FROM snapshots WHERE taken_at > ? AND cluster_id = ?').pluck();
  const spanSnapshot = db.prepare('SELECT id, fold_ms AS foldMs FROM snapshots WHERE taken_at = ? AND cluster_id = ? AND fold_span_ms = ?');
  const openUsageHour = db.prepare('SELECT MIN(hour_start) FROM usage_hours WHERE final = 0').pluck();
  const newest = db.prepare('SELECT MAX(taken_at) FROM snapshots').pluck();

  // ---- the first snapshot of an hour becomes the hour's ----------------------------------------------------------
  const become = [
    db.prepare(`UPDATE snapshots SET taken_at = @hour, fold_ms = @h, fold_snapshots = 1, fold_span_ms = ${HOUR_MS} WHERE id = @j`),
    db.prepare('UPDATE snapshot_node_rows SET fold_ms = @h, fold_snapshots = 1 WHERE snapshot_id = @j'),
    db.prepare('UPDATE snapshot_nodepools SET taken_at = @hour WHERE snapshot_id = @j'),
    db.prepare('UPDATE snapshot_namespaces SET taken_at = @hour WHERE snapshot_id = @j'),
    db.prepare(
      "UPDATE usage_snapshots SET taken_at = @hour, fold_snapshots = 1, fold_available = (state = 'available') WHERE snapshot_id = @j",
    ),
    db.prepare('UPDATE usage_namespaces SET taken_at = @hour, fold_snapshots = 1 WHERE snapshot_id = @j'),
    db.prepare(`
      UPDATE usage_nodepools SET taken_at = @hour, fold_snapshots = 1,
        alloc_cpu_m = (SELECT TOTAL(p.alloc_cpu_m) FROM snapshot_nodepools p WHERE p.snapshot_id = @j AND p.nodepool = usage_nodepools.nodepool),
        alloc_memory_b = (SELECT TOTAL(p.alloc_memory_b) FROM snapshot_nodepools p WHERE p.snapshot_id = @j AND p.nodepool = usage_nodepools.nodepool)
      WHERE snapshot_id = @j`),
    // By time: usage_sample_rows (under the usage_samples view, migration 0031) has no index on snapshot_id (a sample's
    // taken_at is its snapshot's).
    // Of the snapshot's own cluster: another cluster's snapshot may share the instant.
    db.prepare(
      'DELETE FROM usage_sample_rows WHERE taken_at = @t AND dims_id IN (SELECT d.id FROM usage_sample_dims d JOIN snapshots s ON s.cluster_id = d.cluster_id WHERE s.id = @j)',
    ),
    db.prepare('DELETE FROM usage_node_rows WHERE snapshot_id = @j'),
  ];

  // ---- the first hourly snapshot of a day becomes the day's: its rows are already folded, they move ------------
  const becomeDay = [
    db.prepare(`UPDATE snapshots SET taken_at = @hour, fold_span_ms = ${DAY_MS} WHERE id = @j`),
    ...['snapshot_nodepools', 'snapshot_namespaces', 'usage_snapshots', 'usage_namespaces', 'usage_nodepools'].map((t) =>
      db.prepare(`UPDATE ${t} SET taken_at = @hour WHERE snapshot_id = @j`),
    ),
  ];

  // ---- a later snapshot of the hour folded into the hour's (@f), weighing @r = h / (c + h) of it ------------------
  const intoSnapshot = db.prepare(`
    UPDATE snapshots SET ${SNAPSHOT_MEANS.map((c) => blend(c, `@${c}`)).join(', ')},
      fold_ms = fold_ms + @h, fold_snapshots = fold_snapshots + @n, run_id = COALESCE(@runId, run_id)
    WHERE id = @f`);
  /** A keyed table of means: rows only in the hour's snapshot are blended with 0, matched rows with the new value, new keys added. */
  const keyedMeans = (table: string, key: readonly string[], means: readonly string[], newest: readonly string[]) => [
    db.prepare(`
      UPDATE ${table} SET ${means.map((c) => `${c} = ${c} - ${c} * @r`).join(', ')}
      WHERE snapshot_id = @f AND NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.snapshot_id = @j AND ${on(key, 'x', table)})`),
    db.prepare(`
      UPDATE ${table} AS f SET ${[...means.map((c) => `${c} = f.${c} + (x.${c} - f.${c}) * @r`), ...newest.map((c) => `${c} = x.${c}`)].join(', ')}
      FROM ${table} x WHERE f.snapshot_id = @f AND x.snapshot_id = @j AND ${on(key, 'x', 'f')}`),
    db.prepare(`
      INSERT INTO ${table} (snapshot_id, taken_at, ${list(key)}, ${list(newest)}${newest.length ? ', ' : ''}${list(means)})
      SELECT @f, @hour, ${list(key, 'x.')}, ${list(newest, 'x.')}${newest.length ? ', ' : ''}${means.map((c) => `x.${c} * @r`).join(', ')}
      FROM ${table} x WHERE x.snapshot_id = @j AND NOT EXISTS (SELECT 1 FROM ${table} f WHERE f.snapshot_id = @f AND ${on(key, 'f', 'x')})`),
  ];
  // Per node, weighted by the node's own time: a node new in the hour starts at its values and this snapshot's time.
  // The rows are snapshot_node_rows under the snapshot_nodes view (migration 0026): what the node is (kept newest) and
  // its allocatable (a mean) are its node_dims row. Set-based, by node id, for the nodes that stayed what they were
  // (all but a few): their row in the hour is updated, a node new in the hour gets one. A node that changed (another
  // node_dims row in the hour's snapshot under its name) is folded one by one: its allocatable mean may need a new
  // node_dims row (through the view's INSERT). Each expression is the one the upsert on the old table computed, in the
  // same order, so the means are the same bits.
  // x's time: the 5-minute snapshot's (@h), or an hourly row's own fold_ms (the daily fold); likewise its count.
  const xh = 'COALESCE(x.fold_ms, @h)';
  const xn = 'COALESCE(x.fold_snapshots, 1)';
  const w = `CAST(${xh} AS REAL) / (f.fold_ms + ${xh})`;
  const REQ = NODE_MEANS.filter((c) => c.startsWith('req_'));
  const ALLOC = NODE_MEANS.filter((c) => c.startsWith('alloc_'));
  const usd = `CASE WHEN f.usd_per_hour IS NULL THEN x.usd_per_hour WHEN x.usd_per_hour IS NULL THEN f.usd_per_hour
    ELSE f.usd_per_hour + (x.usd_per_hour - f.usd_per_hour) * ${w} END`;
  const sameNodes = db.prepare(`
    UPDATE snapshot_node_rows AS f SET ${REQ.map((c) => `${c} = f.${c} + (x.${c} - f.${c}) * ${w}`).join(', ')},
      usd_per_hour = ${usd}, fold_ms = f.fold_ms + ${xh}, fold_snapshots = f.fold_snapshots + ${xn}
    FROM snapshot_node_rows x WHERE f.snapshot_id = @f AND x.snapshot_id = @j AND x.node_id = f.node_id`);
  /** The hour's row of a node of the same name (any node_dims row of it), for `x`: by name, then by key (CROSS JOIN keeps
   *  that order; the planner would otherwise walk the hour's rows for every x). */
  const inHour = `SELECT 1 FROM node_dims dx CROSS JOIN node_dims df ON df.node_name = dx.node_name CROSS JOIN snapshot_node_rows f
    ON f.snapshot_id = @f AND f.node_id = df.id WHERE dx.id = x.node_id`;
  const newNodes = db.prepare(`
    INSERT INTO snapshot_node_rows (snapshot_id, node_id, ${list(REQ)}, usd_per_hour, fold_ms, fold_snapshots)
    SELECT @f, x.node_id, ${list(REQ, 'x.')}, x.usd_per_hour, ${xh}, ${xn} FROM snapshot_node_rows x WHERE x.snapshot_id = @j AND NOT EXISTS (${inHour})`);
  const changedNodes = db.prepare(`
    SELECT x.node_id AS xId, f.node_id AS fId, dx.node_name, ${list(NODE_NEWEST, 'dx.')},
      ${ALLOC.map((c) => `df.${c} + (dx.${c} - df.${c}) * ${w} AS ${c}`).join(', ')},
      ${REQ.map((c) => `f.${c} + (x.${c} - f.${c}) * ${w} AS ${c}`).join(', ')},
      ${usd} AS usd_per_hour, f.fold_ms + ${xh} AS fold_ms, f.fold_snapshots + ${xn} AS fold_snapshots,
      (${ALLOC.map((c) => `df.${c} = dx.${c}`).join(' AND ')}) AS sameAsX
    FROM snapshot_node_rows x CROSS JOIN node_dims dx ON dx.id = x.node_id
      CROSS JOIN node_dims df ON df.node_name = dx.node_name AND df.id <> dx.id
      CROSS JOIN snapshot_node_rows f ON f.snapshot_id = @f AND f.node_id = df.id
    WHERE x.snapshot_id = @j`);
  const nodeRowInsert = db.prepare(`
    INSERT INTO snapshot_node_rows (snapshot_id, node_id, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, fold_ms, fold_snapshots)
    VALUES (@f, @id, @req_cpu_m, @req_memory_b, @req_pods, @req_gpu, @usd_per_hour, @fold_ms, @fold_snapshots)`);
  const nodeRowDelete = db.prepare('DELETE FROM snapshot_node_rows WHERE snapshot_id = @f AND node_id = @id');
  const nodeViewInsert = db.prepare(`
    INSERT INTO snapshot_nodes (snapshot_id, node_name, ${list(NODE_NEWEST)}, ${list(NODE_MEANS)}, usd_per_hour, fold_ms, fold_snapshots)
    VALUES (@f, @node_name, ${list(NODE_NEWEST, '@')}, ${list(NODE_MEANS, '@')}, @usd_per_hour, @fold_ms, @fold_snapshots)`);
  interface ChangedNode {
    xId: number;
    fId: number;
    sameAsX: number;
    [column: string]: unknown;
  }
  const intoNodes = (p: { f: number; j: number; h: number }): void => {
    // The changed ones first, read before the hour's rows move; then the rest by id.
    const changed = changedNodes.all(p) as ChangedNode[];
    sameNodes.run(p);
    newNodes.run(p);
    for (const n of changed) {
      const row = { ...n, f: p.f };
      nodeRowDelete.run({ f: p.f, id: n.fId });
      if (n.sameAsX === 1) nodeRowInsert.run({ ...row, id: n.xId });
      else nodeViewInsert.run(row);
    }
  };
  const usageSums = [
    db.prepare(`
      INSERT INTO usage_snapshots (snapshot_id, taken_at, state, message, pods_with_usage, fold_snapshots, fold_available, cluster_id)
      SELECT @f, @hour, x.state, x.message, x.pods_with_usage, COALESCE(x.fold_snapshots, 1), COALESCE(x.fold_available, x.state = 'available'), x.cluster_id
      FROM usage_snapshots x WHERE x.snapshot_id = @j
      ON CONFLICT (snapshot_id) DO UPDATE SET pods_with_usage = pods_with_usage + excluded.pods_with_usage,
        fold_snapshots = COALESCE(fold_snapshots, 1) + excluded.fold_snapshots, fold_available = COALESCE(fold_available, state = 'available') + excluded.fold_available,
        state = CASE WHEN state = 'available' OR excluded.state = 'available' THEN 'available' ELSE excluded.state END,
        message = CASE WHEN excluded.state = 'available' THEN message ELSE excluded.message END`),
    db.prepare(`
      INSERT INTO usage_namespaces (snapshot_id, taken_at, namespace, nodepool, ${list(USAGE_NAMESPACE_SUMS)}, fold_snapshots, cluster_id)
      SELECT @f, @hour, x.namespace, x.nodepool, ${list(USAGE_NAMESPACE_SUMS, 'x.')}, COALESCE(x.fold_snapshots, 1), x.cluster_id
      FROM usage_namespaces x WHERE x.snapshot_id = @j
      ON CONFLICT (snapshot_id, namespace, nodepool) DO UPDATE SET
        ${USAGE_NAMESPACE_SUMS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}, fold_snapshots = COALESCE(fold_snapshots, 1) + excluded.fold_snapshots`),
    db.prepare(`
      INSERT INTO usage_nodepools (snapshot_id, taken_at, nodepool, ${list(USAGE_NODEPOOL_SUMS)}, fold_snapshots, alloc_cpu_m, alloc_memory_b, cluster_id)
      SELECT @f, @hour, x.nodepool, ${list(USAGE_NODEPOOL_SUMS, 'x.')}, COALESCE(x.fold_snapshots, 1),
        COALESCE(x.alloc_cpu_m, (SELECT TOTAL(p.alloc_cpu_m) FROM snapshot_nodepools p WHERE p.snapshot_id = @j AND p.nodepool = x.nodepool)),
        COALESCE(x.alloc_memory_b, (SELECT TOTAL(p.alloc_memory_b) FROM snapshot_nodepools p WHERE p.snapshot_id = @j AND p.nodepool = x.nodepool)),
        x.cluster_id
      FROM usage_nodepools x WHERE x.snapshot_id = @j
      ON CONFLICT (snapshot_id, nodepool) DO UPDATE SET
        ${USAGE_NODEPOOL_SUMS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}, fold_snapshots = COALESCE(fold_snapshots, 1) + excluded.fold_snapshots,
        alloc_cpu_m = COALESCE(alloc_cpu_m, 0) + excluded.alloc_cpu_m, alloc_memory_b = COALESCE(alloc_memory_b, 0) + excluded.alloc_memory_b`),
    db.prepare('UPDATE usage_oom_kills SET snapshot_id = @f WHERE snapshot_id = @j'),
  ];
  // What was folded goes, with every row that references it (retention-snapshot-rows.ts).
  const removeFolded = createSnapshotRowsDeleter(db);
  const pools = keyedMeans('snapshot_nodepools', POOL_KEY, POOL_MEANS, POOL_NEWEST);
  const namespaces = keyedMeans('snapshot_namespaces', NAMESPACE_KEY, NAMESPACE_MEANS, NAMESPACE_NEWEST);

  interface RawSnapshot {
    id: number;
    takenAt: number;
    runId: number | null;
    nodeCount: number;
    podCount: number;
    clusterId: number;
    foldMs: number | null;
    foldSnapshots: number | null;
  }

  /** Folds `s` into the snapshot of its span (an hour or a day) standing for `h` ms; true when it became that one. */
  const foldInto = (s: RawSnapshot, h: number, span: number, hour: number): boolean => {
    const f = spanSnapshot.get(hour, s.clusterId, span) as { id: number; foldMs: number } | undefined;
    if (f === undefined) {
      for (const st of span === HOUR_MS ? become : becomeDay) st.run({ j: s.id, t: s.takenAt, hour, h });
      return true;
    }
    const r = h / (f.foldMs + h);
    const p = { f: f.id, j: s.id, hour, h, r };
    intoSnapshot.run({ f: f.id, h, r, n: s.foldSnapshots ?? 1, runId: s.runId, node_count: s.nodeCount, pod_count: s.podCount });
    for (const st of [...pools, ...namespaces]) st.run(p);
    intoNodes({ f: f.id, j: s.id, h });
    for (const st of usageSums) st.run({ f: f.id, j: s.id, hour });
    removeFolded(s.id, s.takenAt);
    return false;
  };

  /** Folds snapshot `s` (the oldest as taken, before `boundaryMs`); null when there was none left. */
  const foldOne = db.transaction((boundaryMs: number): FoldedSnapshot | null => {
    const t0 = performance.now();
    const s = oldestRaw.get(boundaryMs) as RawSnapshot | undefined;
    if (s === undefined) return null;
    const next = nextAfter.get(s.takenAt, s.clusterId) as number | null;
    // The newest snapshot stands for no time yet: it is never folded (the boundary keeps its hour as taken).
    if (next === null) return null;
    const h = Math.min(next - s.takenAt, INTERVAL_CAP_MS);
    const hour = Math.floor(s.takenAt / HOUR_MS) * HOUR_MS;
    const becameHour = foldInto(s, h, HOUR_MS, hour);
    return { takenAt: s.takenAt, hourMs: hour, standsForMs: h, becameHour, ms: performance.now() - t0 };
  });

  /** Folds the oldest hourly snapshot before `boundaryMs` into its UTC day's; null when none is left. */
  const foldDayOne = db.transaction((boundaryMs: number): FoldedSnapshot | null => {
    const t0 = performance.now();
    const s = oldestHourly.get(boundaryMs) as RawSnapshot | undefined;
    if (s === undefined) return null;
    const h = s.foldMs ?? HOUR_MS;
    const day = Math.floor(s.takenAt / DAY_MS) * DAY_MS;
    const becameDay = foldInto(s, h, DAY_MS, day);
    return { takenAt: s.takenAt, hourMs: day, standsForMs: h, becameHour: becameDay, ms: performance.now() - t0 };
  });

  return {
    /** The newest snapshot's time, epoch ms; null without any. */
    newestSnapshotMs: (): number | null => (newest.get() as number | null) ?? null,
    /**
     * Where folding may go up to: `boundaryMs`, but never into an hour whose usage is not rolled up yet (its samples
     * are still needed; the next snapshot of a later hour rolls it up).
     */
    foldLimitMs(boundaryMs: number): number {
      const open = openUsageHour.get() as number | null;
      return open === null ? boundaryMs : Math.min(boundaryMs, open);
    },
    /** 5-minute snapshots left to fold before `boundaryMs`. */
    pending: (boundaryMs: number): number => rawBefore.get(boundaryMs) as number,
    /** Folds the oldest 5-minute snapshot taken before `boundaryMs`, in one transaction; null when none is left. */
    foldOne: (boundaryMs: number): FoldedSnapshot | null => withoutForeignKeys(db, () => foldOne.immediate(boundaryMs)),
    /** Hourly snapshots left to fold into days before `boundaryMs` (a UTC day's start). */
    pendingDays: (boundaryMs: number): number => hourlyBefore.get(boundaryMs) as number,
    /** Folds the oldest hourly snapshot taken before `boundaryMs` into its day's, in one transaction; null when none is left. */
    foldDayOne: (boundaryMs: number): FoldedSnapshot | null => withoutForeignKeys(db, () => foldDayOne.immediate(boundaryMs)),
  };
}

export type RetentionFoldRepository = ReturnType<typeof createRetentionFoldRepository>;
