import { describe, expect, it } from 'vitest';
import type { KarpenterExplanationRow } from '@schemas/karpenter-explanations';
import { disagreement, newestPerNode, saidRange } from './karpenter-said';

const row = (over: Partial<KarpenterExplanationRow>): KarpenterExplanationRow => ({
  at: '2026-11-03T23:50:00.000Z',
  atMs: Date.parse('2026-11-03T23:50:00.000Z'),
  eventReason: 'ConsolidationRejected',
  kind: 'rejected',
  nodeName: 'node-a',
  nodeClaim: 'general-a',
  nodePool: 'general',
  decision: 'delete',
  nodesInCommand: 1,
  savingsUsdPerHour: 0.2,
  rejection: 'budget',
  score: null,
  threshold: null,
  k: null,
  savingsPercent: null,
  disruptionPercent: null,
  cause: null,
  said: 'ConsolidationRejected (budget)',
  message: 'Consolidation rejected: delete: [node-a], reason: budget (savings: $0.20)',
  ...over,
});

describe('Karpenter said, beside the engine', () => {
  it('a rejection where the engine would delete is the finding the issue names', () => {
    expect(disagreement(row({}), 'delete')).toBe('Karpenter: ConsolidationRejected (budget) · engine: deletable');
    expect(disagreement(row({}), 'keep')).toBeNull();
  });

  it('a Balanced score under the threshold is a rejection; an approval agrees with any move', () => {
    const score = row({
      rejection: 'score',
      score: 0.31,
      threshold: 0.5,
      k: 2,
      said: 'ConsolidationRejected (score 0.31 < threshold 0.5)',
    });
    expect(disagreement(score, 'replace')).toBe('Karpenter: ConsolidationRejected (score 0.31 < threshold 0.5) · engine: replaceable');
    const approved = row({
      kind: 'approved',
      decision: null,
      rejection: null,
      said: 'ConsolidationApproved (score 3.33 >= threshold 0.5)',
    });
    expect(disagreement(approved, 'replace')).toBeNull();
    expect(disagreement(approved, 'keep')).toBe('Karpenter: ConsolidationApproved (score 3.33 >= threshold 0.5) · engine: keep');
  });

  it('a candidate disagrees with a keep and with the other method', () => {
    const candidate = row({ kind: 'candidate', rejection: null, said: 'ConsolidationCandidate (delete, saves $0.20/h)' });
    expect(disagreement(candidate, 'delete')).toBeNull();
    expect(disagreement(candidate, 'replace')).toMatch(/· engine: replaceable$/);
    expect(disagreement(candidate, 'keep')).toBe('Karpenter: ConsolidationCandidate (delete, saves $0.20/h) · engine: keep');
  });

  it('the newest per node wins, and the hour up to the snapshot is asked', () => {
    const m = newestPerNode([row({ said: 'old' }), row({ nodeName: null, said: 'claim only' }), row({ said: 'new' })]);
    expect([...m]).toEqual([['node-a', expect.objectContaining({ said: 'new' })]]);
    expect(saidRange('2026-11-03T23:55:00Z')).toEqual({ from: '2026-11-03T22:55:00.000Z', to: '2026-11-03T23:55:00.001Z' });
  });
});
