import { describe, expect, it } from 'vitest';
import { buildDisruptions, disruptionsOfNodeClaim, type DisruptionEventInput, type NodeClaimInput } from './disruptions.js';
import { HOUR_MS } from '../time.js';

const T = Date.parse('2026-11-01T10:00:00Z');
const S = 1000;
const MIN = 60_000;
let uid = 0;

/** The Node and the NodeClaim copy of one Karpenter event, as the repository joins them. */
function pair(atMs: number, reason: string, message: string, node: string, claim: string, nodePool = 'general'): DisruptionEventInput[] {
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
  const claimMessage = message.replace(/\bNode:/, 'NodeClaim:').replace('for the Node', 'for the NodeClaim');
  return [
    { ...base, uid: `u${uid++}`, message, kind: 'Node', name: node },
    { ...base, uid: `u${uid++}`, message: claimMessage, kind: 'NodeClaim', name: claim },
  ];
}

function launch(atMs: number, message: string, claim: string, nodePool = 'general'): DisruptionEventInput {
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

function claim(name: string, createdAtMs: number, over: Partial<NodeClaimInput> = {}): NodeClaimInput {
  return {
    name,
    nodePool: name.split('-')[0],
    nodeName: `node-${name}`,
    instanceType: 'm6i.large',
    capacityType: 'on-demand',
    createdAtMs,
    lastSeenMs: createdAtMs,
    deletedAtMs: null,
    disruptionReason: null,
    disruptionAtMs: null,
    expireAfter: '720h',
    removalEventStored: false,
    ...over,
  };
}

/*
 * One hand-worked hour of two NodePools, written once as Karpenter v1.5 writes it (the method after a slash) and
 * once as v1.6 and later write it (no method):
 *   09:58:50 Karpenter marks general-a (Underutilized); 09:58:51 it creates general-r1; 09:59:00 DisruptionLaunching
 *            on general-r1; 10:00:00 general-a terminates: a Replace by general-r1.
 *   10:00:00 batch-a replaced by batch-r (launched 10:00:00, the same instant as general-a's end: each to its pool).
 *   10:15:00 general-p created for pending pods (no event): no one's replacement.
 *   10:20:00 general-b terminates, nothing launched: a Delete (general-p is 5 minutes before it, and not taken).
 *   10:38:00 general-r2 and general-r3 launched (Drifted); 10:40:00 and 10:40:02 general-c and general-d terminate
 *            (Drifted): one decision, both replaced by both.
 *   11:00:00 general-e and general-f emptied: Deletes.
 *   11:30:00 batch-s: SpotInterrupted, then TerminatingOnInterruption (aws provider): Interrupted, Delete.
 *   11:45:00 general-g blocked by a do-not-disrupt pod.
 */
function hour(method: boolean): DisruptionEventInput[] {
  const m = (reason: string, how: 'Replace' | 'Delete') => (method ? `${reason}/${how}` : reason);
  return [
    launch(T - MIN, `Launching NodeClaim: ${m('Underutilized', 'Replace')}`, 'general-r1'),
    ...pair(T, 'DisruptionTerminating', `Disrupting Node: ${m('Underutilized', 'Replace')}`, 'node-a', 'general-a'),
    launch(T, `Launching NodeClaim: ${m('Underutilized', 'Replace')}`, 'batch-r', 'batch'),
    ...pair(T, 'DisruptionTerminating', `Disrupting Node: ${m('Underutilized', 'Replace')}`, 'node-ba', 'batch-a', 'batch'),
    ...pair(T + 20 * MIN, 'DisruptionTerminating', `Disrupting Node: ${m('Underutilized', 'Delete')}`, 'node-b', 'general-b'),
    launch(T + 38 * MIN, `Launching NodeClaim: ${m('Drifted', 'Replace')}`, 'general-r2'),
    launch(T + 38 * MIN, `Launching NodeClaim: ${m('Drifted', 'Replace')}`, 'general-r3'),
    ...pair(T + 40 * MIN, 'DisruptionTerminating', `Disrupting Node: ${m('Drifted', 'Replace')}`, 'node-c', 'general-c'),
    ...pair(T + 40 * MIN + 2 * S, 'DisruptionTerminating', `Disrupting Node: ${m('Drifted', 'Replace')}`, 'node-d', 'general-d'),
    ...pair(T + 60 * MIN, 'DisruptionTerminating', `Disrupting Node: ${m('Empty', 'Delete')}`, 'node-e', 'general-e'),
    ...pair(T + 60 * MIN, 'DisruptionTerminating', `Disrupting Node: ${m('Empty', 'Delete')}`, 'node-f', 'general-f'),
    ...pair(T + 90 * MIN, 'SpotInterrupted', 'Spot interruption warning was triggered', 'node-s', 'batch-s', 'batch'),
    ...pair(T + 90 * MIN, 'TerminatingOnInterruption', 'Interruption triggered termination for the Node', 'node-s', 'batch-s', 'batch'),
    ...pair(T + 105 * MIN, 'DisruptionBlocked', 'Pod has "karpenter.sh/do-not-disrupt" annotation', 'node-g', 'general-g'),
  ];
}

const HOUR_CLAIMS: NodeClaimInput[] = [
  claim('general-a', T - 5 * HOUR_MS, {
    deletedAtMs: T + 5 * MIN,
    removalEventStored: true,
    disruptionReason: 'Underutilized',
    disruptionAtMs: T - 70 * S,
  }),
  claim('general-r1', T - 69 * S),
  claim('batch-r', T - 30 * S),
  claim('general-p', T + 15 * MIN),
  claim('general-r2', T + 38 * MIN),
  claim('general-r3', T + 38 * MIN),
];

// [minutes after 10:00, NodeClaim, reason, action, replacements, spot interrupted, blocked], in the order kept (time, NodePool)
const EXPECTED_HOUR = [
  [0, 'batch-a', 'Underutilized', 'Replace', ['batch-r'], false, false],
  [0, 'general-a', 'Underutilized', 'Replace', ['general-r1'], false, false],
  [20, 'general-b', 'Underutilized', 'Delete', [], false, false],
  [40, 'general-c', 'Drifted', 'Replace', ['general-r2', 'general-r3'], false, false],
  [40 + 2 / 60, 'general-d', 'Drifted', 'Replace', ['general-r2', 'general-r3'], false, false],
  [60, 'general-e', 'Empty', 'Delete', [], false, false],
  [60, 'general-f', 'Empty', 'Delete', [], false, false],
  [90, 'batch-s', 'Interrupted', 'Delete', [], true, false],
  [105, 'general-g', '', 'Blocked', [], false, true],
];

const shape = (ds: ReturnType<typeof buildDisruptions>) =>
  ds.map((d) => [(d.atMs - T) / MIN, d.nodeClaim, d.reason, d.action, d.replacements, d.spotInterrupted, d.blocked]);
const withoutMessages = (ds: ReturnType<typeof buildDisruptions>) => ds.map(({ message: _m, ...rest }) => rest);

describe('buildDisruptions: v1.5 and v1.6 wording give the same disruptions', () => {
  const v15 = buildDisruptions(hour(true), HOUR_CLAIMS);
  const v16 = buildDisruptions(hour(false), HOUR_CLAIMS);

  it('v1.5 (method written): the hand-worked hour', () => {
    expect(shape(v15).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(EXPECTED_HOUR);
  });
  it('v1.6 (no method): the same hour', () => {
    expect(shape(v16).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(EXPECTED_HOUR);
  });
  it('identical but for the messages, which keep each release’s words', () => {
    expect(withoutMessages(v16)).toEqual(withoutMessages(v15));
    expect(v15.find((d) => d.nodeClaim === 'general-a')?.message).toBe('Disrupting Node: Underutilized/Replace');
    expect(v16.find((d) => d.nodeClaim === 'general-a')?.message).toBe('Disrupting Node: Underutilized');
  });
  it('what each NodeClaim replaced and what removed it, from the same rows', () => {
    expect(disruptionsOfNodeClaim(v16, 'general-r2').replaced.map((d) => d.nodeClaim)).toEqual(['general-c', 'general-d']);
    expect(disruptionsOfNodeClaim(v16, 'general-p')).toEqual({ removedBy: null, replaced: [] });
    expect(disruptionsOfNodeClaim(v16, 'general-a').removedBy?.replacements).toEqual(['general-r1']);
  });
});

describe('buildDisruptions: replacements without launch events', () => {
  const noLaunches = (method: boolean) => hour(method).filter((e) => e.reason !== 'DisruptionLaunching');

  it('v1.6: a stored termination without a stored launch is a Delete (Karpenter publishes the launch first)', () => {
    const ds = buildDisruptions(noLaunches(false), HOUR_CLAIMS);
    const by = new Map(ds.map((d) => [d.nodeClaim, [d.action, d.replacements]]));
    // general-r1 was created a second after general-a's DisruptionReason condition: creation alone is no proof.
    expect(by.get('general-a')).toEqual(['Delete', []]);
    expect(by.get('batch-a')).toEqual(['Delete', []]);
    expect(by.get('general-c')).toEqual(['Delete', []]);
  });

  it('v1.5: a written Replace takes the NodeClaims created at its condition’s time (09:58:50 -> general-r1 at 09:58:51), else in the 15 minutes before it', () => {
    const ds = buildDisruptions(noLaunches(true), HOUR_CLAIMS);
    const by = new Map(ds.map((d) => [d.nodeClaim, [d.action, d.replacements]]));
    expect(by.get('general-a')).toEqual(['Replace', ['general-r1']]);
    expect(by.get('batch-a')).toEqual(['Replace', ['batch-r']]);
    // A written Delete takes none, though general-p was created 5 minutes before it.
    expect(by.get('general-b')).toEqual(['Delete', []]);
    expect(by.get('general-c')).toEqual(['Replace', ['general-r2', 'general-r3']]);
  });
});

describe('buildDisruptions: the written method is a cross-check', () => {
  it('a Delete does not take a launch of its pool and reason; the Replace after it does', () => {
    const ds = buildDisruptions([
      ...pair(T, 'DisruptionTerminating', 'Disrupting Node: Underutilized/Delete', 'node-x', 'general-x'),
      launch(T, 'Launching NodeClaim: Underutilized/Replace', 'general-n'),
      ...pair(T + 2 * MIN, 'DisruptionTerminating', 'Disrupting Node: Underutilized/Replace', 'node-y', 'general-y'),
    ]);
    expect(ds.map((d) => [d.nodeClaim, d.action, d.replacements])).toEqual([
      ['general-x', 'Delete', []],
      ['general-y', 'Replace', ['general-n']],
    ]);
  });

  it('a Replace whose replacement left no trace stays a Replace, with none named', () => {
    const ds = buildDisruptions(pair(T, 'DisruptionTerminating', 'Disrupting Node: Drifted/Replace', 'node-x', 'general-x'));
    expect(ds.map((d) => [d.action, d.replacements])).toEqual([['Replace', []]]);
  });
});

describe('buildDisruptions: releases before v1', () => {
  it.each([
    [
      'pkg/controllers/disruption/events/events.go@v0.33.0',
      'DisruptionTerminating',
      'Disrupting Node: Consolidation/Replace',
      'DisruptionLaunching',
      'Launching NodeClaim: Consolidation/Replace',
    ],
    [
      'pkg/controllers/deprovisioning/events/events.go@v0.30.0',
      'DeprovisioningTerminating',
      'Deprovisioning Node: Consolidation/Replace',
      'DeprovisioningLaunching',
      'Launching Machine: Consolidation/Replace',
    ],
  ])('%s: %s pairs with its launch', (_origin, termReason, termMessage, launchReason, launchMessage) => {
    const ds = buildDisruptions([
      ...pair(T, termReason, termMessage, 'node-x', 'general-x'),
      { ...launch(T - MIN, launchMessage, 'general-n'), reason: launchReason },
    ]);
    expect(ds.map((d) => [d.nodeClaim, d.reason, d.action, d.replacements])).toEqual([
      ['general-x', 'Underutilized', 'Replace', ['general-n']],
    ]);
  });

  it('the old sandbox’s "Interrupted/Delete" after a SpotInterrupted warning is an interruption', () => {
    const ds = buildDisruptions([
      ...pair(T, 'SpotInterrupted', 'Spot interruption warning was triggered', 'node-s', 'batch-s', 'batch'),
      ...pair(T, 'DisruptionTerminating', 'Disrupting Node: Interrupted/Delete', 'node-s', 'batch-s', 'batch'),
    ]);
    expect(ds.map((d) => [d.reason, d.action, d.spotInterrupted])).toEqual([['Interrupted', 'Delete', true]]);
  });
});

describe('buildDisruptions: wording no release wrote', () => {
  it('is shown as written, reason Unrecognised, no action guessed', () => {
    const ds = buildDisruptions(pair(T, 'DisruptionTerminating', 'Disrupting Node: Rebalanced', 'node-x', 'general-x'));
    expect(ds.map((d) => [d.reason, d.action, d.message])).toEqual([['Unrecognised', null, 'Disrupting Node: Rebalanced']]);
  });
});

describe('buildDisruptions: NodeClaims gone without a removal event', () => {
  const gone = (name: string, over: Partial<NodeClaimInput>) =>
    claim(name, T - 10 * HOUR_MS, { deletedAtMs: T, lastSeenMs: T - 5 * MIN, ...over });
  const ds = buildDisruptions(
    [],
    [
      // DisruptionReason condition seen at 09:56 (a snapshot or a watch saw it): replaced by general-n created 09:56:01.
      gone('general-a', { disruptionReason: 'Underutilized', disruptionAtMs: T - 4 * MIN }),
      claim('general-n', T - 4 * MIN + S),
      // Condition seen, nothing created at its time: a Delete.
      gone('general-b', { disruptionReason: 'Empty', disruptionAtMs: T - 3 * MIN }),
      // Only Drifted: why it went is known, not how.
      gone('general-c', { disruptionReason: 'Drifted' }),
      // v1 expiration: no event, no condition; 10 h old against expireAfter 8h.
      gone('general-d', { expireAfter: '8h' }),
      // Gone younger than its expireAfter, nothing recorded: not a disruption anyone can name.
      gone('general-e', {}),
      // Its removal event is stored (outside the range read): that event is its disruption.
      gone('general-f', { disruptionReason: 'Underutilized', removalEventStored: true }),
    ],
  );
  it('counts those whose conditions or age say why, at their deletion', () => {
    expect(ds.map((d) => [d.nodeClaim, d.reason, d.action, d.replacements, d.source, d.atMs])).toEqual([
      ['general-a', 'Underutilized', 'Replace', ['general-n'], 'nodeclaim', T],
      ['general-b', 'Empty', 'Delete', [], 'nodeclaim', T],
      ['general-c', 'Drifted', null, [], 'nodeclaim', T],
      ['general-d', 'Expired', 'Delete', [], 'nodeclaim', T],
    ]);
  });
  it('says where the reason came from', () => {
    expect(ds[3].message).toBe('NodeClaim gone after its expireAfter (8h): Karpenter v1 deletes expired NodeClaims without an event');
    expect(ds[2].message).toBe('NodeClaim gone with disruption reason Drifted (no event stored)');
  });
});

describe('buildDisruptions: grouping', () => {
  it('merges the Node and NodeClaim copies, keeps the Node message and the ids', () => {
    const ds = buildDisruptions(pair(T, 'DisruptionTerminating', 'Disrupting Node: Empty', 'node-x', 'general-x'));
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ id: `${T}-general-x`, nodeName: 'node-x', nodeClaim: 'general-x', message: 'Disrupting Node: Empty' });
  });
  it('keeps two disruptions of the same name far apart in time apart', () => {
    const twice = buildDisruptions([
      ...pair(T, 'DisruptionTerminating', 'Disrupting Node: Empty/Delete', 'node-x', 'general-x'),
      ...pair(T + 10 * MIN, 'DisruptionTerminating', 'Disrupting Node: Empty/Delete', 'node-x', 'general-x'),
    ]);
    expect(twice).toHaveLength(2);
  });
  it('gives each launch to the decision it precedes most closely, within 15 minutes and of its reason', () => {
    const replace = (atMs: number, c: string, reason = 'Underutilized') =>
      pair(atMs, 'DisruptionTerminating', `Disrupting Node: ${reason}`, `node-${c}`, c);
    const ds = buildDisruptions([
      ...replace(T, 'general-a'), // 10:00
      ...replace(T + 10 * MIN, 'general-b'), // 10:10
      ...replace(T + 10 * MIN, 'general-c', 'Drifted'), // 10:10, another reason
      launch(T - 2 * MIN, 'Launching NodeClaim: Underutilized', 'general-n1'), // before a: a
      launch(T + 8 * MIN, 'Launching NodeClaim: Underutilized', 'general-n2'), // after a, 2 min before b: b
      launch(T + 9 * MIN, 'Launching NodeClaim: Drifted', 'general-n3'), // Drifted: c
      launch(T + 40 * MIN, 'Launching NodeClaim: Underutilized', 'general-n4'), // 30 min after b: nobody's
    ]);
    const byClaim = new Map(ds.map((d) => [d.nodeClaim, [d.action, d.replacements]]));
    expect(byClaim.get('general-a')).toEqual(['Replace', ['general-n1']]);
    expect(byClaim.get('general-b')).toEqual(['Replace', ['general-n2']]);
    expect(byClaim.get('general-c')).toEqual(['Replace', ['general-n3']]);
  });
});
