import { describe, expect, it } from 'vitest';
import { evaluateMove, goFixed, type NodePoolTotals, scoreMove } from './balanced.js';
import type { CatalogueEntry } from './catalogue.js';
import { EngineInputError } from './errors.js';
import type { KubePod } from './kube-types.js';
import { simulate } from './simulate.js';
import { fakeAssorted, node, nodePool, pod } from './test-support.js';

/**
 * Balanced consolidation (v1.14.0). "balanced_test.go:N", "balanced_scoring_test.go:N" and
 * "balanced_integration_test.go:N" cite kubernetes-sigs/karpenter@v1.14.1 pkg/controllers/disruption/; the RFC is
 * designs/balanced-consolidation.md. Scores are worked by hand in each case.
 */

describe('ScoreMove', () => {
  // balanced_scoring_test.go:444-471: totals 100 / 100, k = 2
  const hundred: NodePoolTotals = { costUsdPerHour: 100, disruptionCost: 100 };
  it.each([
    ['high savings low disruption', 20, 5, 4, true],
    ['equal fractions', 10, 10, 1, true],
    ['low savings high disruption', 5, 50, 0.1, false],
    ['zero disruption cost', 10, 0, Infinity, true],
    ['zero savings', 0, 10, 0, false],
    ['negative savings', -5, 10, 0, false],
  ])('balanced_scoring_test.go:465-470 %s: savings %d, disruption %d → score %d', (_name, savings, disruption, score, approved) => {
    const r = scoreMove('p', savings, disruption, hundred);
    expect(r.score).toBeCloseTo(score, 10);
    expect(r.approved).toBe(approved);
  });

  // balanced_test.go:30-35: the RFC's pool: eight m7i.xlarge ($4.84/day) and two m7i.2xlarge ($9.68/day) = $58.08,
  // disruption 10 nodes + 80 pods = 90
  const rfc: NodePoolTotals = { costUsdPerHour: 58.08, disruptionCost: 90 };
  it.each([
    ['balanced_test.go:38 oversized node (9.68 − 2.42 saved, 3 pods)', 7.26, 4, rfc, 7.26 / 58.08 / (4 / 90), true],
    ['balanced_test.go:53 spare-capacity delete (4.84 saved, 4 pods)', 4.84, 5, rfc, 4.84 / 58.08 / (5 / 90), true],
    ['balanced_test.go:66 marginal move (2.42 saved, 8 pods)', 2.42, 9, rfc, 2.42 / 58.08 / (9 / 90), false],
    ['balanced_test.go:77 well-packed node (nothing saved)', 0, 11, rfc, 0, false],
    [
      'balanced_test.go:88 uniform pool replace ($48.40 pool)',
      2.42,
      9,
      { costUsdPerHour: 48.4, disruptionCost: 90 },
      2.42 / 48.4 / (9 / 90),
      true,
    ],
    [
      'balanced_test.go:105 node A (4 default pods, pool disruption 117)',
      4.84,
      5,
      { costUsdPerHour: 58.08, disruptionCost: 117 },
      4.84 / 58.08 / (5 / 117),
      true,
    ],
    [
      'balanced_test.go:105 node B (31 from pods)',
      4.84,
      32,
      { costUsdPerHour: 58.08, disruptionCost: 117 },
      4.84 / 58.08 / (32 / 117),
      false,
    ],
    ['balanced_test.go:162 NodePool cost 0', 4.84, 5, { costUsdPerHour: 0, disruptionCost: 90 }, 0, false],
  ])('%s', (_name, savings, disruption, totals, score, approved) => {
    const r = scoreMove('p', savings, disruption, totals);
    expect(r.score).toBeCloseTo(score, 10);
    expect([r.threshold, r.approved]).toEqual([0.5, approved]);
  });
  it('balanced_test.go:131 scale invariance: the same move on a 10× pool scores the same (2.81)', () => {
    const ten = scoreMove('p', 7.26, 4, rfc);
    const hundredNodes = scoreMove('p', 7.26, 4, { costUsdPerHour: 580.8, disruptionCost: 900 });
    // (7.26 / 58.08) / (4 / 90) = 0.125 / 0.04444 = 2.8125
    expect(ten.score).toBeCloseTo(2.8125, 10);
    expect(hundredNodes.score).toBeCloseTo(ten.score, 10);
  });
  it('balanced_test.go:175-189: the marginal move is rejected at k = 2 and k = 1, approved at k = 3 (score 0.4167)', () => {
    expect([1, 2, 3].map((k) => scoreMove('p', 2.42, 9, rfc, k).approved)).toEqual([false, false, true]);
  });
  it("the approval message is Karpenter's ConsolidationApproved (events.go consolidationScoreMessage), Go's rounding", () => {
    // 12.5% savings, 20% disruption → 0.625, which Go's %.2f writes "0.62" (a tie, to the even digit)
    expect(scoreMove('p', 0.125, 2, { costUsdPerHour: 1, disruptionCost: 10 }).message).toBe(
      'score 0.62 >= threshold 0.50 (k: 2, savings 12.5%, disruption 20.0%)',
    );
    expect(scoreMove('p', 0.125, 4, { costUsdPerHour: 1, disruptionCost: 10 }).message).toBe(
      'score 0.31 < threshold 0.50 (k: 2, savings 12.5%, disruption 40.0%)',
    );
  });
  it.each([
    [0.625, 2, '0.62'],
    [0.375, 2, '0.38'],
    [2.5, 0, '2'],
    [3.5, 0, '4'],
    [1.005, 2, '1.00'],
    [Infinity, 2, '+Inf'],
  ])("goFixed(%s, %s) is Go's %%.Nf: %s", (x, d, out) => expect(goFixed(x, d)).toBe(out));
});

