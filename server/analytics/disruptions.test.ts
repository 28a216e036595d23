import { describe, expect, it } from 'vitest';
import { buildDisruptions, countByReason, parseDisruptionMessage, timelineMarkers, type DisruptionEventRow } from './disruptions.js';
import { HOUR_MS, MINUTE_MS } from '../../core/time.js';

const T = Date.parse('2026-11-01T10:00:00Z');
let uid = 0;

/** The Node and the NodeClaim copy of one Karpenter event, as the repository joins them. */
function pair(atMs: number, reason: string, message: string, node: string, claim: string, nodePool = 'general'): DisruptionEventRow[] {
  const base = {
    atMs,
    reason,
    nodeName: node,
    nodeClaim: claim,
    nodePool,
    instanceType: 'm6i.large',
    capacityType: 'on-demand',
    nodeDeletedAtMs: atMs,
  };
  return [
    { ...base, uid: `u${uid++}`, message, kind: 'Node', name: node },
    { ...base, uid: `u${uid++}`, message: message.replace('Node:', 'NodeClaim:'), kind: 'NodeClaim', name: claim },
  ];
}

function launch(atMs: number, message: string, claim: string, nodePool = 'general'): DisruptionEventRow {
  return {
    uid: `u${uid++}`,
    atMs,
    reason: 'DisruptionLaunching',
    message,
    kind: 'NodeClaim',
    name: claim,
    nodeName: null,
    nodeClaim: claim,
    nodePool,
    instanceType: null,
    capacityType: null,
    nodeDeletedAtMs: null,
  };
}

describe('parseDisruptionMessage', () => {
  it.each([
    ['Disrupting Node: Underutilized/Delete', 'Underutilized', 'Delete'],
    ['Disrupting NodeClaim: Drifted/Replace', 'Drifted', 'Replace'],
    ['Launching NodeClaim: Underutilized/Replace', 'Underutilized', 'Replace'],
    ['Disrupting Node: empty/delete', 'Empty', 'Delete'],
    ['Disrupting Node: Expired', 'Expired', null],
  ])('%s', (message, reason, action) => {
    expect(parseDisruptionMessage(message)).toEqual({ reason, action });
  });
  it('is null for other messages', () => {
    expect(parseDisruptionMessage('Cannot disrupt Node: pod "a/b" has "karpenter.sh/do-not-disrupt" annotation')).toBeNull();
  });
});

describe('buildDisruptions', () => {
  const events: DisruptionEventRow[] = [
    // 10:00 general-a deleted (Underutilized); 10:30 general-b replaced by general-r (and a launch in another pool at the same time).
    ...pair(T, 'DisruptionTerminating', 'Disrupting Node: Underutilized/Delete', 'node-a', 'general-a'),
    ...pair(T + 30 * 60_000, 'DisruptionTerminating', 'Disrupting Node: Underutilized/Replace', 'node-b', 'general-b'),
    launch(T + 30 * 60_000, 'Launching NodeClaim: Underutilized/Replace', 'general-r'),
    launch(T + 30 * 60_000, 'Launching NodeClaim: Underutilized/Replace', 'batch-x', 'batch'),
    // 11:00 spot interruption of batch-s (warning and termination).
    ...pair(T + 60 * 60_000, 'SpotInterrupted', 'Spot interruption warning was triggered', 'node-s', 'batch-s', 'batch'),
    ...pair(T + 60 * 60_000, 'DisruptionTerminating', 'Disrupting Node: Interrupted/Delete', 'node-s', 'batch-s', 'batch'),
    // 11:30 a blocked attempt.
    ...pair(
      T + 90 * 60_000,
      'DisruptionBlocked',
      'Cannot disrupt Node: pod "payments/ledger-db-0" has "karpenter.sh/do-not-disrupt" annotation',
      'node-d',
      'general-d',
    ),
  ];
  const gone = [
    // Events expired: known only from the NodeClaim's lifetime. general-a is also here and must not count twice.
    {
      nodeClaim: 'general-e',
      nodeName: 'node-e',
      nodePool: 'general',
      instanceType: 'm6i.large',
      capacityType: 'on-demand',
      deletedAtMs: T + 120 * 60_000,
      disruptionReason: 'Drifted',
    },
    {
      nodeClaim: 'general-a',
      nodeName: 'node-a',
      nodePool: 'general',
      instanceType: 'm6i.large',
      capacityType: 'on-demand',
      deletedAtMs: T,
      disruptionReason: 'Underutilized',
    },
  ];
  const ds = buildDisruptions(events, gone);

  it('merges the Node and NodeClaim copies into one disruption each', () => {
    expect(ds.map((d) => [d.atMs - T, d.nodeClaim, d.reason, d.action, d.source])).toEqual([
      [0, 'general-a', 'Underutilized', 'Delete', 'event'],
      [30 * 60_000, 'general-b', 'Underutilized', 'Replace', 'event'],
      [60 * 60_000, 'batch-s', 'Interrupted', 'Delete', 'event'],
      [90 * 60_000, 'general-d', '', 'Blocked', 'event'],
      [120 * 60_000, 'general-e', 'Drifted', null, 'nodeclaim'],
    ]);
  });
  it('gives a Replace its replacements from the same NodePool only', () => {
    expect(ds[1].replacements).toEqual(['general-r']);
    expect(ds[0].replacements).toEqual([]);
  });
  it('marks spot interruptions and keeps the Node message', () => {
    expect(ds[2]).toMatchObject({
      spotInterrupted: true,
      nodeName: 'node-s',
      nodePool: 'batch',
      message: 'Disrupting Node: Interrupted/Delete',
    });
    expect(ds[0].id).toBe(`${T}-general-a`);
  });
  it('counts per reason', () => {
    expect(countByReason(ds)).toEqual([
      { reason: 'Underutilized', count: 2 },
      { reason: 'Blocked', count: 1 },
      { reason: 'Drifted', count: 1 },
      { reason: 'Interrupted', count: 1 },
    ]);
  });
  it('keeps two disruptions of the same name far apart in time apart', () => {
    const twice = buildDisruptions([
      ...pair(T, 'DisruptionTerminating', 'Disrupting Node: Empty/Delete', 'node-x', 'general-x'),
      ...pair(T + 10 * 60_000, 'DisruptionTerminating', 'Disrupting Node: Empty/Delete', 'node-x', 'general-x'),
    ]);
    expect(twice).toHaveLength(2);
  });
});

