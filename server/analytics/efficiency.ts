/** Pure helpers for bin-packing efficiency (Σ requests ÷ Σ allocatable) and time bucketing. No I/O. */

import type { EfficiencyBucketRow, UsageBucketRow } from '../../db/repositories/reports-repository.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../core/time.js';

/**
 * Default ceiling on points per series: what a chart about a thousand pixels wide can draw apart, so the answer is about
 * the same size at any range (5-minute buckets for a day, 30-minute ones for a week, 2-hour ones for 30 days, 6-hour
 * ones for 90 days: 289 to 361 points). At 1,000, 30 days took hourly buckets and a 470 KB answer for three NodePools,
 * which grows with every NodePool (issue 24).
 */
export const MAX_POINTS_PER_SERIES = 400;

/**
 * Bucket sizes that divide a UTC day (or are whole days), so buckets aligned on the epoch start at
 * round UTC times and daily buckets start at UTC midnight.
 */
export const BUCKET_SIZES_MS: readonly number[] = [
  MINUTE_MS,
  2 * MINUTE_MS,
  5 * MINUTE_MS,
  10 * MINUTE_MS,
  15 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
  2 * HOUR_MS,
  3 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS,
  2 * DAY_MS,
  7 * DAY_MS,
];

/**
 * Requested ÷ allocatable as a fraction (0.5 = 50 %). Null when nothing was allocatable: an empty
 * NodePool has no efficiency, which is not the same as 0 % (nodes running with nothing on them).
 */
export function efficiencyRatio(requested: number, allocatable: number): number | null {
  if (!Number.isFinite(requested) || !Number.isFinite(allocatable) || allocatable <= 0) return null;
  return requested / allocatable;
}

/**
 * The smallest bucket from BUCKET_SIZES_MS such that a range of `rangeMs` yields at most `maxPoints`
 * buckets, counting the partial buckets at both ends when buckets are aligned on the epoch
 * (ceil(range / bucket) + 1). Past the largest listed size, whole days.
 */
export function chooseBucketMs(rangeMs: number, maxPoints = MAX_POINTS_PER_SERIES): number {
  if (!Number.isFinite(rangeMs) || rangeMs <= 0) return BUCKET_SIZES_MS[0];
  if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`maxPoints must be an integer >= 2, got ${maxPoints}`);
  const fits = (bucketMs: number): boolean => Math.ceil(rangeMs / bucketMs) + 1 <= maxPoints;
  for (const size of BUCKET_SIZES_MS) if (fits(size)) return size;
  return Math.ceil(rangeMs / (maxPoints - 1) / DAY_MS) * DAY_MS;
}

/** Start of the bucket holding `atMs`, buckets aligned on the epoch (UTC). */
export function bucketStart(atMs: number, bucketMs: number): number {
  return Math.floor(atMs / bucketMs) * bucketMs;
}

export interface EfficiencyPoint {
  bucketStartMs: number;
  cpu: number | null;
  memory: number | null;
  /** Pods' usage ÷ allocatable over the bucket's snapshots that read usage; null without usage. */
  cpuUsage: number | null;
  memoryUsage: number | null;
  nodesAvg: number;
  usdPerHourAvg: number;
}

export interface EfficiencySeries {
  nodePool: string;
  points: EfficiencyPoint[];
}

/**
 * Turns bucket sums into one series per NodePool (sorted by name, points by time). Summing requests
 * and allocatable over the equally spaced snapshots of a bucket before dividing gives the
 * time-weighted ratio. Averages divide by every snapshot of the bucket, so a NodePool scaled to zero
 * in some of them averages lower rather than being skipped. Beside requests, what the pods used ÷ allocatable where
 * usage was collected (`usage` rows of the same buckets; null elsewhere).
 */
export function toEfficiencySeries(rows: readonly EfficiencyBucketRow[], usage: readonly UsageBucketRow[] = []): EfficiencySeries[] {
  const usageOf = new Map(usage.map((u) => [`${u.nodePool}|${u.bucketStartMs}`, u]));
  const byPool = new Map<string, EfficiencyPoint[]>();
  for (const r of rows) {
    const points = byPool.get(r.nodePool) ?? [];
    const snapshots = Math.max(r.snapshotsInBucket, 1);
    const u = usageOf.get(`${r.nodePool}|${r.bucketStartMs}`);
    points.push({
      bucketStartMs: r.bucketStartMs,
      cpu: efficiencyRatio(r.requestedCpuMillicores, r.allocatableCpuMillicores),
      memory: efficiencyRatio(r.requestedMemoryBytes, r.allocatableMemoryBytes),
      cpuUsage: u === undefined ? null : efficiencyRatio(u.usageCpuMillicores, u.allocatableCpuMillicores),
      memoryUsage: u === undefined ? null : efficiencyRatio(u.usageMemoryBytes, u.allocatableMemoryBytes),
      nodesAvg: r.nodeSnapshots / snapshots,
      usdPerHourAvg: r.usdPerHourSum / snapshots,
    });
    byPool.set(r.nodePool, points);
  }
  return [...byPool.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([nodePool, points]) => ({ nodePool, points: points.sort((a, b) => a.bucketStartMs - b.bucketStartMs) }));
}