describe('EvaluateBalancedMove', () => {
  const c = (nodePool: string, balanced: boolean, priceUsdPerHour: number, pods: number) => ({
    nodePool,
    balanced,
    priceUsdPerHour,
    rescheduleDisruptionCost: 1 + pods,
  });
  it('balanced_scoring_test.go:283 one of ten uniform nodes (one pod each) deleted: savings 10%, disruption 10%, score 1.0', () => {
    const totals = new Map([['pool', { costUsdPerHour: 10 * 4.84, disruptionCost: 10 * 2 }]]);
    const r = evaluateMove([c('pool', true, 4.84, 1)], 4.84, totals);
    expect(r.approved).toBe(true);
    expect(r.scores[0].score).toBeCloseTo(1, 10);
  });
  it('balanced_scoring_test.go:310 across NodePools: each Balanced pool gets its share of the net savings', () => {
    const totals = new Map([
      ['balanced', { costUsdPerHour: 5 * 4.84, disruptionCost: 10 }],
      ['default', { costUsdPerHour: 5 * 4.84, disruptionCost: 10 }],
    ]);
    const r = evaluateMove([c('balanced', true, 4.84, 1), c('default', false, 4.84, 1)], 2 * 4.84, totals);
    // the non-Balanced pool is not scored; the Balanced one saves 4.84 of 24.2 (20%) for 2 of 10 (20%)
    expect(r.scores.map((s) => [s.nodePool, s.score])).toEqual([['balanced', expect.closeTo(1, 10)]]);
    expect(r.approved).toBe(true);
  });
  it('balanced_scoring_test.go:244 a move without a Balanced pool is not scored and passes; balanced_scoring_test.go:264 a pool missing from the totals rejects', () => {
    expect(evaluateMove([c('default', false, 1, 1)], 1, new Map())).toEqual({ approved: true, scores: [] });
    expect(evaluateMove([c('missing', true, 1, 1)], 1, new Map()).approved).toBe(false);
  });
  it('balanced_scoring_test.go:473 on-demand-only pool: savings from the on-demand offering (0.50 − 0.40), score 0.25 rejects', () => {
    // the replacement's spot offering (0.10) is not allowed by the NodeClaim: savings 0.10, 3 pods + 1, totals 1 / 10
    const r = evaluateMove([c('od', true, 0.5, 3)], 0.1, new Map([['od', { costUsdPerHour: 1, disruptionCost: 10 }]]));
    expect(r.scores[0].score).toBeCloseTo(0.1 / 1 / (4 / 10), 10);
    expect(r.approved).toBe(false);
  });
});

