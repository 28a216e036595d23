/** Latency statistics of the route rows: nearest-rank percentiles, and the highest one a sample count supports. */

/** The p-th percentile (0..100) of sorted samples, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export type TailStat = 'p99' | 'p95' | 'max';

/**
 * The highest percentile `sorted.length` samples tell apart from their maximum (nearest rank, ceil(p/100 x n) < n):
 * a p99 needs 100 samples and a p95 20; with fewer, the max is all there is (stricter than either, and named so).
 */
export function tail(sorted: readonly number[]): { stat: TailStat; ms: number } {
  if (sorted.length >= 100) return { stat: 'p99', ms: percentile(sorted, 99) };
  if (sorted.length >= 20) return { stat: 'p95', ms: percentile(sorted, 95) };
  return { stat: 'max', ms: sorted[sorted.length - 1] ?? Number.NaN };
}
