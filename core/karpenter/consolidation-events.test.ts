import { describe, expect, it } from 'vitest';
import type { DisruptionReason } from '../labels.js';
import { type ConsolidationCommand, type ConsolidationExplanation, parseConsolidationEvent } from './events.js';

/*
 * Karpenter's own explanations, each message built as its recorder builds it (kubernetes-sigs/karpenter; file@tag:
 * fmt.Sprintf of pkg/controllers/disruption/events/events.go around the command text of types.go). Go prints %.2f
 * and %.1f rounding an exact half to even (3.75 -> "3.8"). Figures of the Balanced rows are the worked examples of
 * designs/balanced-consolidation.md@v1.14.1.
 */

type Row = [origin: string, eventReason: string, message: string, expected: ConsolidationExplanation | null];

const cmd = (
  decision: 'delete' | 'replace',
  candidates: string[],
  replacements = 0,
  nodesInCommand = candidates.length,
  extra: { reason?: DisruptionReason; commandId?: string; nodePools?: string[] } = {},
): ConsolidationCommand => ({
  decision,
  candidates,
  nodesInCommand,
  replacements,
  reason: extra.reason ?? null,
  commandId: extra.commandId ?? null,
  nodePools: extra.nodePools ?? null,
});

const ID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

const ROWS: Row[] = [
  [
    // Command.String() "delete: [node-1]" (consolidation_logging_test.go@v1.14.1:434); the events are published before
    // the controller gives the command its method and id (controller.go@v1.14.1:226), so the simple form is written.
    'events.go@v1.9.0:142 ConsolidationCandidate, a delete',
    'ConsolidationCandidate',
    'Consolidation candidate: delete: [node-1] (savings: $0.50)',
    { kind: 'candidate', command: cmd('delete', ['node-1']), commandText: 'delete: [node-1]', savings: 0.5 },
  ],
  [
    // "replace: [node-1] -> [2 replacements]" (consolidation_logging_test.go@v1.14.1:458); savings 0.50 - (0.20 + 0.15) (:148).
    'events.go@v1.14.1:142 ConsolidationCandidate, a replace by two',
    'ConsolidationCandidate',
    'Consolidation candidate: replace: [node-1] -> [2 replacements] (savings: $0.15)',
    {
      kind: 'candidate',
      command: cmd('replace', ['node-1'], 2),
      commandText: 'replace: [node-1] -> [2 replacements]',
      savings: 0.15,
    },
  ],
  [
    // StringForNode of a 3-node command (types.go@v1.14.1:350): this node's share only.
    'types.go@v1.14.1 StringForNode, one node of a multi-node delete',
    'ConsolidationCandidate',
    'Consolidation candidate: delete: [ip-10-0-71-90.us-west-2.compute.internal] (part of 3-node consolidation) (savings: $0.29)',
    {
      kind: 'candidate',
      command: cmd('delete', ['ip-10-0-71-90.us-west-2.compute.internal'], 0, 3),
      commandText: 'delete: [ip-10-0-71-90.us-west-2.compute.internal] (part of 3-node consolidation)',
      savings: 0.29,
    },
  ],
  [
    // Command.String()'s full form at v1.9.0 (types.go:213): reason/id, then its own "(savings: …)".
    'types.go@v1.9.0:213 full form inside a candidate event',
    'ConsolidationCandidate',
    `Consolidation candidate: Underutilized/${ID}: replace: [node-1] -> [1 replacement] (savings: $0.05) (savings: $0.05)`,
    {
      kind: 'candidate',
      command: cmd('replace', ['node-1'], 1, 1, { reason: 'Underutilized', commandId: ID }),
      commandText: `Underutilized/${ID}: replace: [node-1] -> [1 replacement] (savings: $0.05)`,
      savings: 0.05,
    },
  ],
  [
    'types.go@v1.11.0:221 full form with nodepools=',
    'ConsolidationCandidate',
    `Consolidation candidate: Empty/${ID}: delete: nodepools=[default,batch]: [node-1, node-2] (savings: $1.20) (savings: $1.20)`,
    {
      kind: 'candidate',
      command: cmd('delete', ['node-1', 'node-2'], 0, 2, { reason: 'Empty', commandId: ID, nodePools: ['default', 'batch'] }),
      commandText: `Empty/${ID}: delete: nodepools=[default,batch]: [node-1, node-2] (savings: $1.20)`,
      savings: 1.2,
    },
  ],
  [
    // EstimatedSavings can be negative (an unpriced source node, types.go@v1.14.1 EstimatedSavings): "$%.2f" of -0.1.
    'events.go@v1.14.1:142 negative savings',
    'ConsolidationCandidate',
    'Consolidation candidate: replace: [node-1] -> [1 replacement] (savings: $-0.10)',
    {
      kind: 'candidate',
      command: cmd('replace', ['node-1'], 1),
      commandText: 'replace: [node-1] -> [1 replacement]',
      savings: -0.1,
    },
  ],
  ...(['budget', 'scheduling', 'churn', 'unknown'] as const).map((reason): Row => [
    `events.go@v1.9.0:164 ConsolidationRejected, reason ${reason} (validation.go@v1.14.1:359 getValidationFailureReason)`,
    'ConsolidationRejected',
    `Consolidation rejected: replace: [node-1] -> [1 replacement], reason: ${reason} (savings: $0.10)`,
    {
      kind: 'rejected',
      command: cmd('replace', ['node-1'], 1),
      commandText: 'replace: [node-1] -> [1 replacement]',
      rejection: reason,
      savings: 0.1,
      score: null,
    },
  ]),
  [
    'events.go@v1.14.1:164 a rejected node of a multi-node delete',
    'ConsolidationRejected',
    'Consolidation rejected: delete: [node-2] (part of 2-node consolidation), reason: budget (savings: $0.97)',
    {
      kind: 'rejected',
      command: cmd('delete', ['node-2'], 0, 2),
      commandText: 'delete: [node-2] (part of 2-node consolidation)',
      rejection: 'budget',
      savings: 0.97,
      score: null,
    },
  ],
  [
    // Oversized node: savings 7.26 / 58.08 = 12.5 %, disruption 3 / 80 = 3.75 % (printed 3.8), score 3.33.
    'events.go@v1.14.1:185 ConsolidationApproved (designs/balanced-consolidation.md:213)',
    'ConsolidationApproved',
    'score 3.33 >= threshold 0.50 (k: 2, savings 12.5%, disruption 3.8%)',
    { kind: 'approved', score: 3.33, threshold: 0.5, k: 2, savingsPercent: 12.5, disruptionPercent: 3.8 },
  ],
  [
    // Uniform pool boundary: 2.42 / 48.40 = 5.0 %, 8 / 80 = 10.0 %, score exactly 0.50 approves.
    'events.go@v1.14.1:209 ConsolidationApprovedMultiNode on the NodePool (designs/balanced-consolidation.md:247)',
    'ConsolidationApproved',
    'score 0.50 >= threshold 0.50 (k: 2, savings 5.0%, disruption 10.0%)',
    { kind: 'approved', score: 0.5, threshold: 0.5, k: 2, savingsPercent: 5, disruptionPercent: 10 },
  ],
  [
    // 2.42 / 58.08 = 4.17 % (printed 4.2), 8 / 80 = 10.0 %, score 0.42: the design's rejection wording (v1.14.1
    // publishes no rejection event for a score; read as reason "score" should a release write it).
    'designs/balanced-consolidation.md@v1.14.1:196 ConsolidationRejected by score (:233)',
    'ConsolidationRejected',
    'score 0.42 < threshold 0.50 (k: 2, savings 4.2%, disruption 10.0%)',
    {
      kind: 'rejected',
      command: null,
      commandText: '',
      rejection: 'score',
      savings: null,
      score: { score: 0.42, threshold: 0.5, k: 2, savingsPercent: 4.2, disruptionPercent: 10 },
    },
  ],
  ...(
    [
      ['consolidation.go@v1.14.1:230', "Can't replace with a cheaper node", 'not-cheaper'],
      [
        'consolidation.go@v1.14.1:266',
        "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
        'spot-to-spot-disabled',
      ],
      [
        'consolidation.go@v1.14.1:312',
        'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 4',
        'spot-to-spot-flexibility',
      ],
      // pretty.Sentence(results.NonPendingPodSchedulingErrors()) (scheduler.go@v1.14.1:403)
      [
        'consolidation.go@v1.14.1:175',
        'Not all pods would schedule, shop/web-7d4b9c-x2kq1 => would schedule against uninitialized nodeclaim default-abcde',
        'pods-would-not-schedule',
      ],
      ['consolidation.go@v1.14.1:192', "Can't remove without creating 2 candidates", 'more-nodes-needed'],
      ['consolidation.go@v1.14.1:224', 'Filtering by price: no instance types found', 'price-filter'],
      ['consolidation.go@v1.14.1:123', 'NodePool "default" has consolidation disabled', 'consolidation-disabled'],
      ['consolidation.go@v1.0.0:96', 'NodePool "default" has non-empty consolidation disabled', 'consolidation-disabled'],
      [
        'consolidation.go@v1.14.1:132',
        'NodePool "default" has consolidation policy WhenEmpty, but node is not empty',
        'when-empty-not-empty',
      ],
      ['consolidation.go@v1.14.1:111', 'Instance Type "m5.large" not found', 'instance-type-unknown'],
      ['consolidation.go@v1.14.1:119', 'Node does not have label "topology.kubernetes.io/zone"', 'label-missing'],
      ['emptiness.go@v1.14.1:55', 'Node "ip-10-0-1-2.ec2.internal" has buffer pods', 'buffer-pods'],
      ['a sentence no release wrote', 'Node is having a bad day', 'other'],
    ] as const
  ).map(([origin, message, cause]): Row => [
    `${origin} Unconsolidatable`,
    'Unconsolidatable',
    message,
    { kind: 'unconsolidatable', cause, detail: message },
  ]),
  // Not one of these four reasons: not an explanation.
  ['events.go@v1.14.1 DisruptionTerminating', 'DisruptionTerminating', 'Disrupting Node: Underutilized', null],
  // A wording of a known reason that no release wrote: kept, with nothing guessed.
  [
    'an unknown candidate wording',
    'ConsolidationCandidate',
    'Consolidation might happen',
    { kind: 'candidate', command: null, commandText: 'Consolidation might happen', savings: null },
  ],
];

describe('parseConsolidationEvent: every wording as Karpenter writes it', () => {
  it.each(ROWS)('%s', (_origin, reason, message, expected) => {
    expect(parseConsolidationEvent(reason, message)).toEqual(expected);
  });
});