/**
 * The engine on a hand-made catalogue: m.xlarge (4 CPU, 3900m allocatable, $0.192/h) and m.large (2 CPU, 1900m,
 * $0.096/h), on-demand in test-zone-1, for an on-demand NodePool. Four m.xlarge nodes: n0 with small pods (they fit an m.large), n1–n3 each
 * with three 1290m pods (3870m of 3900m: no room for anyone, and no cheaper home for them).
 */
const TYPES: CatalogueEntry[] = [
  ['m.xlarge', '4', '16Gi', 0.192],
  ['m.large', '2', '8Gi', 0.096],
].map(([name, cpu, memory, price]) => ({
  name: name as string,
  capacity: { cpu: cpu as string, memory: memory as string, pods: '110' },
  overhead: { cpu: '100m', memory: '256Mi' },
  labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
  offerings: [{ zone: 'test-zone-1', capacityType: 'on-demand', priceUsdPerHour: price as number, available: true }],
}));
const NOW = Date.parse('2026-08-01T00:00:00Z');
const AGO = '2026-07-01T00:00:00Z';
const ALLOC = { cpu: '3900m', memory: '15Gi', pods: '110' };
const xl = (name: string) =>
  node(name, {
    nodePool: 'general',
    instanceType: 'm.xlarge',
    allocatable: ALLOC,
    capacity: { cpu: '4', memory: '16Gi', pods: '110' },
    createdAt: AGO,
  });
const rs = (name: string, nodeName: string, cpu: string, annotations: Record<string, string> = {}): KubePod =>
  pod(name, { nodeName, requests: { cpu }, ownerKind: 'ReplicaSet', ownerName: 'rs', createdAt: AGO, annotations });
const packed = ['n1', 'n2', 'n3'].flatMap((n) => [0, 1, 2].map((i) => rs(`${n}-p${i}`, n, '1290m')));

function run(policy: string, n0Pods: KubePod[], karpenterVersion?: string) {
  return simulate({
    nodePools: [
      nodePool('general', {
        consolidationPolicy: policy,
        consolidateAfter: '0s',
        budgets: [{ nodes: '100%' }],
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
      }),
    ],
    nodes: ['n0', 'n1', 'n2', 'n3'].map(xl),
    pods: [...n0Pods, ...packed],
    catalogue: TYPES,
    now: NOW,
    ...(karpenterVersion ? { karpenterVersion } : {}),
  });
}

