/**
 * Team cost over time (pure, no I/O): a range cut into day or week buckets, and the team split of
 * attributeTeamCost applied to each bucket on its own, so each bucket's cents add up to that bucket's node cost
 * exactly as GET /api/teams/cost over the bucket's range does.
 */

import {
  attributeTeamCost,
  legacyNotes,
  type NamespaceCostSums,
  type PoolCostSums,
  type TeamCostOptions,
  type TeamCostResult,
} from './team-cost.js';
import { DAY_MS } from '../../core/time.js';

export type SeriesBucket = 'day' | 'week';

export const BUCKET_MS: Readonly<Record<SeriesBucket, number>> = { day: DAY_MS, week: 7 * DAY_MS };

/** Up to this many days a series defaults to day buckets; longer ranges to weeks (at most ~105 bars for 731 days). */
export const MAX_DAY_BUCKETS_BY_DEFAULT = 31;

export const defaultBucket = (fromMs: number, toMs: number): SeriesBucket =>
  toMs - fromMs <= MAX_DAY_BUCKETS_BY_DEFAULT * DAY_MS ? 'day' : 'week';

export interface BucketSpan {
  fromMs: number;
  toMs: number;
}

/** [fromMs, toMs) in steps of bucketMs from fromMs; the last bucket ends at toMs (it may be shorter). */
export function seriesBuckets(fromMs: number, toMs: number, bucketMs: number): BucketSpan[] {
  if (!(bucketMs > 0)) throw new RangeError(`bucketMs must be positive, got ${bucketMs}`);
  const out: BucketSpan[] = [];
  for (let t = fromMs; t < toMs; t += bucketMs) out.push({ fromMs: t, toMs: Math.min(toMs, t + bucketMs) });
  return out;
}

/** A row of sums tagged with the start of its bucket (epoch ms). */
type InBucket<T> = T & { bucketStartMs: number };

/** Pool sums of one bucket, added up per NodePool (the rows may come per capacity type). */
function poolsOf(rows: readonly InBucket<PoolCostSums>[]): PoolCostSums[] {
  const out = new Map<string, PoolCostSums>();
  for (const r of rows) {
    const p = out.get(r.nodePool) ?? { nodePool: r.nodePool, costUsd: 0, costWeightedCpuUsd: 0, costWeightedMemoryUsd: 0 };
    p.costUsd += r.costUsd;
    p.costWeightedCpuUsd += r.costWeightedCpuUsd;
    p.costWeightedMemoryUsd += r.costWeightedMemoryUsd;
    out.set(r.nodePool, p);
  }
  return [...out.values()];
}

const byBucket = <T extends { bucketStartMs: number }>(rows: readonly T[]): Map<number, T[]> => {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const list = out.get(r.bucketStartMs);
    if (list === undefined) out.set(r.bucketStartMs, [r]);
    else list.push(r);
  }
  return out;
};

/**
 * The team split per bucket, and the range's notes. Rows are matched to buckets by their start; a bucket without rows is empty (zero cost),
 * and rows of a start that is no bucket's are ignored (they cannot occur when both come from the same cut).
 */
export function teamCostSeries(
  buckets: readonly BucketSpan[],
  namespaces: readonly InBucket<NamespaceCostSums>[],
  pools: readonly InBucket<PoolCostSums>[],
  o: TeamCostOptions,
): { buckets: (BucketSpan & { result: Omit<TeamCostResult, 'notes'> })[]; notes: string[] } {
  const ns = byBucket(namespaces);
  const ps = byBucket(pools);
  return {
    buckets: buckets.map((b) => ({ ...b, result: attributeTeamCost(ns.get(b.fromMs) ?? [], poolsOf(ps.get(b.fromMs) ?? []), o) })),
    // Once for the whole range, not once per bucket.
    notes: legacyNotes(namespaces, o),
  };
}