describe('buildDisruptions: replacement matching by time', () => {
  const replace = (atMs: number, claim: string, reason = 'Underutilized', nodePool = 'general') =>
    pair(atMs, 'DisruptionTerminating', `Disrupting Node: ${reason}/Replace`, `node-${claim}`, claim, nodePool);

  it('gives each launch to the nearest Replace of its NodePool and reason within 2 minutes', () => {
    const ds = buildDisruptions([
      ...replace(T, 'old-a'), // 10:00
      ...replace(T + 3 * MINUTE_MS, 'old-b'), // 10:03
      ...replace(T + 3 * MINUTE_MS, 'old-c', 'Drifted'), // 10:03, another reason
      launch(T + 1 * MINUTE_MS, 'Launching NodeClaim: Underutilized/Replace', 'new-1'), // 1 min from a, 2 from b: a
      launch(T + 2 * MINUTE_MS + 30_000, 'Launching NodeClaim: Underutilized/Replace', 'new-2'), // 2.5 from a (too far), 0.5 from b: b
      launch(T + 3 * MINUTE_MS, 'Launching NodeClaim: Drifted/Replace', 'new-3'), // same time as b, but Drifted: c
      launch(T + 6 * MINUTE_MS, 'Launching NodeClaim: Underutilized/Replace', 'new-4'), // 3 min from b: nobody
    ]);
    const byClaim = new Map(ds.map((d) => [d.nodeClaim, d.replacements]));
    expect(byClaim.get('old-a')).toEqual(['new-1']);
    expect(byClaim.get('old-b')).toEqual(['new-2']);
    expect(byClaim.get('old-c')).toEqual(['new-3']);
  });

  it('on a tie, the earlier Replace gets the launch', () => {
    const ds = buildDisruptions([
      ...replace(T + 2 * MINUTE_MS, 'late'),
      ...replace(T, 'early'),
      launch(T + 1 * MINUTE_MS, 'Launching NodeClaim: Underutilized/Replace', 'new'),
    ]);
    expect(ds.map((d) => [d.nodeClaim, d.replacements])).toEqual([
      ['early', ['new']],
      ['late', []],
    ]);
  });

  it('an unparsable launch message matches a Replace of any reason', () => {
    const ds = buildDisruptions([...replace(T, 'old', 'Drifted'), launch(T + MINUTE_MS, 'Launching NodeClaim', 'new')]);
    expect(ds[0].replacements).toEqual(['new']);
  });
});

describe('timelineMarkers', () => {
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
    expect(shape(timelineMarkers(ds, HOUR_MS, 6))).toEqual(['d0x1', 'd1x1', 'd2x1', 'd3x1', 'd4x1', 'd5x1']);
  });

  it('past max, the first of each bucket x NodePool x reason with how many it stands for', () => {
    // Hourly: hour 0 holds d0, d1 (general/Underutilized) and d2 (general/Empty); hour 1 d3; hour 2 d4; hour 5 d5.
    expect(shape(timelineMarkers(ds, HOUR_MS, 5))).toEqual(['d0x2', 'd2x1', 'd3x1', 'd4x1', 'd5x1']);
  });

  it('doubles the bucket until at most max markers are left', () => {
    // 2 h: [0, 2) d0 d1 d3 + d2; [2, 4) d4; [4, 6) d5 -> 4 markers. 4 h: [0, 4) d0..d3 + d2 + d4; [4, 8) d5 -> 4; 8 h: 3.
    expect(shape(timelineMarkers(ds, HOUR_MS, 4))).toEqual(['d0x3', 'd2x1', 'd4x1', 'd5x1']);
    expect(shape(timelineMarkers(ds, HOUR_MS, 3))).toEqual(['d0x4', 'd2x1', 'd4x1']);
    // Fewer than the NodePool x reason pairs cannot be: one bucket holds them all, counts adding up to every disruption.
    const all = timelineMarkers(ds, HOUR_MS, 1);
    expect(shape(all)).toEqual(['d0x4', 'd2x1', 'd4x1']);
    expect(all.reduce((n, m) => n + m.count, 0)).toBe(6);
  });
});
