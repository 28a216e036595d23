/**
 * Karpenter's Balanced consolidation score (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/disruption/balanced.go
 * ScoreMove, types.go ScoreResult, designs/balanced-consolidation.md): a move in a Balanced NodePool passes when the
 * share of the NodePool's cost it saves, divided by the share of the NodePool's disruption cost it causes, is at
 * least 1/k (k = 2, pkg/apis/v1/nodepool.go BalancedK). A node's disruption cost is 1 plus the positive eviction
 * costs of its reschedulable pods; the NodePool's is the sum over all its nodes, its cost the sum of their prices.
 * The sandbox uses it to decide which of a Balanced NodePool's commands Karpenter would carry out, and for the
 * ConsolidationApproved message.
 */

export const BALANCED_K = 2;

export interface BalancedScore {
  score: number;
  threshold: number;
  k: number;
  /** savings / the NodePool's total cost, as a percentage. */
  savingsPct: number;
  /** the move's disruption cost / the NodePool's total disruption cost, as a percentage. */
  disruptionPct: number;
  approved: boolean;
}

/** ScoreMove + ScoreResult.Score: 0 for no saving (and for zero totals: nothing to normalise against), unbounded for no disruption. */
export function balancedScore(
  savingsUsdPerHour: number,
  moveDisruptionCost: number,
  poolCostUsdPerHour: number,
  poolDisruptionCost: number,
  k = BALANCED_K,
): BalancedScore {
  const zero = poolCostUsdPerHour <= 0 || poolDisruptionCost <= 0;
  const savings = zero ? 0 : savingsUsdPerHour / poolCostUsdPerHour;
  const disruption = zero ? 0 : moveDisruptionCost / poolDisruptionCost;
  const score = savings <= 0 ? 0 : disruption === 0 ? Infinity : savings / disruption;
  return { score, threshold: 1 / k, k, savingsPct: savings * 100, disruptionPct: disruption * 100, approved: score >= 1 / k };
}

/** events.go consolidationScoreMessage: "score %.2f >= threshold %.2f (k: %d, savings %.1f%%, disruption %.1f%%)". */
export function approvedMessage(s: BalancedScore): string {
  const f = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '+Inf');
  return `score ${f(s.score, 2)} >= threshold ${f(s.threshold, 2)} (k: ${s.k}, savings ${f(s.savingsPct, 1)}%, disruption ${f(s.disruptionPct, 1)}%)`;
}
