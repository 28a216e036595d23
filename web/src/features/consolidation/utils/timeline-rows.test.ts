import { describe, expect, it } from 'vitest';
import type { TimelinePoint } from '@schemas/consolidation';
import { countByReason, markTitle } from './reasons';
import { pickSeries, rowNear, toTimelineRows } from './timeline-rows';

const t0 = Date.parse('2026-11-01T00:00:00Z');
const B = 15 * 60_000;
const point = (tMs: number, cpu: number | null, usd = 1): TimelinePoint => ({
  tMs,
  nodesAvg: 2,
  usdPerHourAvg: usd,
  cpu,
  memory: cpu === null ? null : cpu / 2,
  costWeightedCpu: null,
  costWeightedMemory: null,
});

describe('toTimelineRows', () => {
  it('sorts, converts to percent and breaks the line over a hole', () => {
    // Buckets 0, 1, 2, then 5: the usual step is 1 bucket, so 3 buckets is a hole (over 2 steps): a null row at bucket 3.
    expect(toTimelineRows([point(t0 + 5 * B, 0.25), point(t0, 0.5), point(t0 + 2 * B, 0.5), point(t0 + B, 0.75, 2)], B)).toEqual([
      { t: t0, cpuPercent: 50, memoryPercent: 25, usdPerHour: 1, nodes: 2 },
      { t: t0 + B, cpuPercent: 75, memoryPercent: 37.5, usdPerHour: 2, nodes: 2 },
      { t: t0 + 2 * B, cpuPercent: 50, memoryPercent: 25, usdPerHour: 1, nodes: 2 },
      { t: t0 + 3 * B, cpuPercent: null, memoryPercent: null, usdPerHour: null, nodes: null },
      { t: t0 + 5 * B, cpuPercent: 25, memoryPercent: 12.5, usdPerHour: 1, nodes: 2 },
    ]);
  });
  it('draws across a single missed snapshot', () =>
    expect(
      toTimelineRows(
        [0, 1, 2, 4, 5].map((b) => point(t0 + b * B, 0.5)),
        B,
      ).every((r) => r.cpuPercent === 50),
    ).toBe(true));
  it('does not break a line of 5-min snapshots in 2-min buckets (a 1-day range)', () => {
    const rows = toTimelineRows(
      [0, 4, 10, 14, 20].map((m) => point(t0 + m * 60_000, 0.5)),
      2 * 60_000,
    );
    expect(rows.map((r) => r.cpuPercent)).toEqual([50, 50, 50, 50, 50]);
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
      { reason: 'Underutilized', count: 2 },
      { reason: 'Drifted', count: 1 },
      { reason: 'Empty', count: 1 },
    ]));
  it('counts every disruption a thinned marker stands for', () =>
    expect(
      countByReason([
        { reason: 'Empty', count: 3 },
        { reason: 'Underutilized', count: 2 },
        { reason: 'Underutilized', count: 2 },
        { reason: 'Drifted', count: 1 },
      ]),
    ).toEqual([
      { reason: 'Underutilized', count: 4 },
      { reason: 'Empty', count: 3 },
      { reason: 'Drifted', count: 1 },
    ]));
});

describe('markTitle', () => {
  const at = Date.UTC(2026, 10, 3, 2, 30);
  it('names one disruption: reason/action, NodePool, time', () =>
    expect(markTitle({ atMs: at, nodePool: 'general', reason: 'Underutilized', action: 'Replace', count: 1 })).toBe(
      'Underutilized/Replace in general at Nov 3 02:30 UTC',
    ));
  it('counts what a thinned mark stands for', () =>
    expect(markTitle({ atMs: at, nodePool: 'spot-batch', reason: 'Empty', action: 'Delete', count: 12 })).toBe(
      '12 disruptions: Empty in spot-batch, the first at Nov 3 02:30 UTC',
    ));
  it('says so when the reason, action or NodePool is unknown', () =>
    expect(markTitle({ atMs: at, nodePool: '', reason: '', action: null, count: 1 })).toBe('Other in (no NodePool) at Nov 3 02:30 UTC'));
});

describe('pickSeries under "All clusters" of several', () => {
  it('draws the summed nodes and cost, and no packing line (packing is per cluster)', () => {
    const perCluster = [
      { cluster: 'alpha', scope: 'cluster' as const, nodePool: null, points: [point(t0, 0.0625, 0.384)] },
      { cluster: 'beta', scope: 'cluster' as const, nodePool: null, points: [point(t0, 0.25, 0.192)] },
    ];
    const drawn = pickSeries(perCluster, undefined, [{ tMs: t0, nodesAvg: 4, usdPerHourAvg: 0.576 }]);
    expect(toTimelineRows(drawn?.points ?? [], B)).toEqual([{ t: t0, cpuPercent: null, memoryPercent: null, usdPerHour: 0.576, nodes: 4 }]);
    // One cluster's answer (no totals): its own series, packing included.
    expect(pickSeries(perCluster.slice(1), undefined)?.points[0].cpu).toBe(0.25);
  });
});
