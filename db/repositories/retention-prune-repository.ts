import type { Db } from '../open-db.js';
import { DAY_MS, HOUR_MS, WEEK_MS } from '../../core/time.js';
import { createAlertPruneSteps } from './alert-prune-steps.js';
import { CUR_RESOURCE_DELETES } from './cur-repository.js';
import { OPEN_LAST_SEEN } from './pod-rows.js';
import { QUARTER_DAY_MS } from './range-pieces.js';
import { assertKnownSnapshotChildren, createSnapshotRowsDeleter, withoutForeignKeys } from './retention-snapshot-rows.js';

/**
 * Deletes what is older than the retention's horizon (issue 24), a bounded batch per transaction so that no write
 * holds the file for long: hourly snapshots with their rows, the hour/quarter-day/day/week rollups, events, kept disruptions,
 * Cost Explorer lines, CUR billing periods, prices superseded before the horizon, usage rollups and OOM kills, API
 * request counts, finished collection runs, the pods, nodes and NodeClaims last seen before it, and resolved alerts with
 * their finished deliveries (alert-prune-steps.ts).
 *
 * The horizon is a multiple of 7 days from the epoch (core/retention.ts horizonMs), so the hour, quarter, day and week rollups
 * end at one instant. Deleting events would mark the kept disruptions for a rebuild from the horizon (their trigger):
 * the mark is put back as it was, since what they hold after the horizon does not change.
 */

/** One kind of row to delete: runs one batch in its own transaction and says how many rows went, and whether more may. */
export interface PruneStep {
  name: string;
  /** Deletes up to about `limit` rows older than `cutMs`. */
  batch: (cutMs: number, limit: number) => PruneBatch;
}

export interface PruneBatch {
  deleted: number;
  /** false: nothing of this kind is left before the cut. */
  more: boolean;
}

/** A batch that deleted `n` of at most `limit`: more may be left only when it was full. */
const byCount = (n: number, limit: number): PruneBatch => ({ deleted: n, more: n >= limit });

/** Rowid windows swept per batch for tables without an index on last_seen (pods, nodes, NodeClaims). */
const ROWID_WINDOW = 5_000;

