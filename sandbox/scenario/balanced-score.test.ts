import { describe, expect, it } from 'vitest';
import { approvedMessage, balancedScore } from './balanced-score.js';

/**
 * Karpenter's own ScoreMove cases (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/disruption/balanced_test.go):
 * the RFC's example NodePool of eight m7i.xlarge ($4.84/day) and two m7i.2xlarge ($9.68/day), $58.08/day in all,
 * 80 pods, disruption cost 90 (10 nodes + 80 pods at 1.0). Scores worked by hand: (savings / 58.08) / (cost / 90).
 */
describe('balancedScore (balanced.go ScoreMove, k = 2)', () => {
  it.each([
    // [case (balanced_test.go line), savings, move disruption cost, pool cost, pool disruption cost, score, approved]
    ['oversized node consolidation (:38)', 7.26, 4, 58.08, 90, 2.8125, true],
    ['spare capacity delete (:53)', 4.84, 5, 58.08, 90, 1.5, true],
    ['marginal move (:66)', 2.42, 9, 58.08, 90, 0.41667, false],
    ['well-packed node, zero savings (:77)', 0, 11, 58.08, 90, 0, false],
    ['replace in a uniform pool (:88): exactly the threshold', 2.42, 9, 48.4, 90, 0.5, true],
    ['zero savings and zero disruption (:157)', 0, 0, 58.08, 90, 0, false],
    ['NodePool cost zero (:162)', 4.84, 5, 0, 90, 0, false],
  ])('%s', (_case, savings, move, poolCost, poolDisruption, score, approved) => {
    const s = balancedScore(savings, move, poolCost, poolDisruption);
    expect(s.score).toBeCloseTo(score, 4);
    expect(s.threshold).toBe(0.5);
    expect(s.approved).toBe(approved);
  });

  it('no disruption with savings is an unbounded score, approved (:151)', () => {
    const s = balancedScore(4.84, 0, 58.08, 90);
    expect(s.score).toBe(Infinity);
    expect(s.approved).toBe(true);
  });

  it("writes ConsolidationApproved as events.go consolidationScoreMessage: 'score %.2f >= threshold %.2f (k: %d, savings %.1f%%, disruption %.1f%%)'", () => {
    // 7.26 / 58.08 = 12.5 %, 4 / 90 = 4.44 %, 2.8125
    expect(approvedMessage(balancedScore(7.26, 4, 58.08, 90))).toBe('score 2.81 >= threshold 0.50 (k: 2, savings 12.5%, disruption 4.4%)');
  });
});
