import type { Disruption, DisruptionPageQuery, MarkerGroup, MarkerSource } from '../../core/disruption.js';
import { buildDisruptions, DISRUPTION_EDGE_MS } from '../../core/karpenter/disruptions.js';
import type { Db } from '../open-db.js';
import { createAnalyticsEventsRepository } from './analytics-events-repository.js';
import { QUARTER_DAY_MS } from './range-pieces.js';
import { WEEK_MS } from '../../core/time.js';

/**
 * Kept disruptions (migrations 0009, 0011): replaced from a time on by the writer when the triggers say the events,
 * nodes or NodeClaims behind them changed (refresh(), called in the writer's own transaction), and read by time.
 * What a disruption is stays in core/karpenter/disruptions.ts; this file stores its output and reads it back.
 */

/**
 * A rebuild starts this long before the earliest change: whatever a change can alter (a pairing, a grouping) lies
 * within DISRUPTION_EDGE_MS of it. (A NodeClaim deleted long after its removal event is matched in SQL, however far.)
 */
export const REBUILD_LOOKBACK_MS = DISRUPTION_EDGE_MS;
/** A long rebuild (the first one on a big database) goes a week at a time, so memory stays bounded. */
const REBUILD_CHUNK_MS = WEEK_MS;

export interface RefreshResult {
  rebuiltFromMs: number;
  rows: number;
  ms: number;
}

interface RawDisruption {
  id: string;
  at: number;
  node_name: string | null;
  nodeclaim: string | null;
  nodepool: string;
  reason: string;
  action: string | null;
  source: string;
  spot_interrupted: number;
  instance_type: string | null;
  capacity_type: string | null;
  node_deleted_at: number | null;
  replacements_json: string;
  message: string;
  blocked: number;
  cluster_id: number;
}