export function createRetentionPruneRepository(db: Db) {
  assertKnownSnapshotChildren(db);
  const tx = <A extends unknown[]>(fn: (...a: A) => PruneBatch) => {
    const t = db.transaction(fn);
    return (...a: A): PruneBatch => t.immediate(...a);
  };

  const oldSnapshots = db.prepare('SELECT id, taken_at AS takenAt FROM snapshots WHERE taken_at < ? ORDER BY taken_at LIMIT ?');
  const snapshotNodeRows = db.prepare('SELECT COUNT(*) FROM snapshot_nodes WHERE snapshot_id = ?').pluck();
  const deleteSnapshot = createSnapshotRowsDeleter(db);
  /** Snapshots one at a time while they are big (an envelope hour holds 5,000 node rows), more while they are small. */
  const snapshotsTx = tx((cutMs: number, limit: number): PruneBatch => {
    let rows = 0;
    const ids = oldSnapshots.all(cutMs, limit) as { id: number; takenAt: number }[];
    for (const { id, takenAt } of ids) {
      rows += (snapshotNodeRows.get(id) as number) + 1;
      deleteSnapshot(id, takenAt);
      if (rows >= limit) return { deleted: rows, more: true };
    }
    return { deleted: rows, more: ids.length >= limit };
  });
  const snapshots = (cutMs: number, limit: number): PruneBatch => withoutForeignKeys(db, () => snapshotsTx(cutMs, limit));

  // Whole buckets before the cut, each span by its own primary-key range.
  const rollup = (table: string) =>
    db.prepare(`
      DELETE FROM ${table} WHERE (span_ms = ${HOUR_MS} AND bucket_ms < @cut - ${HOUR_MS - 1})
        OR (span_ms = ${QUARTER_DAY_MS} AND bucket_ms < @cut - ${QUARTER_DAY_MS - 1})
        OR (span_ms = ${DAY_MS} AND bucket_ms < @cut - ${DAY_MS - 1}) OR (span_ms = ${WEEK_MS} AND bucket_ms < @cut - ${WEEK_MS - 1})
      LIMIT @limit`);

  const dirty = db.prepare('SELECT dirty_from_ms FROM disruptions_state WHERE id = 1').pluck();
  const setDirty = db.prepare('UPDATE disruptions_state SET dirty_from_ms = ? WHERE id = 1');
  const deleteEvents = db.prepare('DELETE FROM events WHERE at < @cut LIMIT @limit');
  const events = tx((cutMs: number, limit: number): PruneBatch => {
    const before = dirty.get() as number | null | undefined;
    const n = deleteEvents.run({ cut: cutMs, limit }).changes;
    setDirty.run(before ?? null);
    return byCount(n, limit);
  });

  const curPeriodBefore = db.prepare('SELECT source, billing_period AS period FROM cur_periods WHERE billing_period < ? LIMIT 1');
  // Resource days from migration 0031's tables (cur_resource_daily is a view over them).
  const curTables = [
    ...CUR_RESOURCE_DELETES,
    ...['cur_namespace_daily', 'cur_nodepool_daily', 'cur_files'].map(
      (t) => `DELETE FROM ${t} WHERE source = @source AND billing_period = @period LIMIT @limit`,
    ),
  ].map((sql) => db.prepare(sql));
  const deleteCurPeriod = db.prepare('DELETE FROM cur_periods WHERE source = @source AND billing_period = @period');
  /** A billing period wholly before the cut's month, its daily rows in batches, its own row last. */
  const cur = tx((cutMs: number, limit: number): PruneBatch => {
    const p = curPeriodBefore.get(new Date(cutMs).toISOString().slice(0, 7)) as { source: string; period: string } | undefined;
    if (p === undefined) return { deleted: 0, more: false };
    let n = 0;
    for (const d of curTables) {
      n += d.run({ ...p, limit: limit - n }).changes;
      if (n >= limit) return { deleted: n, more: true };
    }
    return { deleted: n + deleteCurPeriod.run(p).changes, more: true };
  });

  // A price superseded before the cut: the newest one at or before the cut still prices what comes after it.
  const prices = db.prepare(`
    DELETE FROM prices WHERE effective_at < @cut AND EXISTS (
      SELECT 1 FROM prices n WHERE n.kind = prices.kind AND n.region = prices.region AND n.instance_type = prices.instance_type
        AND n.zone = prices.zone AND n.effective_at > prices.effective_at AND n.effective_at <= @cut)
    LIMIT @limit`);

  const runs = db.prepare(`
    DELETE FROM collection_runs WHERE started_at < @cut AND finished_at IS NOT NULL AND finished_at < @cut
      AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.run_id = collection_runs.id)
      AND NOT EXISTS (SELECT 1 FROM api_requests a WHERE a.run_id = collection_runs.id)
    LIMIT @limit`);

  /**
   * Pods, nodes and NodeClaims last seen before the cut, swept in rowid windows (no index on last_seen). An open row
   * (OPEN_LAST_SEEN: listed by its cluster's newest snapshot) was last seen at that snapshot: before the cut only in a
   * cluster with no snapshot since the cut (a store unwritten for the whole horizon).
   */
  const sweep = (name: string, table = name): PruneStep => {
    const span = db.prepare(`SELECT MIN(rowid) AS lo, MAX(rowid) AS hi FROM ${table}`);
    const del = db.prepare(`
      DELETE FROM ${table} WHERE rowid >= @a AND rowid < @b AND (last_seen < @cut OR (last_seen = ${OPEN_LAST_SEEN} AND cluster_id IN (
        SELECT k.id FROM clusters k WHERE NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.cluster_id = k.id AND s.taken_at >= @cut))))`);
    let from: number | null = null;
    return {
      name,
      batch: tx((cutMs: number): PruneBatch => {
        const s = span.get() as { lo: number | null; hi: number | null };
        const a = Math.max(from ?? s.lo ?? 0, s.lo ?? 0);
        if (s.hi === null || a > s.hi) {
          from = null;
          return { deleted: 0, more: false };
        }
        const b = a + ROWID_WINDOW;
        from = b;
        return { deleted: del.run({ a, b, cut: cutMs }).changes, more: b <= s.hi };
      }),
    };
  };

  const simple = (name: string, st: ReturnType<Db['prepare']>): PruneStep => ({
    name,
    batch: tx((cutMs: number, limit: number): PruneBatch => byCount(st.run({ cut: cutMs, limit }).changes, limit)),
  });

  // What collect21 keeps beside the snapshots (migration 0019) and the efficiency chart's hour sums (0022): versions
  // that ended before the cut, then bodies and pod specs nothing references any more (pods swept first, so a spec
  // whose last pod went is found). Orphans are found by key, a bounded batch at a time.
  const orphanBodies = db.prepare(`
    DELETE FROM kube_object_bodies WHERE hash IN (
      SELECT b.hash FROM kube_object_bodies b WHERE NOT EXISTS (SELECT 1 FROM kube_object_versions v WHERE v.hash = b.hash) LIMIT @limit)`);
  // Pods are pod_rows beside what their workload's pods share (migration 0027): a pod_dims row no pod references any
  // more goes with its last pod, then a spec no pod_dims row names.
  const orphanPodDims = db.prepare(`
    DELETE FROM pod_dims WHERE id IN (
      SELECT d.id FROM pod_dims d WHERE NOT EXISTS (SELECT 1 FROM pod_rows r WHERE r.dims_id = d.id) LIMIT @limit)`);
  const orphanSpecs = db.prepare(`
    DELETE FROM pod_specs WHERE hash IN (
      SELECT s.hash FROM pod_specs s WHERE NOT EXISTS (SELECT 1 FROM pod_dims d WHERE d.spec_hash = s.hash) LIMIT @limit)`);
  // An orphan is found by key, not by time: the cut is not used.
  const orphans = (st: ReturnType<Db['prepare']>) =>
    tx((_cutMs: number, limit: number): PruneBatch => byCount(st.run({ limit }).changes, limit));

  const steps: PruneStep[] = [
    { name: 'snapshots', batch: snapshots },
    simple('rollup_spans', rollup('rollup_spans')),
    simple('rollup_nodepools', rollup('rollup_nodepools')),
    simple('rollup_namespaces', rollup('rollup_namespaces')),
    { name: 'events', batch: events },
    simple('disruptions', db.prepare('DELETE FROM disruptions WHERE at < @cut LIMIT @limit')),
    // Whole quarters before the cut (a multiple of 7 days: the quarters' counts end where the disruptions do).
    simple(
      'disruption_quarters',
      db.prepare(`DELETE FROM disruption_quarters WHERE bucket_ms < @cut - ${QUARTER_DAY_MS - 1} LIMIT @limit`),
    ),
    simple('cost_lines', db.prepare('DELETE FROM cost_lines WHERE period_start_ms < @cut LIMIT @limit')),
    { name: 'cur', batch: cur },
    simple('prices', prices),
    simple('usage_workload_hours', db.prepare('DELETE FROM usage_workload_hours WHERE hour_start < @cut LIMIT @limit')),
    simple('usage_hours', db.prepare('DELETE FROM usage_hours WHERE hour_start < @cut AND final = 1 LIMIT @limit')),
    simple('usage_oom_kills', db.prepare('DELETE FROM usage_oom_kills WHERE at < @cut LIMIT @limit')),
    simple('api_requests', db.prepare('DELETE FROM api_requests WHERE at < @cut LIMIT @limit')),
    simple('collection_runs', runs),
    sweep('pods', 'pod_rows'),
    sweep('nodes'),
    sweep('nodeclaims'),
    simple('usage_nodepool_hours', db.prepare('DELETE FROM usage_nodepool_hours WHERE hour_ms < @cut LIMIT @limit')),
    simple('karpenter_explanations', db.prepare('DELETE FROM karpenter_explanations WHERE at < @cut LIMIT @limit')),
    simple(
      'kube_object_versions',
      db.prepare(`
        DELETE FROM kube_object_versions WHERE (kind, namespace, name, first_seen) IN (
          SELECT kind, namespace, name, first_seen FROM kube_object_versions WHERE last_seen < @cut LIMIT @limit)`),
    ),
    { name: 'kube_object_bodies', batch: orphans(orphanBodies) },
    { name: 'pod_dims', batch: orphans(orphanPodDims) },
    { name: 'pod_specs', batch: orphans(orphanSpecs) },
    // resolved alerts, finished deliveries and their attempts (migration 0025)
    ...createAlertPruneSteps(db),
  ];
  return { steps };
}

export type RetentionPruneRepository = ReturnType<typeof createRetentionPruneRepository>;
