import { describe, expect, it } from 'vitest';
import type { Disruption } from '../../core/karpenter/disruptions.js';
import { countByReason, pageDisruptions, timelineMarkers } from './disruptions.js';
import { HOUR_MS } from '../../core/time.js';

/* How kept disruptions are shown. How they are built is core/karpenter/disruptions.test.ts. */

const row = (id: string, reason: string, blocked = false, nodePool = 'general'): Disruption => ({
  id,
  atMs: Number(id.slice(1)),
  nodeName: `node-${id}`,
  nodeClaim: `${nodePool}-${id}`,
  nodePool,
  reason,
  action: blocked ? 'Blocked' : 'Delete',
  source: 'event',
  spotInterrupted: false,
  instanceType: null,
  capacityType: null,
  nodeDeletedAtMs: null,
  replacements: [],
  message: '',
  blocked,
});

describe('countByReason and pageDisruptions', () => {
  const ds = [
    row('d1', 'Underutilized'),
    row('d2', 'Drifted'),
    row('d3', '', true),
    row('d4', 'Underutilized', false, 'batch'),
    row('d5', 'Interrupted'),
  ];
  it('counts per reason, blocked attempts as Blocked, by count then name', () => {
    expect(countByReason(ds)).toEqual([
      { reason: 'Underutilized', count: 2 },
      { reason: 'Blocked', count: 1 },
      { reason: 'Drifted', count: 1 },
      { reason: 'Interrupted', count: 1 },
    ]);
  });
  it('filters, counts every match and pages', () => {
    const p = pageDisruptions(ds, { kind: 'disruption', nodePool: 'general', offset: 1, limit: 1 });
    expect(p.rows.map((d) => d.id)).toEqual(['d2']);
    expect(p.total).toBe(3);
    expect(pageDisruptions(ds, { kind: 'blocked', offset: 0, limit: null }).rows.map((d) => d.id)).toEqual(['d3']);
  });
});

describe('timelineMarkers', () => {
  const H = HOUR_MS;
  // Six disruptions: general/Underutilized at 00:10, 00:20, 01:30, 05:00; general/Empty at 00:40; spot/Underutilized at 02:00.
  const ds = [
    [10, 'general', 'Underutilized'],
    [20, 'general', 'Underutilized'],
    [40, 'general', 'Empty'],
    [90, 'general', 'Underutilized'],
    [120, 'spot', 'Underutilized'],
    [300, 'general', 'Underutilized'],
  ].map(([min, nodePool, reason], i) => ({
    id: `d${i}`,
    atMs: (min as number) * 60_000,
    nodePool: nodePool as string,
    reason: reason as string,
    action: 'Delete',
  }));
  const shape = (ms: ReturnType<typeof timelineMarkers>) => ms.map((m) => `${m.id}x${m.count}`);

  it('gives every disruption while there are at most max', () => {
    expect(shape(timelineMarkers(ds, H, 6))).toEqual(['d0x1', 'd1x1', 'd2x1', 'd3x1', 'd4x1', 'd5x1']);
  });

  it('past max, the first of each bucket x NodePool x reason with how many it stands for', () => {
    // Hourly: hour 0 holds d0, d1 (general/Underutilized) and d2 (general/Empty); hour 1 d3; hour 2 d4; hour 5 d5.
    expect(shape(timelineMarkers(ds, H, 5))).toEqual(['d0x2', 'd2x1', 'd3x1', 'd4x1', 'd5x1']);
  });

  it('doubles the bucket until at most max markers are left', () => {
    // 2 h: [0, 2) d0 d1 d3 + d2; [2, 4) d4; [4, 6) d5 -> 4 markers. 4 h: [0, 4) d0..d3 + d2 + d4; [4, 8) d5 -> 4; 8 h: 3.
    expect(shape(timelineMarkers(ds, H, 4))).toEqual(['d0x3', 'd2x1', 'd4x1', 'd5x1']);
    expect(shape(timelineMarkers(ds, H, 3))).toEqual(['d0x4', 'd2x1', 'd4x1']);
    // Fewer than the NodePool x reason pairs cannot be: one bucket holds them all, counts adding up to every disruption.
    const all = timelineMarkers(ds, H, 1);
    expect(shape(all)).toEqual(['d0x4', 'd2x1', 'd4x1']);
    expect(all.reduce((n, m) => n + m.count, 0)).toBe(6);
  });
});
