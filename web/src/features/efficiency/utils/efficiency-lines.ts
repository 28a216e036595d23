import type { EfficiencySeries } from '../../../../../server/schemas/reports';

/** One chart row per bucket: percent per NodePool for cpu and memory (null: no data in that bucket). */
export interface EfficiencyRow {
  /** Bucket start, epoch ms UTC. */
  t: number;
  cpu: Record<string, number | null>;
  memory: Record<string, number | null>;
}

/**
 * Merges per-NodePool series on bucket start, as percents (0.5 -> 50). Where a series skips buckets
 * (no snapshot, or the NodePool had no nodes), a null is put in the bucket after its last point so
 * the line breaks instead of drawing across the gap.
 */
export function toEfficiencyRows(series: readonly EfficiencySeries[], bucketMs: number): { rows: EfficiencyRow[]; nodePools: string[] } {
  const byT = new Map<number, EfficiencyRow>();
  const rowAt = (t: number): EfficiencyRow => {
    const row = byT.get(t) ?? { t, cpu: {}, memory: {} };
    byT.set(t, row);
    return row;
  };
  for (const s of series) {
    const points = [...s.points].sort((a, b) => a.bucketStartMs - b.bucketStartMs);
    points.forEach((p, i) => {
      const row = rowAt(p.bucketStartMs);
      row.cpu[s.nodePool] = p.cpu === null ? null : p.cpu * 100;
      row.memory[s.nodePool] = p.memory === null ? null : p.memory * 100;
      const next = points[i + 1];
      if (next !== undefined && next.bucketStartMs - p.bucketStartMs > bucketMs) {
        const gap = rowAt(p.bucketStartMs + bucketMs);
        gap.cpu[s.nodePool] = null;
        gap.memory[s.nodePool] = null;
      }
    });
  }
  return { rows: [...byT.values()].sort((a, b) => a.t - b.t), nodePools: series.map((s) => s.nodePool) };
}

/** Mean of the bucket ratios of a resource over a series, as a percent; null without data. */
export function meanPercent(series: EfficiencySeries, resource: 'cpu' | 'memory'): number | null {
  const values = series.points.map((p) => p[resource]).filter((v): v is number => v !== null);
  return values.length === 0 ? null : (values.reduce((a, b) => a + b, 0) / values.length) * 100;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const TICK_STEPS_MS = [HOUR_MS, 3 * HOUR_MS, 6 * HOUR_MS, 12 * HOUR_MS, DAY_MS, 2 * DAY_MS, 7 * DAY_MS, 14 * DAY_MS, 28 * DAY_MS];

/** Time ticks: hours for a range up to two days, days beyond. */
export const showsHourTicks = (fromMs: number, toMs: number): boolean => toMs - fromMs <= 2 * DAY_MS;

/**
 * Axis ticks on round UTC times (midnights for day steps), at most `maxTicks`, so labels never repeat
 * a day. The step is the smallest of 1, 3, 6, 12 h, 1, 2, 7, 14, 28 days that fits.
 */
export function timeTicks(fromMs: number, toMs: number, maxTicks = 12): number[] {
  const span = toMs - fromMs;
  if (!(span > 0)) return [];
  const step = TICK_STEPS_MS.find((s) => span / s <= maxTicks) ?? Math.ceil(span / maxTicks / DAY_MS) * DAY_MS;
  const ticks: number[] = [];
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) ticks.push(t);
  return ticks;
}
