import { describe, expect, it } from 'vitest';
import { cadenceMs, clusterFreshness } from './cluster-freshness.js';

const MIN = 60_000;
const T = Date.parse('2026-11-14T12:00:00Z');
/** n snapshots every `stepMin` minutes ending at `end`, newest first. */
const every = (end: number, stepMin: number, n: number): number[] => Array.from({ length: n }, (_, i) => end - i * stepMin * MIN);

describe('cluster freshness (each cluster against its own cadence)', () => {
  it('the cadence is the median interval: 5, 5, 5, 60 minutes -> 5 minutes', () => {
    expect(cadenceMs([T, T - 5 * MIN, T - 10 * MIN, T - 15 * MIN, T - 75 * MIN])).toBe(5 * MIN);
    expect(cadenceMs([T])).toBeNull();
  });

  it('a 5-minute cluster 20 minutes behind the other is stale; one 14 minutes behind is not (at least 15 minutes)', () => {
    const [week4, staging] = clusterFreshness([{ takenAtMs: every(T, 5, 7) }, { takenAtMs: every(T - 20 * MIN, 5, 7) }]);
    expect(week4).toEqual({ lastSnapshotMs: T, cadenceMs: 5 * MIN, stale: false });
    expect(staging?.stale).toBe(true);
    expect(clusterFreshness([{ takenAtMs: every(T, 5, 7) }, { takenAtMs: every(T - 14 * MIN, 5, 7) }])[1]?.stale).toBe(false);
  });

  it('an hourly cluster 2 hours behind a 5-minute one keeps its own cadence: 3 hours allowed, not stale', () => {
    const out = clusterFreshness([{ takenAtMs: every(T, 5, 7) }, { takenAtMs: every(T - 120 * MIN, 60, 7) }]);
    expect(out[1]).toEqual({ lastSnapshotMs: T - 120 * MIN, cadenceMs: 60 * MIN, stale: false });
  });

  it('a cluster without snapshots beside one with is stale; a ledger of one cluster never is', () => {
    expect(clusterFreshness([{ takenAtMs: every(T, 5, 3) }, { takenAtMs: [] }]).map((f) => f.stale)).toEqual([false, true]);
    expect(clusterFreshness([{ takenAtMs: every(T - 1000 * MIN, 5, 3) }])[0]?.stale).toBe(false);
    expect(clusterFreshness([{ takenAtMs: [] }])[0]?.stale).toBe(false);
  });
});
