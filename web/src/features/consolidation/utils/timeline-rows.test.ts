import { describe, expect, it } from 'vitest';
import type { TimelinePoint } from '../../../../../server/schemas/consolidation';
import { countByReason } from './reasons';
import { pickSeries, rowNear, toTimelineRows } from './timeline-rows';

const t0 = Date.parse('2026-11-01T00:00:00Z');
const B = 15 * 60_000;
const point = (tMs: number, cpu: number | null, usd = 1): TimelinePoint => ({
  tMs, nodesAvg: 2, usdPerHourAvg: usd, cpu, memory: cpu === null ? null : cpu / 2, costWeightedCpu: null, costWeightedMemory: null,
});

describe('toTimelineRows', () => {
  it('sorts, converts to percent and breaks the line over a missing bucket', () => {
    // buckets 0, 1, then 3 (2 missing): a null row at bucket 2.
    expect(toTimelineRows([point(t0 + 3 * B, 0.25), point(t0, 0.5), point(t0 + B, 0.75, 2)], B)).toEqual([
      { t: t0, cpuPercent: 50, memoryPercent: 25, usdPerHour: 1, nodes: 2 },
      { t: t0 + B, cpuPercent: 75, memoryPercent: 37.5, usdPerHour: 2, nodes: 2 },
      { t: t0 + 2 * B, cpuPercent: null, memoryPercent: null, usdPerHour: null, nodes: null },
      { t: t0 + 3 * B, cpuPercent: 25, memoryPercent: 12.5, usdPerHour: 1, nodes: 2 },
    ]);
  });
  it('keeps a null efficiency (nothing allocatable) as null', () => expect(toTimelineRows([point(t0, null)], B)[0]?.cpuPercent).toBeNull());
});

describe('pickSeries', () => {
  const cluster = { scope: 'cluster' as const, nodePool: null, points: [] };
  const general = { scope: 'nodepool' as const, nodePool: 'general', points: [] };
  describe.each([
    { nodePool: undefined, expected: cluster },
    { nodePool: 'general', expected: general },
    { nodePool: 'gone', expected: cluster },
  ])('$nodePool', ({ nodePool, expected }) => it('picks', () => expect(pickSeries([cluster, general], nodePool)).toBe(expected)));
});

describe('rowNear', () => {
  const rows = toTimelineRows([point(t0, 0.5), point(t0 + B, 0.6), point(t0 + 3 * B, 0.7)], B);
  describe.each([
    { at: t0 + 5 * 60_000, expected: t0 }, // 5 min after bucket 0: nearer 0 than 1
    { at: t0 + 10 * 60_000, expected: t0 + B },
    { at: t0 + 2 * B + 60_000, expected: t0 + 3 * B }, // the gap row (2B) has no value: skipped
  ])('$at', ({ at, expected }) => it(`-> ${expected}`, () => expect(rowNear(rows, at)?.t).toBe(expected)));
});

describe('countByReason', () => {
  it('counts, most frequent first, ties by name', () =>
    expect(countByReason([{ reason: 'Empty' }, { reason: 'Underutilized' }, { reason: 'Drifted' }, { reason: 'Underutilized' }])).toEqual([
      { reason: 'Underutilized', count: 2 }, { reason: 'Drifted', count: 1 }, { reason: 'Empty', count: 1 },
    ]));
});