export function createDisruptionsRepository(db: Db) {
  const sources = createAnalyticsEventsRepository(db);
  const dirty = db.prepare('SELECT dirty_from_ms FROM disruptions_state WHERE id = 1').pluck();
  const clean = db.prepare('UPDATE disruptions_state SET dirty_from_ms = NULL WHERE id = 1');
  const newest = db
    .prepare(
      `
    SELECT MAX(t) FROM (SELECT MAX(at) AS t FROM events UNION ALL SELECT MAX(deleted_at) FROM nodeclaims)`,
    )
    .pluck();
  const oldest = db
    .prepare(
      `
    SELECT MIN(t) FROM (SELECT MIN(at) AS t FROM events UNION ALL SELECT MIN(deleted_at) FROM nodeclaims)`,
    )
    .pluck();
  const deleteFrom = db.prepare('DELETE FROM disruptions WHERE at >= CAST(? AS INTEGER)');
  const insert = db.prepare(`
    INSERT INTO disruptions (id, at, node_name, nodeclaim, nodepool, reason, action, source, spot_interrupted, instance_type, capacity_type,
      replacements_json, message, blocked, seq, cluster_id)
    VALUES (@id, @atMs, @nodeName, @nodeClaim, @nodePool, @reason, @action, @source, @spotInterrupted, @instanceType, @capacityType,
      @replacements, @message, @blocked, @seq, @clusterId)`);
  // The ledger's clusters: each is built on its own (its events never paired with another's NodeClaims).
  const clusterIds = db.prepare('SELECT id FROM clusters ORDER BY id').pluck();
  // The node's deletion comes after its events, so it is joined here, as the analytics would have joined it:
  // the node's, else its NodeClaim's; a NodeClaim gone without events carries its own.
  const SELECT_JOINED = `
    SELECT d.id, d.at, d.node_name, d.nodeclaim, d.nodepool, d.reason, d.action, d.source, d.spot_interrupted, d.instance_type,
           d.capacity_type, d.replacements_json, d.message, d.blocked, d.cluster_id,
           CASE WHEN d.source = 'nodeclaim' THEN c.deleted_at ELSE COALESCE(n.deleted_at, c.deleted_at) END AS node_deleted_at
    FROM disruptions d
    LEFT JOIN nodes n ON n.name = d.node_name AND n.cluster_id = d.cluster_id
    LEFT JOIN nodeclaims c ON c.name = d.nodeclaim AND c.cluster_id = d.cluster_id`;
  const inRange = db.prepare(
    `${SELECT_JOINED} WHERE d.at >= CAST(@fromMs AS INTEGER) AND d.at < CAST(@toMs AS INTEGER)
      AND (@clusterId IS NULL OR d.cluster_id = @clusterId) ORDER BY d.at, d.seq`,
  );
  // A page of the list: the filters, counts and paging in SQL, so a month costs an index range, not a row per disruption.
  const FILTER = `d.at >= CAST(@fromMs AS INTEGER) AND d.at < CAST(@toMs AS INTEGER)
      AND (@kind = 'all' OR d.blocked = (@kind = 'blocked'))
      AND (@nodePool IS NULL OR d.nodepool = @nodePool) AND (@reason IS NULL OR d.reason = @reason)
      AND (@clusterId IS NULL OR d.cluster_id = @clusterId)`;
  const pageRows = db.prepare(`${SELECT_JOINED} WHERE ${FILTER} ORDER BY d.at, d.seq LIMIT @limit OFFSET @offset`);
  const pageCounts = db
    .prepare(
      `
    SELECT CASE WHEN d.blocked = 1 THEN 'Blocked' ELSE d.reason END AS k, COUNT(*) FROM disruptions d WHERE ${FILTER} GROUP BY k`,
    )
    .raw(true);

  // What timeline markers are made of: the disruptions (not blocked attempts) in the range, in order. Thinning them
  // is timelineMarkers() in server/analytics/disruptions.ts: done in SQL with window functions it cost a month
  // (5,900 disruptions) 25 ms against 5 ms for reading them (npm run bench, store).
  const markerRows = db
    .prepare(
      `
    SELECT id, at, nodepool, reason, action, cluster_id FROM disruptions
    WHERE at >= CAST(@fromMs AS INTEGER) AND at < CAST(@toMs AS INTEGER) AND blocked = 0 AND (@nodePool IS NULL OR nodepool = @nodePool)
      AND (@clusterId IS NULL OR cluster_id = @clusterId)
    ORDER BY at, seq`,
    )
    .raw(true);

  // One disruption as a group of one, in [lo, hi): the partial quarters at the edges of a range read by quarters.
  const RAW_MARKERS = (lo: string, hi: string) => `
      SELECT CAST(at AS INTEGER) / CAST(@bucketMs AS INTEGER) AS b, cluster_id, nodepool, reason, 1 AS n, at AS first_at, at AS last_at
      FROM disruptions
      WHERE at >= CAST(${lo} AS INTEGER) AND at < CAST(${hi} AS INTEGER) AND blocked = 0 AND (@nodePool IS NULL OR nodepool = @nodePool)
        AND (@clusterId IS NULL OR cluster_id = @clusterId)`;
  // Each group's first disruption (the lowest seq at its earliest time), looked up by its time.
  const FIRST_OF_GROUPS = `
    SELECT f.id, g.first_at, g.nodepool, g.reason, f.action, g.cluster_id, g.n, g.last_at
    FROM g JOIN disruptions f ON f.rowid = (
      SELECT d.rowid FROM disruptions d
      WHERE d.at = g.first_at AND d.blocked = 0 AND d.cluster_id = g.cluster_id AND d.nodepool = g.nodepool AND d.reason = g.reason
      ORDER BY d.seq LIMIT 1)
    ORDER BY g.first_at, f.seq`;
  // The same disruptions counted per bucket (aligned on the epoch) x cluster x NodePool x reason, each group with its
  // first row's id and action (the lowest seq at its earliest time) and its last time: what timelineMarkers() thins
  // when a range holds more than a timeline shows, without a JS object per disruption (a 90-day range at 5,000
  // nodes is some 90,000 of them; npm run bench, store-year).
  const markerGroups = db
    .prepare(
      `
    WITH g AS (
      SELECT at / CAST(@bucketMs AS INTEGER) AS b, cluster_id, nodepool, reason, COUNT(*) AS n, MIN(at) AS first_at, MAX(at) AS last_at
      FROM disruptions
      WHERE at >= CAST(@fromMs AS INTEGER) AND at < CAST(@toMs AS INTEGER) AND blocked = 0 AND (@nodePool IS NULL OR nodepool = @nodePool)
        AND (@clusterId IS NULL OR cluster_id = @clusterId)
      GROUP BY b, cluster_id, nodepool, reason
    )
    ${FIRST_OF_GROUPS}`,
    )
    .raw(true);
  // Buckets of whole quarter days (a 90-day timeline's 12 hours): the quarters' counts (migration 0033) inside
  // [@qlo, @qhi), the disruptions themselves in the partial quarters at either edge.
  const markerGroupsByQuarter = db
    .prepare(
      `
    WITH g AS (
      SELECT b, cluster_id, nodepool, reason, SUM(n) AS n, MIN(first_at) AS first_at, MAX(last_at) AS last_at
      FROM (
        ${RAW_MARKERS('@fromMs', '@qlo')}
        UNION ALL
        SELECT bucket_ms / CAST(@bucketMs AS INTEGER), cluster_id, nodepool, reason, disruptions, first_at, last_at
        FROM disruption_quarters
        WHERE bucket_ms >= CAST(@qlo AS INTEGER) AND bucket_ms < CAST(@qhi AS INTEGER) AND (@nodePool IS NULL OR nodepool = @nodePool)
          AND (@clusterId IS NULL OR cluster_id = @clusterId)
        UNION ALL
        ${RAW_MARKERS('@qhi', '@toMs')}
      )
      GROUP BY b, cluster_id, nodepool, reason
    )
    ${FIRST_OF_GROUPS}`,
    )
    .raw(true);
  // The quarters' counts from a quarter on, recounted from the kept disruptions (refresh() replaced them from inside it).
  // A time is cast before it is cut: one written as a REAL (a bulk writer's arithmetic) lands in its quarter all the same.
  const deleteQuartersFrom = db.prepare('DELETE FROM disruption_quarters WHERE bucket_ms >= CAST(? AS INTEGER)');
  const countQuartersFrom = db.prepare(`
    INSERT INTO disruption_quarters (bucket_ms, cluster_id, nodepool, reason, disruptions, first_at, last_at)
    SELECT (CAST(at AS INTEGER) / ${QUARTER_DAY_MS}) * ${QUARTER_DAY_MS}, cluster_id, nodepool, reason, COUNT(*), MIN(at), MAX(at)
    FROM disruptions WHERE at >= CAST(? AS INTEGER) AND blocked = 0 GROUP BY 1, 2, 3, 4`);
  const recountQuarters = (fromMs: number): void => {
    const quarter = Math.floor(fromMs / QUARTER_DAY_MS) * QUARTER_DAY_MS;
    deleteQuartersFrom.run(quarter);
    countQuartersFrom.run(quarter);
  };

  return {
    /**
     * The kept disruptions (not blocked attempts) in [fromMs, toMs) of one NodePool or all, of one cluster or (null,
     * absent) every cluster, in order, as markers are made.
     */
    markerRows(q: { fromMs: number; toMs: number; nodePool?: string; clusterId?: number | null }): MarkerSource[] {
      const rows = markerRows.all({ fromMs: q.fromMs, toMs: q.toMs, nodePool: q.nodePool ?? null, clusterId: q.clusterId ?? null }) as [
        string,
        number,
        string,
        string,
        string | null,
        number,
      ][];
      return rows.map(([id, atMs, nodePool, reason, action, clusterId]) => ({ id, atMs, nodePool, reason, action, clusterId }));
    },

    /**
     * The kept disruptions (not blocked attempts) of markerRows() counted per bucket of `bucketMs` (a positive whole
     * number of ms) x cluster x NodePool x reason, ordered by each group's first disruption.
     */
    markerGroups(q: { fromMs: number; toMs: number; bucketMs: number; nodePool?: string; clusterId?: number | null }): MarkerGroup[] {
      if (!Number.isInteger(q.bucketMs) || q.bucketMs <= 0) throw new RangeError(`bucketMs must be a positive integer, got ${q.bucketMs}`);
      const params = { fromMs: q.fromMs, toMs: q.toMs, bucketMs: q.bucketMs, nodePool: q.nodePool ?? null, clusterId: q.clusterId ?? null };
      // The whole quarter days inside the range, when its buckets are made of them; none: every disruption read.
      const qlo = Math.ceil(q.fromMs / QUARTER_DAY_MS) * QUARTER_DAY_MS;
      const qhi = Math.floor(q.toMs / QUARTER_DAY_MS) * QUARTER_DAY_MS;
      const rows = (
        q.bucketMs % QUARTER_DAY_MS === 0 && qlo < qhi ? markerGroupsByQuarter.all({ ...params, qlo, qhi }) : markerGroups.all(params)
      ) as [string, number, string, string, string | null, number, number, number][];
      return rows.map(([id, atMs, nodePool, reason, action, clusterId, count, lastAtMs]) => ({
        id,
        atMs,
        nodePool,
        reason,
        action,
        clusterId,
        count,
        lastAtMs,
      }));
    },

    /**
     * Recounts the timeline's quarter-day marker counts (migration 0033) from the quarter holding `fromMs` on: refresh()
     * does after it replaces the kept disruptions; a writer that writes them in bulk itself must too.
     */
    recountQuarters,

    /** The earliest time whose disruptions may be stale, or null when the kept ones are up to date. */
    dirtyFromMs: (): number | null => (dirty.get() as number | null | undefined) ?? null,

    /**
     * Brings the kept disruptions up to date when the triggers marked a change: rebuilds from REBUILD_LOOKBACK_MS
     * before the earliest one to the newest event or deletion, replaces the rows from there, marks the table clean.
     * Called by writers inside the transaction that made the change (a snapshot and its disruptions commit
     * together); on its own it takes a write transaction. Null when there was nothing to do.
     */
    refresh(): RefreshResult | null {
      if (dirty.get() === null) return null;
      const run = db.transaction((): RefreshResult | null => {
        const t0 = performance.now();
        const from = dirty.get() as number | null | undefined;
        if (from === null || from === undefined) return null;
        const o = oldest.get() as number | null | undefined;
        const n = newest.get() as number | null | undefined;
        const fromMs = Math.max(from - REBUILD_LOOKBACK_MS, o ?? 0);
        const untilMs = n === null || n === undefined ? fromMs : n + 1;
        // Each cluster on its own: a node or NodePool name in two clusters is two nodes or NodePools.
        const rows: { d: Disruption; clusterId: number }[] = [];
        for (const clusterId of clusterIds.all() as number[])
          for (let a = fromMs; a < untilMs; a += REBUILD_CHUNK_MS) {
            const b = Math.min(untilMs, a + REBUILD_CHUNK_MS);
            const read = { fromMs: a - DISRUPTION_EDGE_MS, toMs: b + DISRUPTION_EDGE_MS, clusterId };
            for (const d of buildDisruptions(sources.disruptionEvents(read), sources.nodeClaims(read)))
              if (d.atMs >= a && d.atMs < b) rows.push({ d, clusterId });
          }
        deleteFrom.run(fromMs);
        rows.forEach(({ d, clusterId }, seq) =>
          insert.run({
            clusterId,
            id: d.id,
            atMs: d.atMs,
            nodeName: d.nodeName,
            nodeClaim: d.nodeClaim,
            nodePool: d.nodePool,
            reason: d.reason,
            action: d.action,
            source: d.source,
            spotInterrupted: d.spotInterrupted ? 1 : 0,
            instanceType: d.instanceType,
            capacityType: d.capacityType,
            replacements: JSON.stringify(d.replacements),
            message: d.message,
            blocked: d.blocked ? 1 : 0,
            seq,
          }),
        );
        recountQuarters(fromMs);
        clean.run();
        return { rebuiltFromMs: fromMs, rows: rows.length, ms: performance.now() - t0 };
      });
      return db.inTransaction ? run() : run.immediate();
    },

    /** Kept disruptions in [fromMs, toMs) of one cluster or (null, absent) every cluster, in the analytics' order. */
    inRange(range: { fromMs: number; toMs: number; clusterId?: number | null }): Disruption[] {
      return (inRange.all({ fromMs: range.fromMs, toMs: range.toMs, clusterId: range.clusterId ?? null }) as RawDisruption[]).map(
        toDisruption,
      );
    },

    /**
     * A page of the kept disruptions matching the filters, with the total and the per-reason counts of all of them;
     * each row says its cluster (`clusterId`).
     */
    page(q: DisruptionPageQuery): { rows: (Disruption & { clusterId: number })[]; total: number; counts: [string, number][] } {
      // SQLite's OFFSET takes a 64-bit integer: an offset past every row needs no more than the largest safe one.
      const params = {
        ...q,
        nodePool: q.nodePool ?? null,
        reason: q.reason ?? null,
        clusterId: q.clusterId ?? null,
        limit: q.limit ?? -1,
        offset: Math.min(q.offset, Number.MAX_SAFE_INTEGER),
      };
      const counts = pageCounts.all(params) as [string, number][];
      return {
        rows: (pageRows.all(params) as RawDisruption[]).map((r) => ({ ...toDisruption(r), clusterId: r.cluster_id })),
        total: counts.reduce((n, [, c]) => n + c, 0),
        counts,
      };
    },
  };
}

const toDisruption = (r: RawDisruption): Disruption => ({
  id: r.id,
  atMs: r.at,
  nodeName: r.node_name,
  nodeClaim: r.nodeclaim,
  nodePool: r.nodepool,
  reason: r.reason,
  action: r.action,
  source: r.source === 'nodeclaim' ? 'nodeclaim' : 'event',
  spotInterrupted: r.spot_interrupted === 1,
  instanceType: r.instance_type,
  capacityType: r.capacity_type,
  nodeDeletedAtMs: r.node_deleted_at,
  replacements: JSON.parse(r.replacements_json) as string[],
  message: r.message,
  blocked: r.blocked === 1,
});

export type DisruptionsRepository = ReturnType<typeof createDisruptionsRepository>;
