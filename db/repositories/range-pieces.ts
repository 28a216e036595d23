import { DAY_MS, HOUR_MS, WEEK_MS } from '../../core/time.js';
/**
 * Pure: a time range [fromMs, toMs) cut into pieces each read from the coarsest rollup that covers it exactly —
 * whole weeks (7-day buckets aligned on the epoch, as 7-day chart buckets are) from the week rollup, whole UTC days
 * from the day rollup, whole hours from the hour rollup, and the partial hours at either edge from the snapshots
 * themselves. A 30-day range is then a few week and day rows per key, not 8,640 snapshots' rows. Buckets of 6 or 12
 * hours (a 90-day chart's), in which days do not nest, read whole quarter days (00:00, 06:00, 12:00, 18:00 UTC;
 * migration 0033) rather than every hour.
 */

/** A quarter of a UTC day: the rollup span between the hour and the day (migration 0033). */
export const QUARTER_DAY_MS = 6 * HOUR_MS;

/** [start, end) in epoch ms; empty when end <= start. */
export type Span = readonly [number, number];

export type Coarsest = 'week' | 'day' | 'quarter' | 'hour' | 'none';

export interface RangePieces {
  /** At most two, each within one hour (never crossing an hour boundary), except when no rollup may be used. */
  raw: Span[];
  /** Whole hours, at most two runs (before the first whole day, or quarter day, and after the last). */
  hours: Span[];
  /** Whole quarter days, at most one run: only where quarters are the coarsest allowed (days never nest in its buckets). */
  quarters: Span[];
  /** Whole days, at most two runs (before the first whole week and after the last). */
  days: Span[];
  /** Whole weeks, or null. */
  weeks: Span | null;
}

const up = (t: number, unit: number): number => Math.ceil(t / unit) * unit;
const down = (t: number, unit: number): number => Math.floor(t / unit) * unit;

/**
 * Whole units of `unit` inside [from, to), with the parts before and after it; null when no whole unit fits.
 * Both from and to are multiples of the next finer unit, so the edges are whole finer units.
 */
function carve(from: number, to: number, unit: number): { edges: Span[]; inner: Span } | null {
  const a = up(from, unit);
  const b = down(to, unit);
  if (a >= b) return null;
  const edges: Span[] = [];
  if (from < a) edges.push([from, a]);
  if (b < to) edges.push([b, to]);
  return { edges, inner: [a, b] };
}

/**
 * `coarsest`: the largest rollup allowed — bucketed reads may only use rollups whose buckets nest in theirs
 * ('none': the whole range from snapshots).
 */
export function rangePieces(fromMs: number, toMs: number, coarsest: Coarsest = 'week'): RangePieces {
  const none: RangePieces = { raw: [], hours: [], quarters: [], days: [], weeks: null };
  if (!(toMs > fromMs)) return none;
  if (coarsest === 'none') return { ...none, raw: [[fromMs, toMs]] };
  const h1 = up(fromMs, HOUR_MS);
  const h2 = down(toMs, HOUR_MS);
  if (h1 > h2) return { ...none, raw: [[fromMs, toMs]] };
  const raw: Span[] = [];
  if (fromMs < h1) raw.push([fromMs, h1]);
  if (h2 < toMs) raw.push([h2, toMs]);
  if (h1 === h2) return { ...none, raw };
  if (coarsest === 'quarter') {
    const quarters = carve(h1, h2, QUARTER_DAY_MS);
    return quarters === null ? { ...none, raw, hours: [[h1, h2]] } : { ...none, raw, hours: quarters.edges, quarters: [quarters.inner] };
  }
  const days = coarsest === 'hour' ? null : carve(h1, h2, DAY_MS);
  if (days === null) return { ...none, raw, hours: [[h1, h2]] };
  const weeks = coarsest === 'day' ? null : carve(days.inner[0], days.inner[1], WEEK_MS);
  if (weeks === null) return { ...none, raw, hours: days.edges, days: [days.inner] };
  return { ...none, raw, hours: days.edges, days: weeks.edges, weeks: weeks.inner };
}

/**
 * The largest rollup whose buckets nest in buckets of `bucketMs` starting at `originMs` (default: aligned on the
 * epoch). 7-day buckets from a Monday nest days, not the epoch-aligned weeks.
 */
export function coarsestFor(bucketMs: number, originMs = 0): Coarsest {
  const nests = (span: number): boolean => bucketMs % span === 0 && originMs % span === 0;
  if (nests(WEEK_MS)) return 'week';
  if (nests(DAY_MS)) return 'day';
  if (nests(QUARTER_DAY_MS)) return 'quarter';
  if (nests(HOUR_MS)) return 'hour';
  return 'none';
}

export type PieceParams = Record<
  'r1lo' | 'r1hi' | 'r2lo' | 'r2hi' | 'h1lo' | 'h1hi' | 'h2lo' | 'h2hi' | 'qlo' | 'qhi' | 'd1lo' | 'd1hi' | 'd2lo' | 'd2hi' | 'wlo' | 'whi',
  number
>;

/** The pieces as SQL parameters; absent ones are empty spans (0, 0). */
export function pieceParams(p: RangePieces): PieceParams {
  const at = (spans: Span[], i: number): Span => spans[i] ?? [0, 0];
  const [r1, r2, h1, h2, q, d1, d2] = [
    at(p.raw, 0),
    at(p.raw, 1),
    at(p.hours, 0),
    at(p.hours, 1),
    at(p.quarters, 0),
    at(p.days, 0),
    at(p.days, 1),
  ];
  const w = p.weeks ?? [0, 0];
  return {
    r1lo: r1[0],
    r1hi: r1[1],
    r2lo: r2[0],
    r2hi: r2[1],
    h1lo: h1[0],
    h1hi: h1[1],
    h2lo: h2[0],
    h2hi: h2[1],
    qlo: q[0],
    qhi: q[1],
    d1lo: d1[0],
    d1hi: d1[1],
    d2lo: d2[0],
    d2hi: d2[1],
    wlo: w[0],
    whi: w[1],
  };
}
