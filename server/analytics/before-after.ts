/**
 * Consolidation before/after and the whole-period timeline, from hours-weighted rollup sums (pure, no I/O).
 */

import type { CompareRow, TimelinePoint, TimelineSeries, WindowStats } from '../schemas/consolidation.js';
import { addSums, packingStats, sumAll, sumByNodePool, zeroSums, type PackingSums } from './packing.js';

/** One side of a comparison: rollup sums per NodePool (any capacity types) and the hours the window's snapshots cover. */
export interface WindowSums {
  rows: readonly (PackingSums & { nodePool: string })[];
  hours: number;
}

export function windowStats(s: PackingSums, hours: number): WindowStats {
  const p = packingStats(s, hours);
  return {
    hours,
    nodesAvg: p.nodesAvg,
    usdPerHourAvg: p.usdPerHourAvg,
    costUsd: p.costUsd,
    cpu: p.cpu,
    memory: p.memory,
    pods: p.pods,
    gpu: p.gpu,
    costWeightedCpu: p.costWeightedCpu,
    costWeightedMemory: p.costWeightedMemory,
    costWeightedPods: p.costWeightedPods,
    costWeightedGpu: p.costWeightedGpu,
    idleUsdPerHourAvg: p.idleUsdPerHourAvg,
    idleRates: p.rates,
  };
}

const diff = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : b - a);

function row(
  scope: CompareRow['scope'],
  nodePool: string | null,
  consolidated: boolean,
  before: WindowStats,
  after: WindowStats,
): CompareRow {
  return {
    scope,
    nodePool,
    consolidated,
    before,
    after,
    change: {
      nodesAvg: after.nodesAvg - before.nodesAvg,
      usdPerHourAvg: after.usdPerHourAvg - before.usdPerHourAvg,
      cpu: diff(before.cpu, after.cpu),
      memory: diff(before.memory, after.memory),
      costWeightedCpu: diff(before.costWeightedCpu, after.costWeightedCpu),
      costWeightedMemory: diff(before.costWeightedMemory, after.costWeightedMemory),
    },
  };
}

/**
 * Equal windows before and after: the cluster first, then every NodePool seen on either side, by name.
 * A NodePool absent on one side shows 0 nodes and null efficiency there.
 */
export function compareWindows(before: WindowSums, after: WindowSums, consolidatedNodePool: string | null): CompareRow[] {
  const b = sumByNodePool(before.rows);
  const a = sumByNodePool(after.rows);
  const pools = [...new Set([...b.keys(), ...a.keys()])].sort((x, y) => x.localeCompare(y));
  return [
    row('cluster', null, false, windowStats(sumAll(before.rows), before.hours), windowStats(sumAll(after.rows), after.hours)),
    ...pools.map((p) =>
      row(
        'nodepool',
        p,
        p === consolidatedNodePool,
        windowStats(b.get(p) ?? zeroSums(), before.hours),
        windowStats(a.get(p) ?? zeroSums(), after.hours),
      ),
    ),
  ];
}

/**
 * Series per NodePool and for the cluster from per-bucket sums; averages divide by the hours each
 * bucket's snapshots cover, so a NodePool that scaled to zero part of a bucket averages lower.
 */
export function timelineSeries(
  rows: readonly (PackingSums & { nodePool: string; bucketStartMs: number })[],
  coverage: readonly { bucketStartMs: number; hours: number }[],
): TimelineSeries[] {
  const hoursOf = new Map(coverage.map((c) => [c.bucketStartMs, c.hours]));
  const point = (tMs: number, s: PackingSums): TimelinePoint => {
    const p = packingStats(s, hoursOf.get(tMs) ?? 0);
    return {
      tMs,
      nodesAvg: p.nodesAvg,
      usdPerHourAvg: p.usdPerHourAvg,
      cpu: p.cpu,
      memory: p.memory,
      costWeightedCpu: p.costWeightedCpu,
      costWeightedMemory: p.costWeightedMemory,
    };
  };
  const byPool = new Map<string, Map<number, PackingSums>>();
  const cluster = new Map<number, PackingSums>();
  for (const r of rows) {
    const buckets = byPool.get(r.nodePool) ?? new Map<number, PackingSums>();
    buckets.set(r.bucketStartMs, addSums(buckets.get(r.bucketStartMs) ?? zeroSums(), r));
    byPool.set(r.nodePool, buckets);
    cluster.set(r.bucketStartMs, addSums(cluster.get(r.bucketStartMs) ?? zeroSums(), r));
  }
  const toPoints = (m: Map<number, PackingSums>): TimelinePoint[] =>
    [...m.entries()].sort(([x], [y]) => x - y).map(([t, s]) => point(t, s));
  return [
    { scope: 'cluster', nodePool: null, points: toPoints(cluster) },
    ...[...byPool.entries()]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([nodePool, m]) => ({ scope: 'nodepool' as const, nodePool, points: toPoints(m) })),
  ];
}
