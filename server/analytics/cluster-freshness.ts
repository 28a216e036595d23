/**
 * How fresh each cluster's data is (issue 25): its cadence is the median interval between its newest snapshots, and
 * it is stale when its newest snapshot is more than three cadences (at least 15 minutes) behind the ledger's newest
 * snapshot of any cluster, or it has none while another has. Pure: times in, verdicts out.
 */

export const STALE_CADENCES = 3;
export const MIN_STALE_MS = 15 * 60_000;

export interface ClusterTimes {
  /** The cluster's newest snapshots' times (epoch ms), newest first. */
  takenAtMs: readonly number[];
}

export interface Freshness {
  lastSnapshotMs: number | null;
  cadenceMs: number | null;
  stale: boolean;
}

/** The median of the intervals between consecutive times (newest first); null with fewer than two. */
export function cadenceMs(takenAtMs: readonly number[]): number | null {
  const gaps: number[] = [];
  for (let i = 1; i < takenAtMs.length; i++) gaps.push((takenAtMs[i - 1] ?? 0) - (takenAtMs[i] ?? 0));
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  const mid = Math.floor(gaps.length / 2);
  return gaps.length % 2 === 1 ? (gaps[mid] ?? 0) : ((gaps[mid - 1] ?? 0) + (gaps[mid] ?? 0)) / 2;
}

/** Each cluster's freshness against the newest snapshot of them all. */
export function clusterFreshness(clusters: readonly ClusterTimes[]): Freshness[] {
  const newest = clusters.reduce<number | null>((m, c) => {
    const t = c.takenAtMs[0];
    return t === undefined ? m : m === null ? t : Math.max(m, t);
  }, null);
  return clusters.map((c) => {
    const last = c.takenAtMs[0] ?? null;
    const cadence = cadenceMs(c.takenAtMs);
    const allowedMs = Math.max(MIN_STALE_MS, STALE_CADENCES * (cadence ?? 0));
    const stale = newest !== null && (last === null || newest - last > allowedMs);
    return { lastSnapshotMs: last, cadenceMs: cadence, stale };
  });
}
