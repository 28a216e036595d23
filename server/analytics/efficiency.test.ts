import { describe, expect, it } from 'vitest';
import { bucketStart, chooseBucketMs, efficiencyRatio, toEfficiencySeries } from './efficiency.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../core/time.js';

const GiB = 1024 ** 3;

describe('efficiencyRatio', () => {
  describe.each([
    // A 4-vCPU / 16 GiB node whose pods request 2 vCPU and 4 GiB: 50 % cpu, 25 % memory.
    { what: 'cpu of a half-packed node', requested: 2000, allocatable: 4000, expected: 0.5 },
    { what: 'memory of a quarter-packed node', requested: 4 * GiB, allocatable: 16 * GiB, expected: 0.25 },
    // Two nodes summed: (1500 + 3500) / (4000 + 4000) = 5000 / 8000.
    { what: 'two nodes summed', requested: 1500 + 3500, allocatable: 4000 + 4000, expected: 0.625 },
    { what: 'nodes with nothing requested', requested: 0, allocatable: 4000, expected: 0 },
    { what: 'no allocatable (empty NodePool)', requested: 0, allocatable: 0, expected: null },
    { what: 'requests but zero allocatable', requested: 500, allocatable: 0, expected: null },
    { what: 'negative allocatable', requested: 500, allocatable: -1, expected: null },
    { what: 'NaN requested', requested: Number.NaN, allocatable: 4000, expected: null },
  ])('$what', ({ requested, allocatable, expected }) => {
    it(`${requested} / ${allocatable} -> ${expected}`, () => {
      expect(efficiencyRatio(requested, allocatable)).toBe(expected);
    });
  });
});

describe('chooseBucketMs (<= 400 points, counting a partial bucket at each end)', () => {
  describe.each([
    // 60 one-minute buckets + 1 = 61 points.
    { what: '1 hour', rangeMs: HOUR_MS, expected: MINUTE_MS },
    // 399 min -> 399 + 1 = 400 points: still fits; 400 min -> 401: next size up (2 min -> 201).
    { what: '399 minutes', rangeMs: 399 * MINUTE_MS, expected: MINUTE_MS },
    { what: '400 minutes', rangeMs: 400 * MINUTE_MS, expected: 2 * MINUTE_MS },
    // 1440 min: 2 min -> 721, 5 min -> 289 (one point per 5-minute snapshot).
    { what: '1 day', rangeMs: DAY_MS, expected: 5 * MINUTE_MS },
    // 10080 min: 15 min -> 673 (too many), 30 min -> 337.
    { what: '7 days', rangeMs: 7 * DAY_MS, expected: 30 * MINUTE_MS },
    // 336 h: 30 min -> 673, 1 h -> 337.
    { what: '14 days', rangeMs: 14 * DAY_MS, expected: HOUR_MS },
    // 720 h: 1 h -> 721, 2 h -> 361.
    { what: '30 days', rangeMs: 30 * DAY_MS, expected: 2 * HOUR_MS },
    // 2160 h: 3 h -> 721, 6 h -> 361.
    { what: '90 days', rangeMs: 90 * DAY_MS, expected: 6 * HOUR_MS },
    // 3650 days: past 7 d (522 + 1 = 523) -> ceil(3650 / 399) = 10 days -> 365 + 1 = 366.
    { what: '10 years', rangeMs: 3650 * DAY_MS, expected: 10 * DAY_MS },
    // 10950 days: ceil(10950 / 399) = 28 days -> 392 + 1 = 393.
    { what: '30 years', rangeMs: 10950 * DAY_MS, expected: 28 * DAY_MS },
    { what: 'empty range', rangeMs: 0, expected: MINUTE_MS },
  ])('$what', ({ rangeMs, expected }) => {
    it(`-> ${expected / MINUTE_MS} min`, () => {
      const bucketMs = chooseBucketMs(rangeMs);
      expect(bucketMs).toBe(expected);
      expect(Math.ceil(rangeMs / bucketMs) + 1).toBeLessThanOrEqual(400);
    });
  });

  it('honours a smaller cap: 1 day in <= 100 points -> 15 min (96 + 1)', () => {
    expect(chooseBucketMs(DAY_MS, 100)).toBe(15 * MINUTE_MS);
  });
});

describe('bucketStart', () => {
  it('aligns on UTC: 2026-11-01T10:17:30Z in 15 min buckets starts at 10:15', () => {
    expect(new Date(bucketStart(Date.parse('2026-11-01T10:17:30Z'), 15 * MINUTE_MS)).toISOString()).toBe('2026-11-01T10:15:00.000Z');
  });
});

