import { allowedDisruptions } from '../../core/karpenter/scheduling/budgets.js';
import {
  type ConsolidationCommand,
  type EngineContext,
  type ExistingNodeSpec,
  isReschedulable,
  provision,
} from '../../core/karpenter/scheduling/index.js';

/**
 * Karpenter's validation of a consolidation command, 15 seconds after computing it (kubernetes-sigs/karpenter v1.14.1
 * pkg/controllers/disruption/consolidation.go:45 commandValidationDelay; validation.go ConsolidationValidator.isValid),
 * for the change the sandbox knows happens in that window: a node that starts being deleted (a spot interruption).
 * The three checks in Karpenter's order, each with the reason validation.go getValidationFailureReason gives it:
 * - churn (validateCandidates): a candidate no longer passes candidate filtering (a node being deleted is none);
 * - budget (validateCandidates): the candidates' NodePools no longer allow them, the node being deleted now counting
 *   as disrupting (helpers.go BuildDisruptionBudgetMapping: allowed − NotReady or MarkedForDeletion, at least 0);
 * - scheduling (validateCommand): the candidates' pods, with the pods of the node being deleted (SimulateScheduling
 *   reschedules those too), no longer land as the command says: a delete that now needs a NodeClaim, a replace that
 *   now needs none or more than one, or whose instance types are not a subset of the new simulation's.
 * "unknown" (a plain ValidationError: validateCommand with no candidates) cannot follow from a change in the window:
 * validateCandidates has already failed with churn by then.
 */

export type RejectionReason = 'budget' | 'scheduling' | 'churn';

export function validateCommand(ctx: EngineContext, cmd: ConsolidationCommand, deleting: string): RejectionReason | null {
  const candidates = new Set(cmd.candidates.map((c) => c.node.name));
  if (candidates.has(deleting)) return 'churn';
  const gone = ctx.nodes.find((n) => n.name === deleting);
  if (gone === undefined) return null;

  // budgets as BuildDisruptionBudgetMapping counts them, the deleting node among the disrupting ones
  const numNodes = new Map<string, number>();
  const disrupting = new Map<string, number>();
  for (const n of ctx.nodes) {
    if (n.nodePool === null || !n.initialized) continue;
    numNodes.set(n.nodePool, (numNodes.get(n.nodePool) ?? 0) + 1);
    if (!n.ready || n.markedForDeletion || n.name === deleting) disrupting.set(n.nodePool, (disrupting.get(n.nodePool) ?? 0) + 1);
  }
  const left = new Map<string, number>();
  for (const pool of ctx.pools) {
    const allowed = allowedDisruptions(pool, numNodes.get(pool.name) ?? 0, cmd.reason, ctx.now);
    left.set(pool.name, Math.max(allowed - (disrupting.get(pool.name) ?? 0), 0));
  }
  for (const c of cmd.candidates) {
    const l = left.get(c.pool.name) ?? 0;
    if (l === 0) return 'budget';
    left.set(c.pool.name, l - 1);
  }

  // the scheduling simulation again, without the deleting node and with its pods to place
  const moving = (n: ExistingNodeSpec) => n.pods.filter((p) => isReschedulable(p)).map((p) => ({ ...p, nodeName: null }));
  const pods = [...cmd.candidates.flatMap((c) => moving(c.node)), ...moving(gone)];
  const destinations = ctx.nodes.filter((n) => !n.markedForDeletion && !candidates.has(n.name) && n.name !== deleting);
  const plan = provision(ctx, { pods, destinations });
  if (plan.unschedulable.length > 0) return 'scheduling';
  if (cmd.replacement === null) return plan.nodeClaims.length === 0 ? null : 'scheduling';
  if (plan.nodeClaims.length !== 1) return 'scheduling';
  const now = new Set(plan.nodeClaims[0].claim.options.map((it) => it.name));
  return cmd.replacement.claim.options.every((it) => now.has(it.name)) ? null : 'scheduling';
}

/**
 * Command.StringForNode as the rejection event names a candidate (types.go): the whole command without a method or
 * id for a single-node one ("replace: [n] -> [1 replacement]", "delete: [n]"), "<decision>: [n] (part of N-node
 * consolidation)" for one node of several.
 */
export function commandForNode(cmd: ConsolidationCommand, node: string): string {
  const decision = cmd.replacement ? 'replace' : 'delete';
  if (cmd.candidates.length > 1) return `${decision}: [${node}] (part of ${cmd.candidates.length}-node consolidation)`;
  return cmd.replacement ? `replace: [${node}] -> [1 replacement]` : `delete: [${node}]`;
}
