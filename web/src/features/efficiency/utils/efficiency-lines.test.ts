import { describe, expect, it } from 'vitest';
import { meanPercent, toEfficiencyRows } from './efficiency-lines';

const t0 = Date.parse('2026-11-01T00:00:00Z');
const t1 = t0 + 15 * 60_000;

describe('toEfficiencyRows', () => {
  const { rows, nodePools, withUsage } = toEfficiencyRows(
    [
      {
        nodePool: 'general',
        points: [
          { bucketStartMs: t1, cpu: 0.625, memory: 0.25, cpuUsage: 0.25, memoryUsage: 0.125, nodesAvg: 1, usdPerHourAvg: 0.96 },
          { bucketStartMs: t0, cpu: 0.5, memory: null, cpuUsage: null, memoryUsage: null, nodesAvg: 1, usdPerHourAvg: 0.96 },
        ],
      },
      {
        nodePool: 'batch',
        points: [{ bucketStartMs: t1, cpu: 0.25, memory: 0.125, cpuUsage: null, memoryUsage: null, nodesAvg: 1, usdPerHourAvg: 0.3 }],
      },
    ],
    15 * 60_000,
  );

  it('merges series on bucket start, sorted by time, in percent', () => {
    expect(rows).toEqual([
      { t: t0, cpu: { general: 50 }, memory: { general: null }, cpuUsage: { general: null }, memoryUsage: { general: null } },
      {
        t: t1,
        cpu: { general: 62.5, batch: 25 },
        memory: { general: 25, batch: 12.5 },
        cpuUsage: { general: 25, batch: null },
        memoryUsage: { general: 12.5, batch: null },
      },
    ]);
    expect(nodePools).toEqual(['general', 'batch']);
    // Only general read usage in the range: only it gets usage lines.
    expect(withUsage).toEqual(['general']);
  });
});

describe('toEfficiencyRows gaps', () => {
  it('breaks a line over a hole longer than twice its usual step', () => {
    const bucketMs = 15 * 60_000;
    const point = (t: number, cpu: number) => ({
      bucketStartMs: t,
      cpu,
      memory: cpu,
      cpuUsage: null,
      memoryUsage: null,
      nodesAvg: 1,
      usdPerHourAvg: 1,
    });
    // Buckets 0, 1, 2, 3, then 7: steps 1, 1, 1, 4, median 1 bucket, so a gap over 2 buckets is a hole: a null at bucket 4.
    const { rows } = toEfficiencyRows([{ nodePool: 'batch', points: [0, 1, 2, 3, 7].map((b) => point(t0 + b * bucketMs, 0.5)) }], bucketMs);
    expect(rows.map((r) => [(r.t - t0) / bucketMs, r.cpu.batch])).toEqual([
      [0, 50],
      [1, 50],
      [2, 50],
      [3, 50],
      [4, null],
      [7, 50],
    ]);
  });
});

describe('meanPercent', () => {
  const series = {
    nodePool: 'general',
    points: [
      { bucketStartMs: t0, cpu: 0.5, memory: null, cpuUsage: null, memoryUsage: null, nodesAvg: 1, usdPerHourAvg: 1 },
      { bucketStartMs: t1, cpu: 0.75, memory: null, cpuUsage: null, memoryUsage: null, nodesAvg: 1, usdPerHourAvg: 1 },
    ],
  };
  describe.each([
    { resource: 'cpu' as const, expected: 62.5 }, // (50 + 75) / 2
    { resource: 'memory' as const, expected: null },
  ])('$resource', ({ resource, expected }) => {
    it(`-> ${expected}`, () => expect(meanPercent(series, resource)).toBe(expected));
  });
});
