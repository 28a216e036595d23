import { ANNOTATION_DO_NOT_DISRUPT, type DisruptionReason } from '../../core/labels.js';
import type { KarpenterProfile } from './karpenter-profile.js';

/**
 * The events (reason, type, message, object) the imitated Karpenter release publishes for what the simulation does,
 * as its Go code builds them. Sources, kubernetes-sigs/karpenter unless named:
 * - DisruptionTerminating / DisruptionLaunching: pkg/controllers/disruption/events/events.go ("Disrupting Node: %s",
 *   "Disrupting NodeClaim: %s", "Launching NodeClaim: %s", Normal), the %s being "<Reason>/<Replace|Delete>" up to
 *   v1.5 (orchestration/queue.go Command.Reason()) and "<Reason>" from v1.6 (queue.go string(cmd.Reason())).
 * - DisruptionBlocked for a do-not-disrupt pod: see KarpenterProfile.blockedWording.
 * - Interruption: aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go: SpotInterrupted on the
 *   NodeClaim then the Node (Warning), and once it deletes the NodeClaim TerminatingOnInterruption (Warning,
 *   "Interruption triggered termination for the NodeClaim" / "… for the Node"). It writes no "Disrupting Node" event.
 * - Unconsolidatable (every v1 release; disruption/events/events.go, on the Node then the NodeClaim, Normal): the
 *   message consolidation.go gives, deduplicated per object for 15 minutes.
 * - ConsolidationCandidate (v1.9.0+; events.go ConsolidationCandidate, types.go EmitCandidateEvents): for a command
 *   with a replacement, when consolidation.go computeConsolidation builds it, "Consolidation candidate: <command>
 *   (savings: $%.2f)", the command as Command.String() writes one without a Method: "replace: [<node>] ->
 *   [1 replacement]", or for one node of several "replace: [<node>] (part of N-node consolidation)"
 *   (Command.StringForNode). A delete found there (no NodeClaims to launch) writes none.
 * - ConsolidationApproved (v1.14.0+; balanced.go ApproveCommand): for a single-node move in a Balanced NodePool that
 *   passes, on the Node then the NodeClaim; for a multi-node move, once on the NodePool
 *   (ConsolidationApprovedMultiNode). Rejections write no event (balanced.go: "Rejections emit metrics only").
 * - ConsolidationRejected (v1.9.0+; events.go ConsolidationRejected, types.go EmitRejectedEvents): a single- or
 *   multi-node command that fails validation 15 s after it was computed (singlenodeconsolidation.go:104-109,
 *   multinodeconsolidation.go:103-107), "Consolidation rejected: <command>, reason: <budget|scheduling|churn|unknown>
 *   (savings: $%.2f)" on the Node then the NodeClaim of each candidate; Emptiness writes none (emptiness.go logs it).
 */

