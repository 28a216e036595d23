/**
 * Pure: what a node cost over a span, integrated exactly over the price history in effect (no I/O).
 *
 * A price point applies from its time until the next point. A span that starts before the first point pays the
 * first point's price (a history fetched after the node launched: the same rule as the PriceBook).
 */

import { lastIndexAtOrBefore } from '../../core/time-search.js';
import { HOUR_MS } from '../../core/time.js';

export interface PricePoint {
  atMs: number;
  usdPerHour: number;
  /** pricing-api | spot-history | static-table */
  source: string;
}

export interface SpanCost {
  hours: number;
  /** Exactly integrated: Σ segment hours × price in effect. */
  usd: number;
  /** usd / hours; 0 for an empty span. */
  averageUsdPerHour: number;
  minUsdPerHour: number;
  maxUsdPerHour: number;
  /** Price changes inside the span. */
  changes: number;
  /** The source of the points used ('unknown' without points); a mix is named by the most used one. */
  source: string;
  /**
   * The same span priced at the rate in effect at the start of each UTC hour slice. How far this differs from
   * `usd` measures how much the price moved within the hours: the tolerance for "spot price moving within the hour".
   */
  hourStartUsd: number;
}

/** Index of the last point with atMs <= t, or -1. Points sorted by time. */
export const lastAtOrBefore = (points: readonly PricePoint[], t: number): number => lastIndexAtOrBefore(points, t, (p) => p.atMs);

/** The point in effect at t (the first one before the history starts), or null without points. */
export function priceAt(points: readonly PricePoint[], t: number): PricePoint | null {
  if (points.length === 0) return null;
  return points[Math.max(0, lastAtOrBefore(points, t))];
}

/** Cost of [fromMs, toMs) under `points` (sorted by time). An empty history costs nothing and says 'unknown'. */
export function costOverSpan(points: readonly PricePoint[], fromMs: number, toMs: number): SpanCost {
  const hours = Math.max(0, toMs - fromMs) / HOUR_MS;
  if (points.length === 0 || toMs <= fromMs) {
    return { hours, usd: 0, averageUsdPerHour: 0, minUsdPerHour: 0, maxUsdPerHour: 0, changes: 0, source: 'unknown', hourStartUsd: 0 };
  }
  let usd = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let changes = 0;
  const msBySource = new Map<string, number>();
  let i = Math.max(0, lastAtOrBefore(points, fromMs));
  let cursor = fromMs;
  while (cursor < toMs) {
    const next = i + 1 < points.length ? Math.min(Math.max(points[i + 1].atMs, cursor), toMs) : toMs;
    const p = points[i];
    if (next > cursor) {
      usd += ((next - cursor) / HOUR_MS) * p.usdPerHour;
      min = Math.min(min, p.usdPerHour);
      max = Math.max(max, p.usdPerHour);
      msBySource.set(p.source, (msBySource.get(p.source) ?? 0) + (next - cursor));
      if (cursor > fromMs) changes += 1;
    }
    cursor = next;
    i += 1;
  }
  let hourStartUsd = 0;
  for (let slice = fromMs; slice < toMs;) {
    const end = Math.min(toMs, (Math.floor(slice / HOUR_MS) + 1) * HOUR_MS);
    hourStartUsd += ((end - slice) / HOUR_MS) * (priceAt(points, slice)?.usdPerHour ?? 0);
    slice = end;
  }
  const source = [...msBySource.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown';
  return {
    hours,
    usd,
    averageUsdPerHour: hours > 0 ? usd / hours : 0,
    minUsdPerHour: min,
    maxUsdPerHour: max,
    changes,
    source,
    hourStartUsd,
  };
}
