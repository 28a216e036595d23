/**
 * Balanced consolidation (consolidationPolicy: Balanced, Karpenter v1.14.0; core designs/balanced-consolidation.md,
 * pkg/controllers/disruption/balanced.go and types.go at v1.14.1). A move (delete or replace) is scored per source
 * NodePool as its share of the NodePool's cost saved over its share of the NodePool's disruption cost:
 *
 *   score = (savings / NodePool cost) / (disruption / NodePool disruption cost),  approved when score >= 1/k, k = 2
 *
 * where a node's disruption cost is 1 + the sum over its reschedulable pods of max(0, EvictionCost) (EvictionCost =
 * 1 + pod-deletion-cost / 2^27 + priority / 2^25, clamped to [-10, 10]), the NodePool's totals are over all its nodes
 * (candidates or not), and a move across NodePools gives each its share of the net savings by its share of the
 * source cost. Every Balanced NodePool of a move must approve it; other policies are not scored.
 */

/** v1.BalancedK */
export const BALANCED_K = 2;
/** PerNodeBaseDisruptionCost: draining a node costs 1 besides its pods. */
export const PER_NODE_DISRUPTION_COST = 1;

export interface NodePoolTotals {
  /** USD per hour of all the NodePool's nodes (Karpenter's ClusterCost; candidates' prices when that is 0). */
  costUsdPerHour: number;
  disruptionCost: number;
}

/** A move's score for one NodePool, as ScoreResult holds it. */
export interface MoveScore {
  nodePool: string;
  savingsFraction: number;
  disruptionFraction: number;
  k: number;
  /** savings / disruption fraction; 0 when nothing is saved (or nothing to normalise against), +Infinity when nothing is disrupted. */
  score: number;
  /** 1 / k */
  threshold: number;
  approved: boolean;
  /**
   * Karpenter's ConsolidationApproved event message, "score 3.33 >= threshold 0.50 (k: 2, savings 12.5%, disruption
   * 3.8%)"; for a rejection the same in the RFC's ConsolidationRejected form ("score 0.42 < threshold 0.50 (…)"),
   * which Karpenter records as a metric, not an event.
   */
  message: string;
}

/**
 * Go's fmt %.Nf: the exact value of the double rounded to N decimals, a tie to the even digit (0.625 → "0.62",
 * where JavaScript's toFixed gives "0.63"), ±Inf as Go writes it.
 */
export function goFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf';
  const s = x.toFixed(digits);
  if (!isExactTie(x, digits)) return s;
  // toFixed rounded the tie away from zero; Go keeps the even neighbour
  const last = Number(s[s.length - 1]);
  if (last % 2 === 0) return s;
  const step = 10 ** -digits;
  return (x > 0 ? Number(s) - step : Number(s) + step).toFixed(digits);
}

/** Whether x·10^digits is exactly an odd multiple of ½ (x = m·2^e exactly, read from its bits). */
function isExactTie(x: number, digits: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mantissa |= 1n << 52n;
    exp = expBits - 1075;
  }
  // 2·x·10^d = mantissa·10^d·2^(exp+1): a tie when that is an odd integer
  let n = mantissa * 10n ** BigInt(digits);
  let e = exp + 1;
  if (e >= 0) return false; // an integer times 2^e ≥ 1 is even or x·10^d is already whole: no half
  while (e < 0 && n % 2n === 0n) {
    n /= 2n;
    e++;
  }
  return e === 0 && n % 2n === 1n;
}

const fmt = goFixed;

/** ScoreMove: the score of saving `savings` (USD/h) at `disruptionCost` against a NodePool's totals. */
export function scoreMove(
  nodePool: string,
  savings: number,
  disruptionCost: number,
  totals: NodePoolTotals | undefined,
  k = BALANCED_K,
): MoveScore {
  const threshold = 1 / k;
  let savingsFraction = 0;
  let disruptionFraction = 0;
  if (totals && totals.costUsdPerHour > 0 && totals.disruptionCost > 0) {
    savingsFraction = savings / totals.costUsdPerHour;
    disruptionFraction = disruptionCost / totals.disruptionCost;
  }
  const score = savingsFraction <= 0 ? 0 : disruptionFraction === 0 ? Infinity : savingsFraction / disruptionFraction;
  const approved = score >= threshold;
  const message = `score ${fmt(score, 2)} ${approved ? '>=' : '<'} threshold ${fmt(threshold, 2)} (k: ${k}, savings ${fmt(savingsFraction * 100, 1)}%, disruption ${fmt(disruptionFraction * 100, 1)}%)`;
  return { nodePool, savingsFraction, disruptionFraction, k, score, threshold, approved, message };
}

/** A candidate of a move, as scoring reads it. */
export interface ScoredCandidate {
  nodePool: string;
  balanced: boolean;
  priceUsdPerHour: number;
  rescheduleDisruptionCost: number;
}

/**
 * EvaluateBalancedMove: every Balanced NodePool among the candidates scored with its share of the net savings;
 * approved when all of them approve (a move with no Balanced candidate is not scored and passes).
 */
export function evaluateMove(
  candidates: readonly ScoredCandidate[],
  savingsUsdPerHour: number,
  totals: ReadonlyMap<string, NodePoolTotals>,
): { approved: boolean; scores: MoveScore[] } {
  if (candidates.length === 0) return { approved: false, scores: [] };
  const byPool = new Map<string, ScoredCandidate[]>();
  for (const c of candidates) {
    const list = byPool.get(c.nodePool) ?? [];
    list.push(c);
    byPool.set(c.nodePool, list);
  }
  const sourceCost = candidates.reduce((s, c) => s + c.priceUsdPerHour, 0);
  const scores: MoveScore[] = [];
  for (const [pool, list] of [...byPool].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!list[0].balanced) continue;
    const poolCost = list.reduce((s, c) => s + c.priceUsdPerHour, 0);
    const savings = sourceCost > 0 && byPool.size > 1 ? savingsUsdPerHour * (poolCost / sourceCost) : savingsUsdPerHour;
    const disruption = list.reduce((s, c) => s + c.rescheduleDisruptionCost, 0);
    scores.push(scoreMove(pool, savings, disruption, totals.get(pool)));
  }
  return { approved: scores.every((s) => s.approved), scores };
}

/** CanPassThreshold: whether deleting the candidate outright (the best any move can do) would pass. */
export function canPassThreshold(c: ScoredCandidate, totals: ReadonlyMap<string, NodePoolTotals>): MoveScore | null {
  if (!c.balanced) return null;
  const t = totals.get(c.nodePool);
  if (!t || t.costUsdPerHour <= 0) return null;
  const best = scoreMove(c.nodePool, c.priceUsdPerHour, c.rescheduleDisruptionCost, t);
  return best.approved ? null : best;
}
