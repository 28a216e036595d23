import type { Disruption, DisruptionPageQuery, MarkerSource } from '../../core/disruption.js';
import type { Db } from '../open-db.js';

/**
 * Kept disruptions (migration 0009): read by time, and replaced from a time on when the triggers say the events,
 * nodes or NodeClaims behind them changed. What a disruption is stays in server/analytics/disruptions.ts; this
 * file only stores and reads its output.
 */

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
}

export function createDisruptionsRepository(db: Db) {
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
      replacements_json, message, blocked, seq)
    VALUES (@id, @atMs, @nodeName, @nodeClaim, @nodePool, @reason, @action, @source, @spotInterrupted, @instanceType, @capacityType,
      @replacements, @message, @blocked, @seq)`);
  // The node's deletion comes after its events, so it is joined here, as the analytics would have joined it:
  // the node's, else its NodeClaim's; a NodeClaim gone without events carries its own.
  const SELECT_JOINED = `
    SELECT d.id, d.at, d.node_name, d.nodeclaim, d.nodepool, d.reason, d.action, d.source, d.spot_interrupted, d.instance_type,
           d.capacity_type, d.replacements_json, d.message, d.blocked,
           CASE WHEN d.source = 'nodeclaim' THEN c.deleted_at ELSE COALESCE(n.deleted_at, c.deleted_at) END AS node_deleted_at
    FROM disruptions d
    LEFT JOIN nodes n ON n.name = d.node_name
    LEFT JOIN nodeclaims c ON c.name = d.nodeclaim`;
  const inRange = db.prepare(
    `${SELECT_JOINED} WHERE d.at >= CAST(@fromMs AS INTEGER) AND d.at < CAST(@toMs AS INTEGER) ORDER BY d.at, d.seq`,
  );
  // A page of the list: the filters, counts and paging in SQL, so a month costs an index range, not a row per disruption.
  const FILTER = `d.at >= CAST(@fromMs AS INTEGER) AND d.at < CAST(@toMs AS INTEGER)
      AND (@kind = 'all' OR d.blocked = (@kind = 'blocked'))
      AND (@nodePool IS NULL OR d.nodepool = @nodePool) AND (@reason IS NULL OR d.reason = @reason)`;
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
    SELECT id, at, nodepool, reason, action FROM disruptions
    WHERE at >= CAST(@fromMs AS INTEGER) AND at < CAST(@toMs AS INTEGER) AND blocked = 0 AND (@nodePool IS NULL OR nodepool = @nodePool)
    ORDER BY at, seq`,
    )
    .raw(true);

  return {
    /** The kept disruptions (not blocked attempts) in [fromMs, toMs) of one NodePool or all, in order, as markers are made. */
    markerRows(q: { fromMs: number; toMs: number; nodePool?: string }): MarkerSource[] {
      const rows = markerRows.all({ fromMs: q.fromMs, toMs: q.toMs, nodePool: q.nodePool ?? null }) as [
        string,
        number,
        string,
        string,
        string | null,
      ][];
      return rows.map(([id, atMs, nodePool, reason, action]) => ({ id, atMs, nodePool, reason, action }));
    },

    /** The earliest time whose disruptions may be stale, or null when the kept ones are up to date. */
    dirtyFromMs: (): number | null => (dirty.get() as number | null | undefined) ?? null,

    /** The oldest and the newest event or NodeClaim deletion: where a rebuild can start and how far it has to go. */
    sourceExtentMs: (): { oldestMs: number; newestMs: number } | null => {
      const o = oldest.get() as number | null | undefined;
      const n = newest.get() as number | null | undefined;
      return o === null || o === undefined || n === null || n === undefined ? null : { oldestMs: o, newestMs: n };
    },

    /**
     * In one write transaction (so no collector writes in between): `rebuild(fromMs)` returns the disruptions at
     * or after fromMs, which replace the kept ones, and the table is marked up to date. Nothing is done when it
     * already is.
     */
    refresh(
      rebuild: (dirtyFromMs: number) => { fromMs: number; rows: readonly Disruption[] },
    ): { rebuiltFromMs: number; rows: number } | null {
      // Up to date is the common case: a plain read, so an answer takes the write lock only after a collection.
      if (dirty.get() === null) return null;
      return db
        .transaction(() => {
          const from = dirty.get() as number | null | undefined;
          if (from === null || from === undefined) return null;
          const built = rebuild(from);
          deleteFrom.run(built.fromMs);
          built.rows.forEach((d, seq) =>
            insert.run({
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
          clean.run();
          return { rebuiltFromMs: built.fromMs, rows: built.rows.length };
        })
        .immediate();
    },

    /** Kept disruptions in [fromMs, toMs), in the analytics' order. */
    inRange(range: { fromMs: number; toMs: number }): Disruption[] {
      return (inRange.all(range) as RawDisruption[]).map(toDisruption);
    },

    /** A page of the kept disruptions matching the filters, with the total and the per-reason counts of all of them. */
    page(q: DisruptionPageQuery): { rows: Disruption[]; total: number; counts: [string, number][] } {
      // SQLite's OFFSET takes a 64-bit integer: an offset past every row needs no more than the largest safe one.
      const params = {
        ...q,
        nodePool: q.nodePool ?? null,
        reason: q.reason ?? null,
        limit: q.limit ?? -1,
        offset: Math.min(q.offset, Number.MAX_SAFE_INTEGER),
      };
      const counts = pageCounts.all(params) as [string, number][];
      return { rows: (pageRows.all(params) as RawDisruption[]).map(toDisruption), total: counts.reduce((n, [, c]) => n + c, 0), counts };
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
