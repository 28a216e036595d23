import type { ConsolidationTimelineResponse, TimelinePoint } from '@schemas/consolidation';
import { gapThresholdMs } from '../../../lib/gaps';

type TimelineSeries = ConsolidationTimelineResponse['series'][number];

/** One chart row per bucket; efficiency in percent; null where the bucket had no snapshot (the line breaks). */
export interface TimelineRow {
  /** Bucket start, epoch ms UTC. */
  t: number;
  cpuPercent: number | null;
  memoryPercent: number | null;
  usdPerHour: number | null;
  nodes: number | null;
}

const pct = (v: number | null): number | null => (v === null ? null : v * 100);

/**
 * The series to draw: the cluster's, or the NodePool's when one is chosen (the cluster's if the NodePool has none).
 * Under "All clusters" of a ledger of several (`totals` given): nodes and cost per hour summed over the clusters, and
 * no packing line (packing is per cluster: pick one to see it).
 */
export function pickSeries(
  series: readonly TimelineSeries[],
  nodePool: string | undefined,
  totals?: ConsolidationTimelineResponse['totals'],
): TimelineSeries | undefined {
  if (totals !== undefined)
    return {
      scope: 'cluster',
      nodePool: null,
      points: totals.map((t) => ({ ...t, cpu: null, memory: null, costWeightedCpu: null, costWeightedMemory: null })),
    };
  return (
    (nodePool === undefined ? undefined : series.find((s) => s.scope === 'nodepool' && s.nodePool === nodePool)) ??
    series.find((s) => s.scope === 'cluster')
  );
}

/** Rows sorted by time, with a null row after each point that is followed by a hole in the data (see gapThresholdMs). */
export function toTimelineRows(points: readonly TimelinePoint[], bucketMs: number): TimelineRow[] {
  const sorted = [...points].sort((a, b) => a.tMs - b.tMs);
  const gapMs = gapThresholdMs(
    sorted.map((p) => p.tMs),
    bucketMs,
  );
  const rows: TimelineRow[] = [];
  sorted.forEach((p, i) => {
    rows.push({ t: p.tMs, cpuPercent: pct(p.cpu), memoryPercent: pct(p.memory), usdPerHour: p.usdPerHourAvg, nodes: p.nodesAvg });
    const next = sorted[i + 1];
    if (next !== undefined && next.tMs - p.tMs > gapMs)
      rows.push({ t: p.tMs + bucketMs, cpuPercent: null, memoryPercent: null, usdPerHour: null, nodes: null });
  });
  return rows;
}

/** The bucket row nearest to `tMs` (for reading values at a marker); undefined without rows. */
export function rowNear(rows: readonly TimelineRow[], tMs: number): TimelineRow | undefined {
  let best: TimelineRow | undefined;
  for (const r of rows) if (r.cpuPercent !== null && (best === undefined || Math.abs(r.t - tMs) < Math.abs(best.t - tMs))) best = r;
  return best;
}