export interface EventSpec {
  object: 'Node' | 'NodeClaim';
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type DisruptionMethod = 'Delete' | 'Replace';

export interface KarpenterEventWriter {
  /** On the disrupted Node, then its NodeClaim. */
  terminating(reason: DisruptionReason, method: DisruptionMethod): EventSpec[];
  /** On a replacement NodeClaim. */
  launching(reason: DisruptionReason): EventSpec;
  /** A do-not-disrupt pod ("namespace/name") keeps the node: on the Node, then its NodeClaim. */
  blocked(pod: string): EventSpec[];
  /** A spot interruption, in the order the provider publishes them. */
  spotInterruption(): EventSpec[];
  /** Consolidation cannot act on the node: on the Node, then its NodeClaim. */
  unconsolidatable(message: string): EventSpec[];
  /**
   * A replace command computed (v1.9+; [] before): `node` is the candidate's name, `of` how many candidates the
   * command has, `savingsUsdPerHour` its EstimatedSavings.
   */
  consolidationCandidate(node: string, of: number, savingsUsdPerHour: number): EventSpec[];
  /** A Balanced move approved (v1.14+; [] before), with consolidationScoreMessage's text. */
  consolidationApproved(scoreMessage: string): EventSpec[];
  /**
   * A command that failed validation (v1.9+; [] before): `command` as Command.StringForNode names the candidate
   * (validate-command.ts commandForNode), `reason` validation.go's budget | scheduling | churn | unknown.
   */
  consolidationRejected(command: string, reason: string, savingsUsdPerHour: number): EventSpec[];
}

/** Go's %.2f of a dollar figure (fmt rounds the exact binary value, as toFixed does). */
const dollars = (usd: number): string => `$${usd.toFixed(2)}`;

export function karpenterEventWriter(profile: KarpenterProfile): KarpenterEventWriter {
  const said = (reason: DisruptionReason, method: DisruptionMethod): string =>
    profile.disruptionMessageHasMethod ? `${reason}/${method}` : reason;
  const annotation = `"${ANNOTATION_DO_NOT_DISRUPT}" annotation`;
  return {
    terminating: (reason, method) => [
      { object: 'Node', type: 'Normal', reason: 'DisruptionTerminating', message: `Disrupting Node: ${said(reason, method)}` },
      { object: 'NodeClaim', type: 'Normal', reason: 'DisruptionTerminating', message: `Disrupting NodeClaim: ${said(reason, method)}` },
    ],
    launching: (reason) => ({
      object: 'NodeClaim',
      type: 'Normal',
      reason: 'DisruptionLaunching',
      message: `Launching NodeClaim: ${said(reason, 'Replace')}`,
    }),
    blocked: (pod) => {
      const why =
        profile.blockedWording === 'cannot-disrupt'
          ? (object: string) => `Cannot disrupt ${object}: pod "${pod}" has ${annotation}`
          : profile.blockedWording === 'sentence-with-pod'
            ? () => `Pod "${pod}" has ${annotation}`
            : () => `Pod has ${annotation}`;
      return [
        { object: 'Node', type: 'Normal', reason: 'DisruptionBlocked', message: why('Node') },
        { object: 'NodeClaim', type: 'Normal', reason: 'DisruptionBlocked', message: why('NodeClaim') },
      ];
    },
    spotInterruption: () => [
      { object: 'NodeClaim', type: 'Warning', reason: 'SpotInterrupted', message: 'Spot interruption warning was triggered' },
      { object: 'Node', type: 'Warning', reason: 'SpotInterrupted', message: 'Spot interruption warning was triggered' },
      {
        object: 'NodeClaim',
        type: 'Warning',
        reason: 'TerminatingOnInterruption',
        message: 'Interruption triggered termination for the NodeClaim',
      },
      { object: 'Node', type: 'Warning', reason: 'TerminatingOnInterruption', message: 'Interruption triggered termination for the Node' },
    ],
    unconsolidatable: (message) => [
      { object: 'Node', type: 'Normal', reason: 'Unconsolidatable', message },
      { object: 'NodeClaim', type: 'Normal', reason: 'Unconsolidatable', message },
    ],
    consolidationCandidate: (node, of, savingsUsdPerHour) => {
      if (!profile.consolidationDecisionEvents) return [];
      const command = of === 1 ? `replace: [${node}] -> [1 replacement]` : `replace: [${node}] (part of ${of}-node consolidation)`;
      const message = `Consolidation candidate: ${command} (savings: ${dollars(savingsUsdPerHour)})`;
      return [
        { object: 'Node', type: 'Normal', reason: 'ConsolidationCandidate', message },
        { object: 'NodeClaim', type: 'Normal', reason: 'ConsolidationCandidate', message },
      ];
    },
    consolidationRejected: (command, reason, savingsUsdPerHour) => {
      if (!profile.consolidationDecisionEvents) return [];
      const message = `Consolidation rejected: ${command}, reason: ${reason} (savings: ${dollars(savingsUsdPerHour)})`;
      return [
        { object: 'Node', type: 'Normal', reason: 'ConsolidationRejected', message },
        { object: 'NodeClaim', type: 'Normal', reason: 'ConsolidationRejected', message },
      ];
    },
    consolidationApproved: (message) =>
      profile.balancedConsolidation
        ? [
            { object: 'Node', type: 'Normal', reason: 'ConsolidationApproved', message },
            { object: 'NodeClaim', type: 'Normal', reason: 'ConsolidationApproved', message },
          ]
        : [],
  };
}

/**
 * The DisruptionReason condition Karpenter sets on a NodeClaim it disrupts (pkg/apis/v1/nodeclaim_status.go,
 * disruption/controller.go MarkDisrupted@v1.2.0, queue.go markDisrupted@v1.14.1); null before v1.2, and for
 * interruptions, which the AWS provider handles without it.
 */
export function disruptionReasonCondition(
  profile: KarpenterProfile,
  reason: DisruptionReason,
  lastTransitionTime: string,
): { type: string; status: string; reason: string; message: string; lastTransitionTime: string } | null {
  if (!profile.disruptionReasonCondition || reason === 'Interrupted') return null;
  return {
    type: 'DisruptionReason',
    status: 'True',
    reason: profile.disruptionReasonInMessageOnly ? 'DisruptionReason' : reason,
    message: reason,
    lastTransitionTime,
  };
}
