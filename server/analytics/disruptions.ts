/**
 * How kept disruptions are shown (pure): timeline markers thinned to what a chart can tell apart, counts per reason,
 * a page of the list. What a disruption is, and how one is built from Karpenter's events and NodeClaims, is
 * core/karpenter/disruptions.ts; the collector keeps them in the database (db/repositories/disruptions-repository.ts).
 */

import type { Disruption, DisruptionPageQuery, MarkerSource } from '../../core/disruption.js';
import type { TimelineMarker } from '../schemas/consolidation.js';

// Declared in core/ so the collector that keeps them (db/) and the server that shows them name the same types.
export type { Disruption, DisruptionPageQuery, MarkerSource };

/** A timeline marker: one disruption, or the first of `count` in a bucket x cluster x NodePool x reason; `clusterId` its cluster's. */
export type DisruptionMarker = Omit<TimelineMarker, 'cluster'> & { clusterId?: number };

/**
 * Timeline markers for disruptions sorted by time: every one while there are at most `max`; else the first of each
 * bucket x cluster x NodePool x reason with how many it stands for, buckets aligned on the epoch, starting at `bucketMs` and
 * doubled until at most `max` markers are left (or one bucket holds them all). A month of a churning cluster is
 * thousands of disruptions: more marks than a chart a screen wide can tell apart.
 */
export function timelineMarkers(ds: readonly MarkerSource[], bucketMs: number, max: number): DisruptionMarker[] {
  const one = (d: MarkerSource): DisruptionMarker => ({
    id: d.id,
    atMs: d.atMs,
    nodePool: d.nodePool,
    reason: d.reason,
    action: d.action,
    count: 1,
    ...(d.clusterId === undefined ? {} : { clusterId: d.clusterId }),
  });
  if (ds.length <= max) return ds.map(one);
  if (!(bucketMs > 0)) throw new RangeError(`bucketMs must be positive, got ${bucketMs}`);
  const spanMs = ds[ds.length - 1].atMs - ds[0].atMs;
  // Each cluster x NodePool x reason numbered once, so a group is a number (bucket x pairs + pair), not a string per
  // disruption per pass. Two clusters' NodePools of one name are two NodePools.
  const pairs = new Map<string, number>();
  const pairOf = ds.map((d) => {
    const key = `${d.clusterId ?? ''}\u0000${d.nodePool}\u0000${d.reason}`;
    let id = pairs.get(key);
    if (id === undefined) pairs.set(key, (id = pairs.size));
    return id;
  });
  for (let width = bucketMs; ; width *= 2) {
    const thinned = new Map<number, DisruptionMarker>();
    ds.forEach((d, i) => {
      const key = Math.floor(d.atMs / width) * pairs.size + pairOf[i];
      const first = thinned.get(key);
      if (first === undefined) thinned.set(key, one(d));
      else first.count += 1;
    });
    if (thinned.size <= max || width > spanMs) return [...thinned.values()];
  }
}

/** Reason counts, by count then name. */
export function sortReasonCounts(counts: Iterable<readonly [string, number]>): { reason: string; count: number }[] {
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** Disruptions per reason (blocked attempts as "Blocked"), by count then name. */
export function countByReason(ds: readonly Disruption[]): { reason: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const d of ds) {
    const k = d.blocked ? 'Blocked' : d.reason;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return sortReasonCounts(counts);
}

export interface DisruptionPage {
  rows: Disruption[];
  /** Matching rows before paging. */
  total: number;
  /** Per reason over every matching row (blocked attempts as "Blocked"). */
  counts: { reason: string; count: number }[];
}

/** A page of disruptions sorted by time, filtered as asked, counted in full. */
export function pageDisruptions(ds: readonly Disruption[], q: Omit<DisruptionPageQuery, 'fromMs' | 'toMs'>): DisruptionPage {
  const rows = ds.filter(
    (d) =>
      (q.kind === 'all' || d.blocked === (q.kind === 'blocked')) &&
      (q.nodePool === undefined || d.nodePool === q.nodePool) &&
      (q.reason === undefined || d.reason === q.reason),
  );
  return { rows: rows.slice(q.offset, q.limit === null ? undefined : q.offset + q.limit), total: rows.length, counts: countByReason(rows) };
}