describe('Balanced consolidation in a round', () => {
  const seven = Array.from({ length: 7 }, (_, i) => rs(`n0-p${i}`, 'n0', '250m'));
  it('RFC "Marginal Move": n0 (7 pods) → m.large saves $0.096 of $0.768 (12.5%) for 8 of 20 disruption (40%): 0.31 < 0.50, kept', () => {
    const r = run('Balanced', seven);
    expect(r.consolidation.decisions).toEqual([]);
    const n0 = r.consolidation.unconsolidatable.find((u) => u.node === 'n0');
    expect(n0).toMatchObject({
      reason: 'score 0.31 < threshold 0.50 (k: 2, savings 12.5%, disruption 40.0%)',
      wording: 'ledger',
      score: { nodePool: 'general', score: 0.3125, threshold: 0.5, k: 2, approved: false },
    });
    expect(r.consolidation.unconsolidatable.find((u) => u.node === 'n1')?.reason).toBe("Can't replace with a cheaper node");
  });
  it('the same cluster under WhenEmptyOrUnderutilized replaces n0 with an m.large (any saving goes)', () => {
    const [d] = run('WhenEmptyOrUnderutilized', seven).consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', candidates: ['n0'], replacement: { instanceType: 'm.large' }, scores: [] });
    expect(d.savingsUsdPerHour).toBeCloseTo(0.096, 10);
  });
  it('RFC "Oversized Node": n0 with 2 pods: 12.5% saved for 3 of 15 (20%): 0.625 ≥ 0.50, ConsolidationApproved', () => {
    const r = run('Balanced', [rs('a', 'n0', '250m'), rs('b', 'n0', '250m')]);
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', method: 'single-node', candidates: ['n0'], replacement: { instanceType: 'm.large' } });
    expect(d.scores).toEqual([
      {
        nodePool: 'general',
        score: 0.625,
        threshold: 0.5,
        k: 2,
        savingsPercent: 12.5,
        disruptionPercent: 20,
        approved: true,
        message: 'score 0.62 >= threshold 0.50 (k: 2, savings 12.5%, disruption 20.0%)',
      },
    ]);
  });
  it('RFC "Heterogeneous Disruption Cost": the same two pods with pod-deletion-cost 2147483647 cost 10 each (clamped): n0 cannot pass even deleted, n1 goes instead', () => {
    const dear = { 'controller.kubernetes.io/pod-deletion-cost': '2147483647' };
    const r = run('Balanced', [rs('a', 'n0', '250m', dear), rs('b', 'n0', '250m', dear)]);
    // totals: disruption n0 1 + 10 + 10 = 21, n1–n3 4 each → 33; deleting n0 outright: (0.192/0.768) / (21/33) = 0.39
    expect(r.consolidation.unconsolidatable.find((u) => u.node === 'n0')?.reason).toBe(
      'score 0.39 < threshold 0.50 (k: 2, savings 25.0%, disruption 63.6%)',
    );
    // n1: two pods move to n0, one to an m.large: (0.096/0.768) / (4/33) = 1.03
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', candidates: ['n1'], replacement: { instanceType: 'm.large' } });
    expect(d.scores[0].message).toBe('score 1.03 >= threshold 0.50 (k: 2, savings 12.5%, disruption 12.1%)');
  });
  it('balanced_integration_test.go:183 multi-node: three expensive nodes with a pod each merge into one (score 0.99 ≥ 0.50)', () => {
    const type = '64-cpu-128-mem-amd64-linux-test-zone-1-on-demand';
    const big = { cpu: '32', pods: '100', memory: '128Gi' };
    const r = simulate({
      nodePools: [nodePool('default', { consolidationPolicy: 'Balanced', consolidateAfter: '0s', budgets: [{ nodes: '100%' }] })],
      nodes: ['x0', 'x1', 'x2'].map((n) => node(n, { nodePool: 'default', instanceType: type, allocatable: big, createdAt: AGO })),
      pods: ['x0', 'x1', 'x2'].map((n) => rs(`p-${n}`, n, '1')),
      catalogue: fakeAssorted(),
      now: NOW,
    });
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', method: 'multi-node', candidates: ['x0', 'x1', 'x2'] });
    // 3 × 20.143895 saved less the 4-CPU replacement (0.4 + 0.107374) of 60.431685; 6 of 6 disruption
    expect(d.scores[0].message).toBe('score 0.99 >= threshold 0.50 (k: 2, savings 99.2%, disruption 100.0%)');
  });
  it('Balanced arrived in v1.14.0: karpenterVersion 1.13.0 refuses the policy, naming the NodePool', () => {
    expect(() => run('Balanced', seven, '1.13.0')).toThrow(EngineInputError);
    expect(() => run('Balanced', seven, '1.13.0')).toThrow(
      /^NodePool general: spec.disruption.consolidationPolicy "Balanced" arrived in Karpenter v1.14.0/,
    );
  });
});
