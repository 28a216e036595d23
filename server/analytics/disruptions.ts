/**
 * How kept disruptions are shown (pure): timeline markers thinned to what a chart can tell apart, counts per reason,
 * a page of the list. What a disruption is, and how one is built from Karpenter's events and NodeClaims, is
 * core/karpenter/disruptions.ts; the collector keeps them in the database (db/repositories/disruptions-repository.ts).
 */

import type { Disruption, DisruptionPageQuery, MarkerGroup, MarkerSource } from '../../core/disruption.js';
import type { TimelineMarker } from '../schemas/consolidation.js';

// Declared in core/ so the collector that keeps them (db/) and the server that shows them name the same types.
export type { Disruption, DisruptionPageQuery, MarkerGroup, MarkerSource };

/** A timeline marker: one disruption, or the first of `count` in a bucket x cluster x NodePool x reason; `clusterId` its cluster's. */
export type DisruptionMarker = Omit<TimelineMarker, 'cluster'> & { clusterId?: number };

/**
 * Timeline markers for disruptions sorted by time: every one while there are at most `max`; else the first of each
 * bucket x cluster x NodePool x reason with how many it stands for, buckets aligned on the epoch, starting at `bucketMs` and
 * doubled until at most `max` markers are left (or one bucket holds them all). A month of a churning cluster is
 * thousands of disruptions: more marks than a chart a screen wide can tell apart.
 */
export function timelineMarkers(ds: readonly MarkerSource[], bucketMs: number, max: number): DisruptionMarker[] {
  if (ds.length <= max) return ds.map((d) => marker(d, 1));
  return thinMarkerGroups(
    ds.map((d) => ({ ...d, count: 1, lastAtMs: d.atMs })),
    bucketMs,
    max,
  );
}

const marker = (d: MarkerSource, count: number): DisruptionMarker => ({
  id: d.id,
  atMs: d.atMs,
  nodePool: d.nodePool,
  reason: d.reason,
  action: d.action,
  count,
  ...(d.clusterId === undefined ? {} : { clusterId: d.clusterId }),
});

/**
 * timelineMarkers' thinning over disruptions already counted per bucket of `bucketMs` (or finer: one disruption is a
 * group of one) x cluster x NodePool x reason, ordered by each group's first: buckets of `bucketMs`, doubled until at
 * most `max` markers are left or one bucket spans them all. A doubled bucket holds whole buckets of the width before
 * it (⌊t / 2w⌋ = ⌊⌊t / w⌋ / 2⌋), so merging groups gives the markers thinning every disruption gives.
 */
export function thinMarkerGroups(groups: readonly MarkerGroup[], bucketMs: number, max: number): DisruptionMarker[] {
  if (groups.length === 0) return [];
  if (!(bucketMs > 0)) throw new RangeError(`bucketMs must be positive, got ${bucketMs}`);
  let lastAtMs = groups[0].lastAtMs;
  for (const g of groups) if (g.lastAtMs > lastAtMs) lastAtMs = g.lastAtMs;
  const spanMs = lastAtMs - groups[0].atMs;
  // Each cluster x NodePool x reason numbered once, so a group is a number (bucket x pairs + pair), not a string per
  // group per pass. Two clusters' NodePools of one name are two NodePools.
  const pairs = new Map<string, number>();
  const pairOf = groups.map((d) => {
    const key = `${d.clusterId ?? ''}\u0000${d.nodePool}\u0000${d.reason}`;
    let id = pairs.get(key);
    if (id === undefined) pairs.set(key, (id = pairs.size));
    return id;
  });
  for (let width = bucketMs; ; width *= 2) {
    const thinned = new Map<number, DisruptionMarker>();
    groups.forEach((d, i) => {
      const key = Math.floor(d.atMs / width) * pairs.size + pairOf[i];
      const first = thinned.get(key);
      if (first === undefined) thinned.set(key, marker(d, d.count));
      else first.count += d.count;
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
