/**
 * When a time series has a hole. Buckets can be finer than the snapshot interval (a 1-day range is cut
 * into 2-minute buckets while snapshots come every 5 minutes), so a missing bucket is not a hole by
 * itself: a gap counts when it is longer than a bucket and than twice the usual spacing of the points.
 */
export function gapThresholdMs(sortedTimesMs: readonly number[], bucketMs: number): number {
  const steps: number[] = [];
  for (let i = 1; i < sortedTimesMs.length; i++) steps.push(sortedTimesMs[i] - sortedTimesMs[i - 1]);
  if (steps.length === 0) return bucketMs;
  steps.sort((a, b) => a - b);
  const median = steps[Math.floor(steps.length / 2)];
  return Math.max(bucketMs, 2 * median);
}
