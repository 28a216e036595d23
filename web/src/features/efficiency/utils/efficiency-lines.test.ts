import { describe, expect, it } from 'vitest';
import { meanPercent, toEfficiencyRows } from './efficiency-lines';

const t0 = Date.parse('2026-11-01T00:00:00Z');
const t1 = t0 + 15 * 60_000;

describe('toEfficiencyRows', () => {
  const { rows, nodePools } = toEfficiencyRows([
    { nodePool: 'general', points: [
      { bucketStartMs: t1, cpu: 0.625, memory: 0.25, nodesAvg: 1, usdPerHourAvg: 0.96 },
      { bucketStartMs: t0, cpu: 0.5, memory: null, nodesAvg: 1, usdPerHourAvg: 0.96 },
    ] },
    { nodePool: 'batch', points: [{ bucketStartMs: t1, cpu: 0.25, memory: 0.125, nodesAvg: 1, usdPerHourAvg: 0.3 }] },
  ], 15 * 60_000);

  it('merges series on bucket start, sorted by time, in percent', () => {
    expect(rows).toEqual([
      { t: t0, cpu: { general: 50 }, memory: { general: null } },
      { t: t1, cpu: { general: 62.5, batch: 25 }, memory: { general: 25, batch: 12.5 } },
    ]);
    expect(nodePools).toEqual(['general', 'batch']);
  });
});

describe('toEfficiencyRows gaps', () => {
  it('breaks a line where buckets are missing, without touching other series', () => {
    const bucketMs = 15 * 60_000;
    const point = (t: number, cpu: number) => ({ bucketStartMs: t, cpu, memory: cpu, nodesAvg: 1, usdPerHourAvg: 1 });
    // batch has buckets 0 and 3 (1 and 2 missing): a null goes in bucket 1.
    const { rows } = toEfficiencyRows([{ nodePool: 'batch', points: [point(t0, 0.5), point(t0 + 3 * bucketMs, 0.75)] }], bucketMs);
    expect(rows).toEqual([
      { t: t0, cpu: { batch: 50 }, memory: { batch: 50 } },
      { t: t0 + bucketMs, cpu: { batch: null }, memory: { batch: null } },
      { t: t0 + 3 * bucketMs, cpu: { batch: 75 }, memory: { batch: 75 } },
    ]);
  });
});

describe('meanPercent', () => {
  const series = { nodePool: 'general', points: [
    { bucketStartMs: t0, cpu: 0.5, memory: null, nodesAvg: 1, usdPerHourAvg: 1 },
    { bucketStartMs: t1, cpu: 0.75, memory: null, nodesAvg: 1, usdPerHourAvg: 1 },
  ] };
  describe.each([
    { resource: 'cpu' as const, expected: 62.5 }, // (50 + 75) / 2
    { resource: 'memory' as const, expected: null },
  ])('$resource', ({ resource, expected }) => {
    it(`-> ${expected}`, () => expect(meanPercent(series, resource)).toBe(expected));
  });
});