describe('toEfficiencySeries', () => {
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  const series = toEfficiencySeries([
    // 'spot' was present in 1 of the 2 snapshots of the bucket: 1 node at $0.10/h -> 0.5 nodes, $0.05/h on average.
    {
      bucketStartMs: t0,
      nodePool: 'spot',
      requestedCpuMillicores: 1000,
      allocatableCpuMillicores: 2000,
      requestedMemoryBytes: 1 * GiB,
      allocatableMemoryBytes: 8 * GiB,
      nodeSnapshots: 1,
      usdPerHourSum: 0.1,
      snapshotsInBucket: 2,
    },
    // 'general': 2 snapshots of 1 node (4 vCPU, 16 GiB, $0.192/h); requests 2000 m then 3000 m, 4 GiB both times.
    // cpu = (2000 + 3000) / (4000 + 4000) = 0.625; memory = 8 / 32 = 0.25; nodes 2 / 2 = 1; usd (0.192 + 0.192) / 2.
    {
      bucketStartMs: t0 + 5 * MINUTE_MS,
      nodePool: 'general',
      requestedCpuMillicores: 5000,
      allocatableCpuMillicores: 8000,
      requestedMemoryBytes: 8 * GiB,
      allocatableMemoryBytes: 32 * GiB,
      nodeSnapshots: 2,
      usdPerHourSum: 0.384,
      snapshotsInBucket: 2,
    },
    {
      bucketStartMs: t0,
      nodePool: 'general',
      requestedCpuMillicores: 0,
      allocatableCpuMillicores: 0,
      requestedMemoryBytes: 0,
      allocatableMemoryBytes: 0,
      nodeSnapshots: 0,
      usdPerHourSum: 0,
      snapshotsInBucket: 0,
    },
  ]);

  it('groups by NodePool sorted by name, points sorted by time', () => {
    expect(series.map((s) => s.nodePool)).toEqual(['general', 'spot']);
    expect(series[0].points.map((p) => p.bucketStartMs)).toEqual([t0, t0 + 5 * MINUTE_MS]);
  });

  it('computes ratios from sums and averages over every snapshot of the bucket', () => {
    expect(series[0].points[1]).toEqual({
      bucketStartMs: t0 + 5 * MINUTE_MS,
      cpu: 0.625,
      memory: 0.25,
      cpuUsage: null,
      memoryUsage: null,
      nodesAvg: 1,
      usdPerHourAvg: 0.192,
    });
    expect(series[1].points[0]).toEqual({
      bucketStartMs: t0,
      cpu: 0.5,
      memory: 0.125,
      cpuUsage: null,
      memoryUsage: null,
      nodesAvg: 0.5,
      usdPerHourAvg: 0.05,
    });
  });

  it('gives null ratios (not 0 %) where nothing was allocatable', () => {
    expect(series[0].points[0]).toMatchObject({ cpu: null, memory: null, nodesAvg: 0 });
  });
});

describe('toEfficiencySeries with usage', () => {
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  const bucket = {
    bucketStartMs: t0,
    nodePool: 'general',
    requestedCpuMillicores: 5000,
    allocatableCpuMillicores: 8000,
    requestedMemoryBytes: 8 * GiB,
    allocatableMemoryBytes: 32 * GiB,
    nodeSnapshots: 2,
    usdPerHourSum: 0.384,
    snapshotsInBucket: 2,
  };
  // Usage was read in one of the two snapshots: pods used 1500 m of that snapshot's 4000 m and 2 of its 16 GiB.
  // Usage ÷ allocatable counts only that snapshot: 1500 / 4000 = 0.375 (not / 8000), 2 / 16 = 0.125.
  const [general] = toEfficiencySeries(
    [bucket, { ...bucket, bucketStartMs: t0 + 5 * MINUTE_MS }],
    [
      {
        bucketStartMs: t0,
        nodePool: 'general',
        usageCpuMillicores: 1500,
        usageMemoryBytes: 2 * GiB,
        allocatableCpuMillicores: 4000,
        allocatableMemoryBytes: 16 * GiB,
      },
      // Another NodePool's usage does not leak into this one.
      {
        bucketStartMs: t0 + 5 * MINUTE_MS,
        nodePool: 'spot',
        usageCpuMillicores: 900,
        usageMemoryBytes: GiB,
        allocatableCpuMillicores: 1000,
        allocatableMemoryBytes: 2 * GiB,
      },
    ],
  );

  it('puts usage ÷ allocatable of the snapshots that read usage beside requests ÷ allocatable', () => {
    expect(general.points[0]).toMatchObject({ cpu: 0.625, memory: 0.25, cpuUsage: 0.375, memoryUsage: 0.125 });
  });

  it('leaves usage null in a bucket without usage, whatever other NodePools had', () => {
    expect(general.points[1]).toMatchObject({ cpu: 0.625, cpuUsage: null, memoryUsage: null });
  });
});
