/**
 * Pure: a time range [fromMs, toMs) cut into pieces each read from the coarsest rollup that covers it exactly —
 * whole UTC days from the day rollup, whole hours from the hour rollup, and the partial hours at either edge from
 * the snapshots themselves. A 30-day range is then ~30 day rows, not 8,640 snapshots' rows.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** [start, end) in epoch ms; empty when end <= start. */
export type Span = readonly [number, number];

export interface RangePieces {
  /** At most two, each within one hour (never crossing an hour boundary), except when no rollup may be used. */
  raw: Span[];
  /** Whole hours, at most two runs (before the first whole day and after the last). */
  hours: Span[];
  /** Whole days, or null. */
  days: Span | null;
}

/**
 * `coarsest`: the largest rollup allowed — 'day', 'hour' (bucketed reads whose buckets are whole hours but not
 * whole days), or 'none' (the whole range from snapshots).
 */
export function rangePieces(fromMs: number, toMs: number, coarsest: 'day' | 'hour' | 'none' = 'day'): RangePieces {
  if (!(toMs > fromMs)) return { raw: [], hours: [], days: null };
  if (coarsest === 'none') return { raw: [[fromMs, toMs]], hours: [], days: null };
  const h1 = Math.ceil(fromMs / HOUR_MS) * HOUR_MS;
  const h2 = Math.floor(toMs / HOUR_MS) * HOUR_MS;
  if (h1 > h2) return { raw: [[fromMs, toMs]], hours: [], days: null };
  const raw: Span[] = [];
  if (fromMs < h1) raw.push([fromMs, h1]);
  if (h2 < toMs) raw.push([h2, toMs]);
  if (h1 === h2) return { raw, hours: [], days: null };
  const d1 = Math.ceil(h1 / DAY_MS) * DAY_MS;
  const d2 = Math.floor(h2 / DAY_MS) * DAY_MS;
  if (coarsest === 'hour' || d1 >= d2) return { raw, hours: [[h1, h2]], days: null };
  const hours: Span[] = [];
  if (h1 < d1) hours.push([h1, d1]);
  if (d2 < h2) hours.push([d2, h2]);
  return { raw, hours, days: [d1, d2] };
}

/** The largest rollup whose buckets nest in buckets of `bucketMs` (aligned on the epoch). */
export function coarsestFor(bucketMs: number): 'day' | 'hour' | 'none' {
  if (bucketMs % DAY_MS === 0) return 'day';
  if (bucketMs % HOUR_MS === 0) return 'hour';
  return 'none';
}

/** The pieces as SQL parameters: two raw spans, two hour spans, one day span; absent ones are empty (0, 0). */
export function pieceParams(p: RangePieces): Record<'r1lo' | 'r1hi' | 'r2lo' | 'r2hi' | 'h1lo' | 'h1hi' | 'h2lo' | 'h2hi' | 'dlo' | 'dhi', number> {
  const at = (spans: Span[], i: number): Span => spans[i] ?? [0, 0];
  const [r1, r2, h1, h2] = [at(p.raw, 0), at(p.raw, 1), at(p.hours, 0), at(p.hours, 1)];
  const d = p.days ?? [0, 0];
  return { r1lo: r1[0], r1hi: r1[1], r2lo: r2[0], r2hi: r2[1], h1lo: h1[0], h1hi: h1[1], h2lo: h2[0], h2hi: h2[1], dlo: d[0], dhi: d[1] };
}
