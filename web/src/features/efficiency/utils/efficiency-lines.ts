import type { EfficiencySeries } from '@schemas/efficiency';
import { gapThresholdMs } from '../../../lib/gaps';

/** One chart row per bucket: percent per NodePool for cpu and memory (null: no data in that bucket). */
export interface EfficiencyRow {
  /** Bucket start, epoch ms UTC. */
  t: number;
  cpu: Record<string, number | null>;
  memory: Record<string, number | null>;
  /** What the pods used (metrics.k8s.io), percent of allocatable; absent where usage was not collected. */
  cpuUsage: Record<string, number | null>;
  memoryUsage: Record<string, number | null>;
}

/**
 * Merges per-NodePool series on bucket start, as percents (0.5 -> 50). Where a series has a hole (no
 * snapshot, or the NodePool had no nodes; see gapThresholdMs), a null is put in the bucket after its
 * last point so the line breaks instead of drawing across the gap. Usage (pods' use ÷ allocatable) rides along.
 */
export function toEfficiencyRows(
  series: readonly EfficiencySeries[],
  bucketMs: number,
): { rows: EfficiencyRow[]; nodePools: string[]; withUsage: string[] } {
  const byT = new Map<number, EfficiencyRow>();
  const rowAt = (t: number): EfficiencyRow => {
    const row = byT.get(t) ?? { t, cpu: {}, memory: {}, cpuUsage: {}, memoryUsage: {} };
    byT.set(t, row);
    return row;
  };
  for (const s of series) {
    const points = [...s.points].sort((a, b) => a.bucketStartMs - b.bucketStartMs);
    const gapMs = gapThresholdMs(
      points.map((p) => p.bucketStartMs),
      bucketMs,
    );
    points.forEach((p, i) => {
      const row = rowAt(p.bucketStartMs);
      row.cpu[s.nodePool] = p.cpu === null ? null : p.cpu * 100;
      row.memory[s.nodePool] = p.memory === null ? null : p.memory * 100;
      row.cpuUsage[s.nodePool] = p.cpuUsage === null ? null : p.cpuUsage * 100;
      row.memoryUsage[s.nodePool] = p.memoryUsage === null ? null : p.memoryUsage * 100;
      const next = points[i + 1];
      if (next !== undefined && next.bucketStartMs - p.bucketStartMs > gapMs) {
        const gap = rowAt(p.bucketStartMs + bucketMs);
        gap.cpu[s.nodePool] = null;
        gap.memory[s.nodePool] = null;
        gap.cpuUsage[s.nodePool] = null;
        gap.memoryUsage[s.nodePool] = null;
      }
    });
  }
  return {
    rows: [...byT.values()].sort((a, b) => a.t - b.t),
    nodePools: series.map((s) => s.nodePool),
    // NodePools with usage somewhere in the range get a usage line beside their requests.
    withUsage: series.filter((s) => s.points.some((p) => p.cpuUsage !== null || p.memoryUsage !== null)).map((s) => s.nodePool),
  };
}

/** Mean of the bucket ratios of a resource over a series, as a percent; null without data. */
export function meanPercent(series: EfficiencySeries, resource: 'cpu' | 'memory'): number | null {
  const values = series.points.map((p) => p[resource]).filter((v): v is number => v !== null);
  return values.length === 0 ? null : (values.reduce((a, b) => a + b, 0) / values.length) * 100;
}
