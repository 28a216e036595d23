import { describe, expect, it } from 'vitest';
import { DISRUPTION_REASONS } from '../labels.js';
import {
  canonicalReason,
  classifyKarpenterEvent,
  DISRUPTION_EVENT_REASONS,
  disruptionFromConditions,
  type KarpenterEvent,
} from './events.js';
import { expireAfterMs } from './expire-after.js';
import { HOUR_MS } from '../time.js';

/*
 * Every wording a Karpenter release has written for a disruption, each row naming where it comes from
 * (kubernetes-sigs/karpenter unless it says aws/karpenter-provider-aws; file@tag). Messages are built exactly as the
 * Go code builds them (fmt.Sprintf + cases.Title for the reason, pretty.Sentence for blocked reasons).
 */

type Row = [origin: string, eventReason: string, message: string, expected: KarpenterEvent];

const term = (reason: string, method: string | null, object: string): KarpenterEvent =>
  ({ kind: 'terminating', reason, method, object }) as KarpenterEvent;
const launch = (reason: string, method: string | null, object: string): KarpenterEvent =>
  ({ kind: 'launching', reason, method, object }) as KarpenterEvent;
const blocked = (
  cause: string,
  object: string | null,
  detail: string,
  subject: string | null = null,
  budgetReason: string | null = null,
): KarpenterEvent => ({ kind: 'blocked', cause, object, detail, subject, budgetReason }) as KarpenterEvent;

const DND = '"karpenter.sh/do-not-disrupt"';

