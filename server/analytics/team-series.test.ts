import { describe, expect, it } from 'vitest';
import type { NamespaceCostSums, TeamCostOptions } from './team-cost.js';
import { defaultBucket, seriesBuckets, teamCostSeries } from './team-series.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

const T = Date.parse('2026-11-02T00:00:00Z');

describe('seriesBuckets', () => {
  it.each([
    [
      'two and a half days by day: the last bucket is short',
      T,
      T + 2.5 * DAY_MS,
      DAY_MS,
      [
        [T, T + DAY_MS],
        [T + DAY_MS, T + 2 * DAY_MS],
        [T + 2 * DAY_MS, T + 2.5 * DAY_MS],
      ],
    ],
    [
      '14 days by week',
      T,
      T + 14 * DAY_MS,
      7 * DAY_MS,
      [
        [T, T + 7 * DAY_MS],
        [T + 7 * DAY_MS, T + 14 * DAY_MS],
      ],
    ],
    [
      'from 05:00, one day and an hour',
      T + 5 * HOUR_MS,
      T + 30 * HOUR_MS,
      DAY_MS,
      [
        [T + 5 * HOUR_MS, T + 29 * HOUR_MS],
        [T + 29 * HOUR_MS, T + 30 * HOUR_MS],
      ],
    ],
    ['an empty range', T, T, DAY_MS, []],
    [
      '90 days by week: 12 full weeks and one of 6 days',
      T,
      T + 90 * DAY_MS,
      7 * DAY_MS,
      Array.from({ length: 13 }, (_x, k) => [T + k * 7 * DAY_MS, Math.min(T + 90 * DAY_MS, T + (k + 1) * 7 * DAY_MS)]),
    ],
  ])('%s', (_name, from, to, bucketMs, want) => {
    expect(seriesBuckets(from, to, bucketMs).map((b) => [b.fromMs, b.toMs])).toEqual(want);
  });

  it.each([
    [31 * DAY_MS, 'day'],
    [31 * DAY_MS + HOUR_MS, 'week'],
    [DAY_MS, 'day'],
    [90 * DAY_MS, 'week'],
  ] as const)('a %d ms range defaults to %s buckets', (spanMs, bucket) => {
    expect(defaultBucket(T, T + spanMs)).toBe(bucket);
  });
});

/*
 * Two day buckets and a half-day one, NodePool general:
 *   day 1: on-demand $0.60 + spot $0.40 = $1.00 (cost-weighted cpu 0.30 + 0.20, memory 0.30 + 0.20);
 *          web (team web) $0.375, jobs (team data) $0.125, idle 1 − 0.5 = 0.50: 37 + 12 + 50 whole cents, and the spare
 *          cent (both have half a cent over) goes to the first, web -> 0.38, 0.12, 0.50
 *   day 2: on-demand $0.30; web $0.10 -> web 0.10, idle 0.20 (jobs ran no pod that day)
 *   half day 3: no snapshot -> no lines, totals 0
 * The bucket-1 rows come per capacity type: they must be added up per NodePool before the split.
 */
const ns = (
  bucketStartMs: number,
  namespace: string,
  team: string,
  requestShareUsd: number,
  legacyRequestShareUsd = 0,
): NamespaceCostSums & { bucketStartMs: number } => ({
  bucketStartMs,
  namespace,
  nodePool: 'general',
  team,
  requestShareUsd,
  cpuShareUsd: requestShareUsd,
  memoryShareUsd: requestShareUsd,
  legacyRequestShareUsd,
  awsSplitCostUsd: requestShareUsd,
  awsUnusedCostUsd: 0,
  openCostUsd: requestShareUsd,
  legacyMethodsUsd: 0,
  podHours: 1,
  usagePodHours: 0,
});
const pool = (bucketStartMs: number, costUsd: number, cw: number) => ({
  bucketStartMs,
  nodePool: 'general',
  costUsd,
  costWeightedCpuUsd: cw,
  costWeightedMemoryUsd: cw,
});
const opts: TeamCostOptions = { method: 'request-share', weights: { cpu: 0.5, memory: 0.5 }, idle: 'line', teamOf: (r) => r.team };

describe('teamCostSeries', () => {
  const buckets = seriesBuckets(T, T + 2.5 * DAY_MS, DAY_MS);
  const namespaces = [ns(T, 'web', 'web', 0.375), ns(T, 'jobs', 'data', 0.125), ns(T + DAY_MS, 'web', 'web', 0.1)];
  const pools = [pool(T, 0.6, 0.3), pool(T, 0.4, 0.2), pool(T + DAY_MS, 0.3, 0.1)];

  it('splits each bucket on its own; the cents of each add up to its node cost', () => {
    const { buckets: got, notes } = teamCostSeries(buckets, namespaces, pools, opts);
    expect(got.map((b) => b.result.teams.map((t) => [t.kind, t.team, t.costUsd]))).toEqual([
      [
        ['team', 'web', 0.38],
        ['team', 'data', 0.12],
        ['idle', null, 0.5],
      ],
      [
        ['team', 'web', 0.1],
        ['idle', null, 0.2],
      ],
      [],
    ]);
    expect(got.map((b) => b.result.totals)).toEqual([
      { nodeCostUsd: 1, teamsUsd: 0.5, idleUsd: 0.5, residualUsd: 0 },
      { nodeCostUsd: 0.3, teamsUsd: 0.1, idleUsd: 0.2, residualUsd: expect.closeTo(0, 12) as number },
      { nodeCostUsd: 0, teamsUsd: 0, idleUsd: 0, residualUsd: 0 },
    ]);
    expect(got.map((b) => [b.fromMs, b.toMs])).toEqual(buckets.map((b) => [b.fromMs, b.toMs]));
    expect(notes).toEqual([]);
  });

  it('idle spread per bucket: day 1 idle 0.50 goes 3:1 to web and data, day 2 all to web', () => {
    const { buckets: got } = teamCostSeries(buckets, namespaces, pools, { ...opts, idle: 'spread' });
    expect(got.map((b) => b.result.teams.map((t) => [t.team, t.costUsd]))).toEqual([
      [
        ['web', 0.75],
        ['data', 0.25],
      ],
      [['web', 0.3]],
      [],
    ]);
  });

  it('says once for the whole range how much cost predates the per-resource shares ($0.20 + $0.05)', () => {
    const legacy = [ns(T, 'web', 'web', 0.375, 0.2), ns(T + DAY_MS, 'web', 'web', 0.1, 0.05)];
    const { notes } = teamCostSeries(buckets, legacy, pools, { ...opts, weights: { cpu: 0.7, memory: 0.3 } });
    expect(notes).toEqual(['$0.25 of team cost comes from snapshots stored before per-resource shares were recorded: split 50/50 there.']);
  });

  it('likewise for cost that predates AWS split and OpenCost (migration 0010): $0.30 + $0.10', () => {
    const legacy = [
      { ...ns(T, 'web', 'web', 0.375), legacyMethodsUsd: 0.3 },
      { ...ns(T + DAY_MS, 'web', 'web', 0.1), legacyMethodsUsd: 0.1 },
    ];
    expect(teamCostSeries(buckets, legacy, pools, { ...opts, method: 'opencost' }).notes).toEqual([
      '$0.40 of team cost comes from snapshots stored before OpenCost was recorded (before migration 0010): split by request share 50/50 there.',
    ]);
    expect(teamCostSeries(buckets, legacy, pools, opts).notes).toEqual([]);
  });
});
