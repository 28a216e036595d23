import { goFixed } from '../../core/karpenter/scheduling/balanced.js';

/**
 * Karpenter's own explanation of a consolidation decision, said in one short line for the pages: the event's reason,
 * the rejection or the Balanced score against its threshold. Pure.
 */

export interface StoredExplanation {
  kind: 'candidate' | 'rejected' | 'approved' | 'unconsolidatable';
  decision: 'delete' | 'replace' | null;
  rejection: string | null;
  score: number | null;
  threshold: number | null;
  savings: number | null;
  cause: string | null;
  message: string;
}

export const EVENT_REASON: Readonly<Record<StoredExplanation['kind'], string>> = {
  candidate: 'ConsolidationCandidate',
  rejected: 'ConsolidationRejected',
  approved: 'ConsolidationApproved',
  unconsolidatable: 'Unconsolidatable',
};

/** The threshold as a person writes it: 1/k = 0.5, not 0.50. */
const plain = (n: number): string => String(Math.round(n * 100) / 100);

/** "score 0.31 < threshold 0.5" (the move fell short) or "score 3.33 >= threshold 0.5" (approved). */
export function scoreText(score: number, threshold: number): string {
  return `score ${goFixed(score, 2)} ${score >= threshold ? '>=' : '<'} threshold ${plain(threshold)}`;
}

export function karpenterSaid(e: StoredExplanation): string {
  const hasScore = e.score !== null && e.threshold !== null;
  switch (e.kind) {
    case 'approved':
      return hasScore ? `ConsolidationApproved (${scoreText(e.score as number, e.threshold as number)})` : 'ConsolidationApproved';
    case 'rejected':
      if (hasScore) return `ConsolidationRejected (${scoreText(e.score as number, e.threshold as number)})`;
      return `ConsolidationRejected (${e.rejection ?? 'unknown'})`;
    case 'candidate':
      return `ConsolidationCandidate (${e.decision ?? 'consolidate'}${e.savings === null ? '' : `, saves $${e.savings.toFixed(2)}/h`})`;
    case 'unconsolidatable':
      return `Unconsolidatable: ${e.message.trim()}`;
  }
}