const ROWS: Row[] = [
  // v0.30: deprovisioning controller, Machines and NodeClaims, the deprovisioner's name as the reason.
  [
    'pkg/controllers/deprovisioning/events/events.go@v0.30.0 Terminating (node)',
    'DeprovisioningTerminating',
    'Deprovisioning Node: Consolidation/Delete',
    term('Underutilized', 'Delete', 'Node'),
  ],
  [
    'pkg/controllers/deprovisioning/events/events.go@v0.30.0 Terminating (machine)',
    'DeprovisioningTerminating',
    'Deprovisioning Machine: Drift/Replace',
    term('Drifted', 'Replace', 'Machine'),
  ],
  [
    'pkg/controllers/deprovisioning/events/events.go@v0.31.0 Terminating (nodeclaim)',
    'DeprovisioningTerminating',
    'Deprovisioning NodeClaim: Emptiness/Delete',
    term('Empty', 'Delete', 'NodeClaim'),
  ],
  [
    'pkg/controllers/deprovisioning/events/events.go@v0.30.0 Launching (machine)',
    'DeprovisioningLaunching',
    'Launching Machine: Expiration/Replace',
    launch('Expired', 'Replace', 'Machine'),
  ],
  [
    'pkg/controllers/deprovisioning/events/events.go@v0.31.0 Launching (nodeclaim)',
    'DeprovisioningLaunching',
    'Launching NodeClaim: Consolidation/Replace',
    launch('Underutilized', 'Replace', 'NodeClaim'),
  ],
  [
    'pkg/controllers/deprovisioning/helpers.go@v0.30.0 Blocked (PDB)',
    'DeprovisioningBlocked',
    'Cannot deprovision Node: PDB "default/web-pdb" prevents pod evictions',
    blocked('pdb', 'Node', 'PDB "default/web-pdb" prevents pod evictions', 'default/web-pdb'),
  ],
  [
    'pkg/controllers/deprovisioning/drift.go@v0.30.0 Blocked (scheduling)',
    'DeprovisioningBlocked',
    'Cannot deprovision Machine: Scheduling simulation failed to schedule all pods',
    blocked('scheduling', 'Machine', 'Scheduling simulation failed to schedule all pods'),
  ],
  // v0.32-v0.37: disruption controller, "<method>/<action>".
  [
    'pkg/controllers/disruption/events/events.go@v0.32.0 Terminating (node)',
    'DisruptionTerminating',
    'Disrupting Node: Consolidation/Replace',
    term('Underutilized', 'Replace', 'Node'),
  ],
  [
    'pkg/controllers/disruption/events/events.go@v0.32.0 Terminating (nodeclaim)',
    'DisruptionTerminating',
    'Disrupting NodeClaim: Drift/Delete',
    term('Drifted', 'Delete', 'NodeClaim'),
  ],
  [
    'pkg/controllers/disruption/events/events.go@v0.32.0 Terminating (machine, deprovisioning)',
    'DeprovisioningTerminating',
    'Deprovisioning Machine: Emptiness/Delete',
    term('Empty', 'Delete', 'Machine'),
  ],
  [
    'pkg/controllers/disruption/events/events.go@v0.33.0 Launching',
    'DisruptionLaunching',
    'Launching NodeClaim: Consolidation/Replace',
    launch('Underutilized', 'Replace', 'NodeClaim'),
  ],
  [
    'pkg/controllers/disruption/expiration.go@v0.37.0 Type() = expiration',
    'DisruptionTerminating',
    'Disrupting Node: Expiration/Replace',
    term('Expired', 'Replace', 'Node'),
  ],
  [
    'pkg/controllers/disruption/helpers.go@v0.32.0 Blocked (deleting)',
    'DisruptionBlocked',
    'Cannot disrupt NodeClaim: Node in the process of deletion',
    blocked('deleting', 'NodeClaim', 'Node in the process of deletion'),
  ],
  [
    'pkg/controllers/disruption/types.go@v0.37.0 Blocked (pod)',
    'DisruptionBlocked',
    `Cannot disrupt Node: Pod "payments/ledger-db-0" has ${DND} annotation`,
    blocked('pod-do-not-disrupt', 'Node', `Pod "payments/ledger-db-0" has ${DND} annotation`, 'payments/ledger-db-0'),
  ],
  [
    'pkg/controllers/disruption/types.go@v0.37.0 Blocked (PDB)',
    'DisruptionBlocked',
    'Cannot disrupt Node: PDB "web/web-pdb" prevents pod evictions',
    blocked('pdb', 'Node', 'PDB "web/web-pdb" prevents pod evictions', 'web/web-pdb'),
  ],
  [
    'pkg/controllers/disruption/events/events.go@v0.34.0 NodePoolBlocked',
    'DisruptionBlocked',
    'No allowed disruptions due to blocking budget',
    blocked('budget', null, 'No allowed disruptions due to blocking budget'),
  ],
  // v1.0-v1.5: the NodePool disruption reason, "/replace|delete", title-cased.
  [
    'pkg/controllers/disruption/orchestration/queue.go@v1.0.0 Reason() (delete)',
    'DisruptionTerminating',
    'Disrupting Node: Underutilized/Delete',
    term('Underutilized', 'Delete', 'Node'),
  ],
  [
    'pkg/controllers/disruption/orchestration/queue.go@v1.0.0 Reason() (replace, nodeclaim)',
    'DisruptionTerminating',
    'Disrupting NodeClaim: Drifted/Replace',
    term('Drifted', 'Replace', 'NodeClaim'),
  ],
  [
    'pkg/controllers/disruption/orchestration/queue.go@v1.5.0 Launching',
    'DisruptionLaunching',
    'Launching NodeClaim: Underutilized/Replace',
    launch('Underutilized', 'Replace', 'NodeClaim'),
  ],
  [
    'pkg/controllers/disruption/orchestration/queue.go@v1.5.0 Reason() (empty)',
    'DisruptionTerminating',
    'Disrupting Node: Empty/Delete',
    term('Empty', 'Delete', 'Node'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.0.0 via disruption/types.go Blocked(err.Error())',
    'DisruptionBlocked',
    `Cannot disrupt Node: pod "payments/ledger-db-0" has ${DND} annotation`,
    blocked('pod-do-not-disrupt', 'Node', `pod "payments/ledger-db-0" has ${DND} annotation`, 'payments/ledger-db-0'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.0.0 (pdb)',
    'DisruptionBlocked',
    'Cannot disrupt NodeClaim: pdb "web/web-pdb" prevents pod evictions',
    blocked('pdb', 'NodeClaim', 'pdb "web/web-pdb" prevents pod evictions', 'web/web-pdb'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.1.0 (node annotation)',
    'DisruptionBlocked',
    `Cannot disrupt Node: disruption is blocked through the ${DND} annotation`,
    blocked('node-do-not-disrupt', 'Node', `disruption is blocked through the ${DND} annotation`),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.0.0 (nominated)',
    'DisruptionBlocked',
    'Cannot disrupt Node: state node is nominated for a pending pod',
    blocked('nominated', 'Node', 'state node is nominated for a pending pod'),
  ],
  [
    'pkg/controllers/disruption/events/events.go@v1.0.0 NodePoolBlockedForDisruptionReason',
    'DisruptionBlocked',
    'No allowed disruptions for disruption reason Drifted due to blocking budget',
    blocked('budget', null, 'No allowed disruptions for disruption reason Drifted due to blocking budget', null, 'Drifted'),
  ],
  [
    'pkg/controllers/disruption/types.go@v1.2.0 Blocked(pretty.Sentence(err.Error())) (pod)',
    'DisruptionBlocked',
    `Pod "payments/ledger-db-0" has ${DND} annotation`,
    blocked('pod-do-not-disrupt', null, `Pod "payments/ledger-db-0" has ${DND} annotation`, 'payments/ledger-db-0'),
  ],
  [
    'pkg/controllers/disruption/types.go@v1.2.0 (pdb)',
    'DisruptionBlocked',
    'Pdb "web/web-pdb" prevents pod evictions',
    blocked('pdb', null, 'Pdb "web/web-pdb" prevents pod evictions', 'web/web-pdb'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.2.0 (nominated)',
    'DisruptionBlocked',
    'Node is nominated for a pending pod',
    blocked('nominated', null, 'Node is nominated for a pending pod'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.5.0 serrors.Wrap (pod, name only in the log)',
    'DisruptionBlocked',
    `Pod has ${DND} annotation`,
    blocked('pod-do-not-disrupt', null, `Pod has ${DND} annotation`),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.5.0 (pdb)',
    'DisruptionBlocked',
    'Pdb prevents pod evictions',
    blocked('pdb', null, 'Pdb prevents pod evictions'),
  ],
  [
    'pkg/controllers/disruption/types.go@v1.5.0 (NodePool not found)',
    'DisruptionBlocked',
    'NodePool not found (NodePool=general)',
    blocked('nodepool-missing', null, 'NodePool not found (NodePool=general)'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.9.0 (several PDBs)',
    'DisruptionBlocked',
    'Eviction does not support multiple PDBs',
    blocked('pdb', null, 'Eviction does not support multiple PDBs'),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.14.1 (node annotation)',
    'DisruptionBlocked',
    `Disruption is blocked through the ${DND} annotation`,
    blocked('node-do-not-disrupt', null, `Disruption is blocked through the ${DND} annotation`),
  ],
  [
    'pkg/controllers/state/statenode.go@v1.14.1 (not initialized)',
    'DisruptionBlocked',
    "Node isn't initialized",
    blocked('not-initialized', null, "Node isn't initialized"),
  ],
  // v1.6 and later: the reason alone.
  [
    'pkg/controllers/disruption/queue.go@v1.6.0 Terminating(string(cmd.Reason()))',
    'DisruptionTerminating',
    'Disrupting Node: Underutilized',
    term('Underutilized', null, 'Node'),
  ],
  [
    'pkg/controllers/disruption/queue.go@v1.6.0 (nodeclaim)',
    'DisruptionTerminating',
    'Disrupting NodeClaim: Drifted',
    term('Drifted', null, 'NodeClaim'),
  ],
  [
    'pkg/controllers/disruption/queue.go@v1.14.1 Launching(string(cmd.Reason()))',
    'DisruptionLaunching',
    'Launching NodeClaim: Underutilized',
    launch('Underutilized', null, 'NodeClaim'),
  ],
  ['pkg/controllers/disruption/queue.go@v1.14.1 (empty)', 'DisruptionTerminating', 'Disrupting Node: Empty', term('Empty', null, 'Node')],
  [
    'pkg/controllers/disruption/staticdrift.go@v1.14.1 Reason() = Drifted',
    'DisruptionTerminating',
    'Disrupting Node: Drifted',
    term('Drifted', null, 'Node'),
  ],
  [
    'pkg/controllers/disruption/consolidation.go@v1.14.1 Unconsolidatable',
    'Unconsolidatable',
    "Can't replace with a cheaper node",
    { kind: 'unconsolidatable', detail: "Can't replace with a cheaper node" },
  ],
  // Interruption: aws/karpenter-provider-aws.
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.14.1 SpotInterrupted',
    'SpotInterrupted',
    'Spot interruption warning was triggered',
    { kind: 'interruption-warning', signal: 'SpotInterrupted' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.10.0 CapacityReservationInstanceInterrupted',
    'CapacityReservationInstanceInterrupted',
    'Capacity Reservation interruption warning was triggered',
    { kind: 'interruption-warning', signal: 'CapacityReservationInstanceInterrupted' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.0.0 Stopping',
    'InstanceStopping',
    'Instance is stopping',
    { kind: 'interruption-warning', signal: 'InstanceStopping' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.0.0 Terminating',
    'InstanceTerminating',
    'Instance is terminating',
    { kind: 'interruption-warning', signal: 'InstanceTerminating' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.0.0 Unhealthy',
    'InstanceUnhealthy',
    'An unhealthy warning was triggered for the instance',
    { kind: 'interruption-warning', signal: 'InstanceUnhealthy' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.14.1 TerminatingOnInterruption (node)',
    'TerminatingOnInterruption',
    'Interruption triggered termination for the Node',
    { kind: 'interruption-termination', object: 'Node' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.14.1 TerminatingOnInterruption (nodeclaim)',
    'TerminatingOnInterruption',
    'Interruption triggered termination for the NodeClaim',
    { kind: 'interruption-termination', object: 'NodeClaim' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v0.32.0 TerminatingOnInterruption (machine)',
    'TerminatingOnInterruption',
    'Interruption triggered termination for the Machine',
    { kind: 'interruption-termination', object: 'Machine' },
  ],
  [
    'aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go@v1.14.1 rebalance (no action)',
    'SpotRebalanceRecommendation',
    'Spot rebalance recommendation was triggered',
    { kind: 'other' },
  ],
  // Case and spacing: the same words however they were re-cased or re-spaced on the way.
  ['case: all lower', 'DisruptionTerminating', 'disrupting node: underutilized/replace', term('Underutilized', 'Replace', 'Node')],
  ['case: all upper', 'DisruptionTerminating', 'DISRUPTING NODECLAIM: DRIFTED', term('Drifted', null, 'NodeClaim')],
  [
    'spacing: none after the colon, around the slash',
    'DisruptionTerminating',
    'Disrupting Node:Underutilized / Replace',
    term('Underutilized', 'Replace', 'Node'),
  ],
  ['spacing: doubled and trailing', 'DisruptionLaunching', '  Launching  NodeClaim :  Empty  ', launch('Empty', null, 'NodeClaim')],
  ['v0.3x lower-case method', 'DisruptionTerminating', 'Disrupting Node: consolidation/delete', term('Underutilized', 'Delete', 'Node')],
  // Wordings no release wrote: unrecognised, shown as written.
  [
    'unknown reason word',
    'DisruptionTerminating',
    'Disrupting Node: Rebalanced',
    { kind: 'unrecognised', eventReason: 'DisruptionTerminating', message: 'Disrupting Node: Rebalanced' },
  ],
  [
    'unknown method word',
    'DisruptionTerminating',
    'Disrupting Node: Underutilized/Evict',
    { kind: 'unrecognised', eventReason: 'DisruptionTerminating', message: 'Disrupting Node: Underutilized/Evict' },
  ],
  [
    'a launching message on a terminating event',
    'DisruptionTerminating',
    'Launching NodeClaim: Underutilized',
    { kind: 'unrecognised', eventReason: 'DisruptionTerminating', message: 'Launching NodeClaim: Underutilized' },
  ],
  [
    'free text',
    'DisruptionLaunching',
    'Launching a node for pending pods',
    { kind: 'unrecognised', eventReason: 'DisruptionLaunching', message: 'Launching a node for pending pods' },
  ],
  ['not a disruption event', 'Nominated', 'Pod should schedule on: nodeclaim/general-x7k2p', { kind: 'other' }],
];

describe('classifyKarpenterEvent', () => {
  it.each(ROWS)('%s: %s %j', (_origin, eventReason, message, expected) => {
    expect(classifyKarpenterEvent(eventReason, message)).toEqual(expected);
  });

  it('lists every reason it classifies as a disruption, and nothing else', () => {
    for (const [, eventReason, message] of ROWS) {
      const kind = classifyKarpenterEvent(eventReason, message).kind;
      expect(DISRUPTION_EVENT_REASONS.includes(eventReason), `${eventReason} (${kind})`).toBe(
        kind !== 'other' && kind !== 'unconsolidatable',
      );
    }
  });
});

describe('canonicalReason', () => {
  it.each([
    ['Consolidation', 'Underutilized'],
    ['Drift', 'Drifted'],
    ['Emptiness', 'Empty'],
    ['Expiration', 'Expired'],
    [' underutilized ', 'Underutilized'],
    ['Rebalanced', null],
  ])('%j -> %j', (word, reason) => expect(canonicalReason(word)).toBe(reason));
  it('maps each of today’s reasons to itself', () => {
    for (const r of DISRUPTION_REASONS) expect(canonicalReason(r)).toBe(r);
  });
});

describe('disruptionFromConditions', () => {
  const at = '2026-11-03T10:15:00Z';
  it.each([
    [
      'pkg/controllers/disruption/controller.go@v1.2.0 MarkDisrupted: reason "DisruptionReason", the reason in the message',
      [{ type: 'DisruptionReason', status: 'True', reason: 'DisruptionReason', message: 'Underutilized', lastTransitionTime: at }],
      { reason: 'Underutilized', text: 'Underutilized', atMs: Date.parse(at), from: 'DisruptionReason' },
    ],
    [
      'pkg/controllers/disruption/controller.go@v1.3.1 MarkDisrupted: the reason in both',
      [{ type: 'DisruptionReason', status: 'True', reason: 'Drifted', message: 'Drifted', lastTransitionTime: at }],
      { reason: 'Drifted', text: 'Drifted', atMs: Date.parse(at), from: 'DisruptionReason' },
    ],
    [
      'pkg/controllers/disruption/queue.go@v1.14.1 markDisrupted',
      [
        { type: 'Ready', status: 'True', reason: 'Ready' },
        { type: 'DisruptionReason', status: 'True', reason: 'Empty', message: 'Empty', lastTransitionTime: at },
      ],
      { reason: 'Empty', text: 'Empty', atMs: Date.parse(at), from: 'DisruptionReason' },
    ],
    [
      'a reason no release wrote',
      [{ type: 'DisruptionReason', status: 'True', reason: 'Rebalanced', message: 'Rebalanced' }],
      { reason: null, text: 'Rebalanced', atMs: null, from: 'DisruptionReason' },
    ],
    [
      'Drifted only (pkg/apis/v1/nodeclaim_status.go@v1.0.0 ConditionTypeDrifted)',
      [{ type: 'Drifted', status: 'True', reason: 'NodeClassDrift' }],
      { reason: 'Drifted', text: 'Drifted', atMs: null, from: 'Drifted' },
    ],
    ['cleared (status False)', [{ type: 'DisruptionReason', status: 'False', reason: 'Underutilized' }], null],
    ['none', [], null],
  ])('%s', (_origin, conditions, expected) => {
    expect(disruptionFromConditions(conditions)).toEqual(expected);
  });
});

describe('expireAfterMs (pkg/apis/v1/duration.go NillableDuration, Go time.ParseDuration)', () => {
  it.each([
    ['720h', 720 * HOUR_MS],
    ['720h0m0s', 720 * HOUR_MS],
    ['1h30m', 90 * 60_000],
    ['1.5h', 90 * 60_000],
    ['300s', 300_000],
    ['Never', null],
    ['', null],
    [null, null],
    ['30d', null],
    ['-1h', null],
  ])('%j -> %j', (text, ms) => expect(expireAfterMs(text)).toBe(ms));
});
