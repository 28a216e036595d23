import { describe, expect, it } from 'vitest';
import { compareWindows, timelineSeries } from './before-after.js';
import { addSums, zeroSums, type PackingSums } from './packing.js';

const GiB = 1024 ** 3;

/**
 * One node for `hours`: 4 vCPU / 16 GiB at `usd`/h with the given requests. Its relative-price weights (the collector's
 * sums): 4 × 0.031611 = 0.126444 and 16 × 0.004237 = 0.067792 of 0.194236, w_cpu 0.650981, w_memory 0.349019.
 */
const W_CPU = 0.126444 / 0.194236;
function node(hours: number, usd: number, reqCpu: number, reqMemGiB: number): PackingSums {
  return {
    ...zeroSums(),
    nodeHours: hours,
    costUsd: usd * hours,
    allocCpuMillicoreHours: 4000 * hours,
    reqCpuMillicoreHours: reqCpu * hours,
    allocMemoryByteHours: 16 * GiB * hours,
    reqMemoryByteHours: reqMemGiB * GiB * hours,
    allocPodHours: 110 * hours,
    reqPodHours: 10 * hours,
    costWeightedCpuUsd: usd * (reqCpu / 4000) * hours,
    costWeightedMemoryUsd: usd * (reqMemGiB / 16) * hours,
    costWeightedPodsUsd: usd * (10 / 110) * hours,
    onDemandUsd: usd * hours,
    rpRequestedUsd: usd * (W_CPU * (reqCpu / 4000) + (1 - W_CPU) * (reqMemGiB / 16)) * hours,
    rpCpuUsd: usd * W_CPU * hours,
  };
}

describe('compareWindows: a before/after with one node removed', () => {
  // Before (1 h): two general nodes at $0.20/h, each 1.5 vCPU / 2 GiB requested; a system node at $0.10/h, 1 vCPU / 4 GiB.
  // After (1 h): the pods of one general node moved to the other (3 vCPU / 4 GiB); the system node unchanged.
  const system = node(1, 0.1, 1000, 4);
  const before = {
    rows: [
      { ...addSums(node(1, 0.2, 1500, 2), node(1, 0.2, 1500, 2)), nodePool: 'general' },
      { ...system, nodePool: 'system' },
    ],
    hours: 1,
  };
  const after = {
    rows: [
      { ...node(1, 0.2, 3000, 4), nodePool: 'general' },
      { ...system, nodePool: 'system' },
    ],
    hours: 1,
  };
  const rows = compareWindows(before, after, 'general');

  it('the consolidated NodePool: fewer nodes, lower cost per hour, higher efficiency', () => {
    const g = rows.find((r) => r.nodePool === 'general');
    expect(g?.consolidated).toBe(true);
    expect(g?.before).toMatchObject({ nodesAvg: 2, cpu: 3000 / 8000, memory: 4 / 32 });
    expect(g?.before.usdPerHourAvg).toBeCloseTo(0.4, 12);
    expect(g?.after).toMatchObject({ nodesAvg: 1, cpu: 0.75, memory: 0.25 });
    expect(g?.after.usdPerHourAvg).toBeCloseTo(0.2, 12);
    expect(g?.change.nodesAvg).toBe(-1);
    expect(g?.change.usdPerHourAvg).toBeCloseTo(-0.2, 12);
    expect(g?.change.cpu).toBeCloseTo(0.375, 12); // 0.75 − 0.375
    expect(g?.change.memory).toBeCloseTo(0.125, 12); // 0.25 − 0.125
    // idle (relative price) before: 0.4 × (1 − (0.650981 × 0.375 + 0.349019 × 0.125)) = 0.4 × 0.712255 = 0.284902;
    // after: 0.2 × (1 − (0.650981 × 0.75 + 0.349019 × 0.25)) = 0.2 × 0.424509 = 0.084902 (50/50 made them 0.3 and 0.1)
    expect(g?.before.idleUsdPerHourAvg).toBeCloseTo(0.284902, 6);
    expect(g?.after.idleUsdPerHourAvg).toBeCloseTo(0.084902, 6);
  });

  it('the cluster row sums every NodePool; an untouched NodePool shows no change', () => {
    const c = rows[0];
    expect(c.scope).toBe('cluster');
    expect(c.before.nodesAvg).toBe(3);
    expect(c.after.nodesAvg).toBe(2);
    // cpu before (3000 + 1000) / 12000, after (3000 + 1000) / 8000
    expect(c.before.cpu).toBeCloseTo(1 / 3, 12);
    expect(c.after.cpu).toBeCloseTo(0.5, 12);
    const s = rows.find((r) => r.nodePool === 'system');
    expect(s?.consolidated).toBe(false);
    expect(s?.change).toMatchObject({ nodesAvg: 0, usdPerHourAvg: 0, cpu: 0, memory: 0 });
  });

  it('a NodePool gone after the event shows 0 nodes and no efficiency there', () => {
    const gone = compareWindows({ rows: [{ ...node(1, 0.3, 500, 1), nodePool: 'batch' }], hours: 1 }, { rows: [], hours: 1 }, 'batch');
    expect(gone[1]).toMatchObject({
      nodePool: 'batch',
      after: { nodesAvg: 0, cpu: null, usdPerHourAvg: 0 },
      change: { nodesAvg: -1, cpu: null },
    });
  });
});

describe('timelineSeries', () => {
  it('averages each bucket over the hours its snapshots cover, per NodePool and for the cluster', () => {
    // Bucket 0 covers 1 h: general 1 node all of it, batch half of it. Bucket 1 covers 0.5 h: general only.
    const rows = [
      { ...node(1, 0.2, 2000, 4), nodePool: 'general', bucketStartMs: 0 },
      { ...node(0.5, 0.4, 1000, 8), nodePool: 'batch', bucketStartMs: 0 },
      { ...node(0.5, 0.2, 4000, 16), nodePool: 'general', bucketStartMs: 3_600_000 },
    ];
    const series = timelineSeries(rows, [
      { bucketStartMs: 0, hours: 1 },
      { bucketStartMs: 3_600_000, hours: 0.5 },
    ]);
    expect(series.map((s) => s.nodePool)).toEqual([null, 'batch', 'general']);
    const [cluster, batch, general] = series;
    expect(batch.points).toEqual([expect.objectContaining({ tMs: 0, nodesAvg: 0.5, cpu: 0.25 })]);
    expect(batch.points[0].usdPerHourAvg).toBeCloseTo(0.2, 12); // $0.20 over 1 h
    expect(general.points.map((p) => p.cpu)).toEqual([0.5, 1]);
    // cluster bucket 0: 1.5 node-hours over 1 h; cpu (2000 + 500) / (4000 + 2000)
    expect(cluster.points[0].nodesAvg).toBe(1.5);
    expect(cluster.points[0].cpu).toBeCloseTo(2500 / 6000, 12);
    expect(cluster.points[1].nodesAvg).toBe(1);
  });
});
