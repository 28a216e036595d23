import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from './catalogue.js';
import type { EngineInput } from './engine.js';
import type { KubeNode, KubePod } from './kube-types.js';
import { consolidate, simulate } from './simulate.js';
import { prepare } from './engine.js';
import { provision } from './provisioning.js';
import { fakeAssorted, fakeType, node, nodePool, type NodePoolOptions, pod } from './test-support.js';

/**
 * Consolidation rounds. "consolidation_test.go:N" cites kubernetes-sigs/karpenter@v1.14.1
 * pkg/controllers/disruption/consolidation_test.go, whose NodePool (lines 60-71) is WhenEmptyOrUnderutilized,
 * consolidateAfter 0s, budget 100%, over fake.InstanceTypesAssorted (see test-support.ts). Prices worked by hand
 * use fake.PriceFromResources: 0.1 per CPU + 0.1 per 10^9 bytes of memory.
 */

const NOW = Date.parse('2026-02-01T00:00:00Z');
const LONG_AGO = '2026-01-01T00:00:00Z';
const labels = { app: 'test' };
const suitePool = (o: NodePoolOptions = {}) => nodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '100%' }], ...o });

// the most expensive assorted type: 64 CPU, 128Gi → 6.4 + 13.743895 = $20.143895/h
const MOST_EXPENSIVE = '64-cpu-128-mem-amd64-linux-test-zone-1-on-demand';
const MOST_EXPENSIVE_SPOT = '64-cpu-128-mem-amd64-linux-test-zone-1-spot';
const BIG = { cpu: '32', pods: '100', memory: '128Gi' };

const rsPod = (name: string, nodeName: string, o: Parameters<typeof pod>[1] = {}): KubePod =>
  pod(name, { labels, nodeName, ownerKind: 'ReplicaSet', ownerName: 'rs', createdAt: LONG_AGO, ...o });

// one catalogue for the whole file: compiled once (cases that change a catalogue build their own)
const ASSORTED = fakeAssorted();

function sim(
  o: { nodes: KubeNode[]; pods: KubePod[]; pool?: ReturnType<typeof nodePool>; catalogue?: CatalogueEntry[] } & Partial<EngineInput>,
) {
  const { nodes, pods, pool, catalogue, ...rest } = o;
  return simulate({ nodePools: [pool ?? suitePool()], nodes, pods, catalogue: catalogue ?? ASSORTED, now: NOW, ...rest });
}

const nodeOf = (name: string, instanceType: string, capacityType = 'on-demand', o: Partial<Parameters<typeof node>[1]> = {}) =>
  node(name, { nodePool: 'default', instanceType, capacityType, zone: 'test-zone-1', allocatable: BIG, createdAt: LONG_AGO, ...o });

describe('delete vs replace', () => {
  it('can replace node: consolidation_test.go:1006 (one pod on the dearest type → the cheapest type that holds it)', () => {
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')] });
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', reason: 'Underutilized', method: 'single-node', candidates: ['n1'] });
    // 1 CPU / 1Gi at 0.1 + 0.107374 = $0.207374/h, spot (the NodePool allows both, spot is preferred; OD→spot as Karpenter pins it)
    expect(d.replacement?.capacityType).toBe('spot');
    expect(d.replacement?.usdPerHour).toBeCloseTo(0.207374, 6);
    expect(d.replacement?.instanceTypeOptions).not.toContain(MOST_EXPENSIVE);
    expect(d.savingsUsdPerHour).toBeCloseTo(20.143895 - 0.207374, 5);
    expect(r.costUsdPerHour.before).toBeCloseTo(20.143895, 5);
    expect(r.costUsdPerHour.after).toBeCloseTo(0.207374, 6);
  });
  it('can delete nodes: consolidation_test.go:2421 (the node with one pod goes, its pod fits the other)', () => {
    const cheapest = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
    const r = sim({
      nodes: [nodeOf('n0', cheapest), nodeOf('n1', cheapest)],
      pods: [rsPod('p0', 'n0'), rsPod('p1', 'n0'), rsPod('p2', 'n1')],
    });
    // n1 has one pod: reschedule cost 1 + 1 = 2 against n0's 3, so its ratio price/2 sorts first
    expect(r.consolidation.decisions).toEqual([
      {
        action: 'delete',
        reason: 'Underutilized',
        method: 'single-node',
        candidates: ['n1'],
        replacement: null,
        savingsUsdPerHour: expect.closeTo(0.207374, 6),
        scores: [],
      },
    ]);
    // with n1 gone, n0's two pods would need a new node no cheaper than n0 itself
    expect(r.consolidation.unconsolidatable).toEqual([
      {
        node: 'n0',
        nodePool: 'default',
        reason: "Can't replace with a cheaper node",
        wording: 'karpenter',
        usdPerHour: expect.closeTo(0.207374, 6),
      },
    ]);
  });
  it('should consolidate the node with best savings ratio first: consolidation_test.go:4429', () => {
    const cheapest = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
    const r = sim({
      nodes: [nodeOf('old', cheapest), nodeOf('new', cheapest)],
      pods: [rsPod('a', 'old'), rsPod('b', 'old'), rsPod('c', 'new')],
    });
    expect(r.consolidation.decisions[0].candidates).toEqual(['new']);
  });
  it('an empty node is deleted by Emptiness, reason Empty, before any consolidation', () => {
    const r = sim({ nodes: [nodeOf('busy', MOST_EXPENSIVE), nodeOf('idle', MOST_EXPENSIVE)], pods: [rsPod('p', 'busy')] });
    expect(r.consolidation.decisions).toEqual([
      {
        action: 'delete',
        reason: 'Empty',
        method: 'emptiness',
        candidates: ['idle'],
        replacement: null,
        savingsUsdPerHour: expect.closeTo(20.143895, 5),
        scores: [],
      },
    ]);
    // the busy node would be replaced next, once the empty one is gone (its pod cannot move onto the idle node then)
    expect(r.consolidation.unconsolidatable[0].reason).toMatch(
      /^Would be consolidated in a later round: replace: \[busy\] -> \[1 replacement\]/,
    );
  });
  it('DaemonSet pods do not keep a node from being empty (they are not reschedulable)', () => {
    const r = sim({
      nodes: [nodeOf('n1', MOST_EXPENSIVE)],
      pods: [pod('ds-1', { nodeName: 'n1', ownerKind: 'DaemonSet', ownerName: 'ds', createdAt: LONG_AGO })],
    });
    expect(r.consolidation.decisions[0]).toMatchObject({ reason: 'Empty', candidates: ['n1'] });
  });
});

describe('replacement only when strictly cheaper', () => {
  // consolidation_test.go:2222-2300: the current type's only offering is unavailable, but it still prices the node
  const current = fakeType('current-on-demand', {
    offerings: [{ zone: 'test-zone-1a', capacityType: 'on-demand', priceUsdPerHour: 0.5, available: false }],
  });
  const currentNode = () => [
    node('n1', { nodePool: 'default', instanceType: 'current-on-demand', zone: 'test-zone-1a', allocatable: BIG, createdAt: LONG_AGO }),
  ];
  it("won't replace node if any spot replacement is more expensive: consolidation_test.go:2222 (worst spot price 1.0 ≥ 0.5)", () => {
    const replacement = fakeType('potential-spot-replacement', {
      offerings: [
        { zone: 'test-zone-1a', capacityType: 'spot', priceUsdPerHour: 1.0, available: true },
        { zone: 'test-zone-1b', capacityType: 'spot', priceUsdPerHour: 0.2, available: true },
        { zone: 'test-zone-1c', capacityType: 'spot', priceUsdPerHour: 0.4, available: true },
      ],
    });
    const r = sim({ nodes: currentNode(), pods: [rsPod('p', 'n1')], catalogue: [current, replacement] });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable).toEqual([
      { node: 'n1', nodePool: 'default', reason: "Can't replace with a cheaper node", wording: 'karpenter', usdPerHour: 0.5 },
    ]);
  });
  it("won't replace on-demand node if on-demand replacement is more expensive: consolidation_test.go:2301 (0.6 ≥ 0.5)", () => {
    const replacement = fakeType('on-demand-replacement', {
      offerings: [
        { zone: 'test-zone-1a', capacityType: 'on-demand', priceUsdPerHour: 0.6, available: true },
        { zone: 'test-zone-1b', capacityType: 'on-demand', priceUsdPerHour: 0.6, available: true },
        { zone: 'test-zone-1b', capacityType: 'spot', priceUsdPerHour: 0.2, available: true },
        { zone: 'test-zone-1c', capacityType: 'spot', priceUsdPerHour: 0.3, available: true },
      ],
    });
    const pool = suitePool({ requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] });
    const r = sim({ nodes: currentNode(), pods: [rsPod('p', 'n1')], catalogue: [current, replacement], pool });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toBe("Can't replace with a cheaper node");
  });
  it('the same catalogue with spot allowed replaces on-demand 0.5 with spot at worst 0.3', () => {
    const replacement = fakeType('on-demand-replacement', {
      offerings: [
        { zone: 'test-zone-1b', capacityType: 'on-demand', priceUsdPerHour: 0.6, available: true },
        { zone: 'test-zone-1b', capacityType: 'spot', priceUsdPerHour: 0.2, available: true },
        { zone: 'test-zone-1c', capacityType: 'spot', priceUsdPerHour: 0.3, available: true },
      ],
    });
    const r = sim({ nodes: currentNode(), pods: [rsPod('p', 'n1')], catalogue: [current, replacement] });
    expect(r.consolidation.decisions[0].replacement).toMatchObject({
      instanceType: 'on-demand-replacement',
      capacityType: 'spot',
      zone: 'test-zone-1b',
      usdPerHour: 0.2,
    });
    // savings = 0.5 − the cheapest allowed offering of the first option (0.2)
    expect(r.consolidation.decisions[0].savingsUsdPerHour).toBeCloseTo(0.3, 10);
  });
});

describe('spot to spot', () => {
  it('cannot replace spot with spot if the spotToSpotConsolidation is disabled: consolidation_test.go:1136', () => {
    const r = sim({ nodes: [nodeOf('s1', MOST_EXPENSIVE_SPOT, 'spot')], pods: [rsPod('p', 's1')] });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toBe(
      "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    );
  });
  it('cannot replace spot with spot if less than minimum InstanceTypes flexibility: consolidation_test.go:1061 ("got 1")', () => {
    // the first five assorted types (1 CPU, 1Gi, test-zone-1, spot and on-demand, linux and windows); the first's
    // offering is made spot at $0.001 — the one spot type cheaper than the node
    const five = fakeAssorted().slice(0, 5);
    five[0].offerings = [{ ...five[0].offerings[0], capacityType: 'spot', priceUsdPerHour: 0.001 }];
    const spotTypes = five.filter((e) => e.offerings.some((o) => o.capacityType === 'spot'));
    const dearest = spotTypes.sort((a, b) => a.offerings[0].priceUsdPerHour - b.offerings[0].priceUsdPerHour)[spotTypes.length - 1];
    const r = sim({
      nodes: [
        node('s1', {
          nodePool: 'default',
          instanceType: dearest.name,
          capacityType: 'spot',
          zone: dearest.offerings[0].zone,
          allocatable: BIG,
          createdAt: LONG_AGO,
        }),
      ],
      pods: [rsPod('p', 's1')],
      catalogue: five,
      featureGates: { spotToSpotConsolidation: true },
    });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toBe(
      'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 1',
    );
  });
  it('with the gate on and plenty of cheaper spot types, a spot node is replaced by spot, the 15 cheapest offered', () => {
    const r = sim({
      nodes: [nodeOf('s1', MOST_EXPENSIVE_SPOT, 'spot')],
      pods: [rsPod('p', 's1')],
      featureGates: { spotToSpotConsolidation: true },
    });
    const [d] = r.consolidation.decisions;
    expect(d.action).toBe('replace');
    expect(d.replacement?.capacityType).toBe('spot');
    expect(d.replacement?.instanceTypeOptions).toHaveLength(15);
  });
});

describe('multi-node consolidation', () => {
  it.each([
    ['on-demand', MOST_EXPENSIVE],
    ['spot', MOST_EXPENSIVE_SPOT],
  ])('can merge 3 nodes into 1 (%s): consolidation_test.go:4004', (ct, type) => {
    const r = sim({
      nodes: [nodeOf('n0', type, ct), nodeOf('n1', type, ct), nodeOf('n2', type, ct)],
      pods: [rsPod('p0', 'n0'), rsPod('p1', 'n1'), rsPod('p2', 'n2')],
      featureGates: { spotToSpotConsolidation: true },
    });
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', method: 'multi-node', candidates: ['n0', 'n1', 'n2'] });
    expect(d.savingsUsdPerHour).toBeCloseTo(3 * 20.143895 - 0.207374, 5);
  });
  it('should only allow 3 nodes to be deleted in multi node consolidation delete: consolidation_test.go:433 (budget 30% of 10)', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => nodeOf(`n${i}`, MOST_EXPENSIVE));
    const pods = nodes.map((n, i) => rsPod(`p${i}`, n.metadata.name, { requests: { cpu: '100m' } }));
    const r = sim({ nodes, pods, pool: suitePool({ budgets: [{ nodes: '30%' }] }) });
    expect(r.consolidation.decisions[0]).toMatchObject({ action: 'delete', method: 'multi-node' });
    expect(r.consolidation.decisions[0].candidates).toHaveLength(3);
  });
});

describe("nodes that stay, with Karpenter's reason and their cost", () => {
  it.each([
    [
      'can delete nodes, considers karpenter.sh/do-not-disrupt set to true on nodes: consolidation_test.go:2644',
      { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
      {},
      'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
    ],
    [
      'can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods: consolidation_test.go:2686',
      {},
      { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
      'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/p)',
    ],
    [
      'does not consolidate nodes with pods that have a duration-based do-not-disrupt annotation that is still active: consolidation_test.go:2824',
      {},
      { annotations: { 'karpenter.sh/do-not-disrupt': '1000h' } },
      'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/p)',
    ],
  ])('%s', (_name, nodeOpts, podOpts, reason) => {
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE, 'on-demand', nodeOpts)], pods: [rsPod('p', 'n1', podOpts)] });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable).toEqual([
      { node: 'n1', nodePool: 'default', reason, wording: 'karpenter', usdPerHour: expect.closeTo(20.143895, 5) },
    ]);
  });
  it('can consolidate nodes after duration-based do-not-disrupt annotation expires: consolidation_test.go:2867', () => {
    const r = sim({
      nodes: [nodeOf('n1', MOST_EXPENSIVE)],
      pods: [rsPod('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': '1h' } })],
    });
    expect(r.consolidation.decisions[0].candidates).toEqual(['n1']);
  });
  it('can delete nodes, considers invalid do-not-disrupt annotation format as not blocking: consolidation_test.go:2916', () => {
    const r = sim({
      nodes: [nodeOf('n1', MOST_EXPENSIVE)],
      pods: [rsPod('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'soon' } })],
    });
    expect(r.consolidation.decisions[0].candidates).toEqual(['n1']);
  });
  it('can delete nodes, considers PDB: consolidation_test.go:2587 (a PDB allowing no disruptions blocks the node)', () => {
    const pdb = {
      metadata: { name: 'pdb', namespace: 'default' },
      spec: { selector: { matchLabels: labels }, maxUnavailable: 0 },
      status: { disruptionsAllowed: 0 },
    };
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')], podDisruptionBudgets: [pdb] });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toBe('Pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])');
  });
  it('a PDB without status is computed from its spec: minAvailable 1 of 1 running pod allows 0', () => {
    const pdb = { metadata: { name: 'pdb', namespace: 'default' }, spec: { selector: { matchLabels: labels }, minAvailable: 1 } };
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')], podDisruptionBudgets: [pdb] });
    expect(r.consolidation.unconsolidatable[0].reason).toBe('Pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])');
  });
  it('a pod covered by two PDBs cannot be evicted: suite_test.go:1360 wording', () => {
    const pdb = (name: string) => ({
      metadata: { name, namespace: 'default' },
      spec: { selector: { matchLabels: labels } },
      status: { disruptionsAllowed: 1 },
    });
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')], podDisruptionBudgets: [pdb('b'), pdb('a')] });
    expect(r.consolidation.unconsolidatable[0].reason).toBe(
      'Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[default/a default/b])',
    );
  });
  it.each([
    [
      'should fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmpty: consolidation_test.go:114',
      { consolidationPolicy: 'WhenEmpty' },
      'NodePool "default" has consolidation policy WhenEmpty, but node is not empty',
    ],
    [
      "should fire an event for ConsolidationDisabled when the NodePool has consolidateAfter set to 'Never': consolidation_test.go:125",
      { consolidateAfter: 'Never' },
      'NodePool "default" has consolidation disabled',
    ],
  ])('%s', (_name, poolOpts, reason) => {
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')], pool: suitePool(poolOpts) });
    expect(r.consolidation.unconsolidatable[0].reason).toBe(reason);
  });
  it('should fire an event when a candidate does not have a resolvable instance type: consolidation_test.go:137', () => {
    const r = sim({ nodes: [nodeOf('n1', 'no-such-type')], pods: [rsPod('p', 'n1')] });
    expect(r.consolidation.unconsolidatable[0]).toMatchObject({ reason: 'Instance Type "no-such-type" not found', usdPerHour: null });
    expect(r.unpricedNodes).toEqual(['n1']);
  });
  it('consolidateAfter not yet passed since the last pod event: our own words (Karpenter is silent)', () => {
    const r = sim({
      nodes: [nodeOf('n1', MOST_EXPENSIVE)],
      pods: [rsPod('p', 'n1', { createdAt: '2026-01-31T23:58:00Z' })],
      pool: suitePool({ consolidateAfter: '5m' }),
    });
    expect(r.consolidation.unconsolidatable[0]).toMatchObject({ wording: 'ledger' });
    expect(r.consolidation.unconsolidatable[0].reason).toBe(
      'NodePool "default" consolidateAfter (300s) has not passed since the node\'s last pod event (120s ago); Karpenter does not consider it yet',
    );
  });
  it("won't delete node if it would require pods to schedule elsewhere and nothing fits: Not all pods would schedule", () => {
    // a 200-CPU pod on a node of a type no longer in the NodePool's catalogue reach (arch pinned to s390x)
    const r = sim({
      nodes: [nodeOf('n1', MOST_EXPENSIVE, 'on-demand', { allocatable: { cpu: '300', memory: '128Gi', pods: '100' } })],
      pods: [rsPod('p', 'n1', { requests: { cpu: '200' } })],
    });
    expect(r.consolidation.unconsolidatable[0].reason).toMatch(
      /^Not all pods would schedule, default\/p => no instance type has enough resources/,
    );
  });
  it('nodes without a Karpenter NodePool stay, said so', () => {
    const unmanaged = node('mng-1', { instanceType: MOST_EXPENSIVE, allocatable: BIG, createdAt: LONG_AGO });
    const r = sim({ nodes: [unmanaged], pods: [] });
    expect(r.consolidation.unconsolidatable).toEqual([
      {
        node: 'mng-1',
        nodePool: null,
        reason: "Node isn't managed by karpenter",
        wording: 'karpenter',
        usdPerHour: expect.closeTo(20.143895, 5),
      },
    ]);
  });
});

describe('NodePool disruption budgets', () => {
  const emptyNodes = () => Array.from({ length: 10 }, (_, i) => nodeOf(`n${i}`, MOST_EXPENSIVE));
  it.each([
    ['should only allow 3 empty nodes to be disrupted: consolidation_test.go:366', '30%', 3],
    ['should allow all empty nodes to be disrupted: consolidation_test.go:388', '100%', 10],
    ['should allow no empty nodes to be disrupted: consolidation_test.go:411', '0%', 0],
    ['a count: 2 nodes', '2', 2],
    ['percentages round up: 5% of 10 → 1', '5%', 1],
  ])('%s', (_name, nodes, deleted) => {
    const r = sim({ nodes: emptyNodes(), pods: [], pool: suitePool({ budgets: [{ nodes }] }) });
    expect(r.consolidation.decisions[0]?.candidates.length ?? 0).toBe(deleted);
    if (deleted < 10)
      expect(r.consolidation.unconsolidatable[0].reason).toBe('No allowed disruptions for disruption reason Empty due to blocking budget');
  });
  it('a budget for another reason does not limit emptiness (reasons: [Underutilized])', () => {
    const r = sim({ nodes: emptyNodes(), pods: [], pool: suitePool({ budgets: [{ nodes: '0', reasons: ['Underutilized'] }] }) });
    expect(r.consolidation.decisions[0].candidates).toHaveLength(10);
  });
  it.each([
    // 2026-02-02 is a Monday; the budget blocks weekdays 09:00-17:00 UTC
    ['inside the scheduled window: blocked', '2026-02-02T10:00:00Z', 0],
    ['before it opens: the default budget (10%) applies', '2026-02-02T08:59:00Z', 1],
    ['on Sunday: the cron does not fire', '2026-02-01T10:00:00Z', 1],
  ])('a scheduled budget (0 nodes, "0 9 * * mon-fri" for 8h), %s', (_name, now, deleted) => {
    const r = simulate({
      nodePools: [suitePool({ budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] })],
      nodes: emptyNodes(),
      pods: [],
      catalogue: ASSORTED,
      now: Date.parse(now),
    });
    expect(r.consolidation.decisions[0]?.candidates.length ?? 0).toBe(deleted);
  });
});

describe('provisioning then consolidation', () => {
  it('pending pods go onto existing room first; the nodes they land on are nominated and left alone this round', () => {
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('old', 'n1'), pod('new', { requests: { cpu: '1' } })] });
    expect(r.provisioning.nodeClaims).toEqual([]);
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toBe('Node is nominated for a pending pod');
    expect(r.costUsdPerHour.after).toBeCloseTo(r.costUsdPerHour.before, 10);
  });
  it('costUsdPerHour.after adds the NodeClaims provisioned for pending pods', () => {
    const r = sim({ nodes: [], pods: [pod('new', { requests: { cpu: '1' } })] });
    expect(r.provisioning.nodeClaims).toHaveLength(1);
    // 1 CPU needs the 2-CPU types: 0.2 + 0.107374 (1Gi) = $0.307374/h, spot
    expect(r.provisioning.nodeClaims[0]).toMatchObject({
      capacityType: 'spot',
      usdPerHour: expect.closeTo(0.307374, 6),
      pods: ['default/new'],
    });
    expect(r.costUsdPerHour).toEqual({ before: 0, after: r.provisioning.nodeClaims[0].usdPerHour });
  });
});

describe('consolidation with topology, time and same-type merges', () => {
  const CHEAPEST = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
  it.each([
    ['on-demand', CHEAPEST],
    ['spot', '1-cpu-1-mem-amd64-linux-test-zone-1-spot'],
  ])("won't merge 2 nodes into 1 of the same type (%s): consolidation_test.go:4089 — deletes the node with the fewest pods", (ct, type) => {
    const r = sim({
      nodes: [nodeOf('n0', type, ct), nodeOf('n1', type, ct)],
      pods: [rsPod('p0', 'n0'), rsPod('p1', 'n1'), rsPod('p2', 'n1')],
      featureGates: { spotToSpotConsolidation: true },
    });
    expect(r.consolidation.decisions).toEqual([
      {
        action: 'delete',
        reason: 'Underutilized',
        method: 'single-node',
        candidates: ['n0'],
        replacement: null,
        savingsUsdPerHour: expect.closeTo(0.207374, 6),
        scores: [],
      },
    ]);
  });
  it('should not consolidate pods onto a destination node that is under its consolidateAfter window: consolidation_test.go:3050', () => {
    // n1's pod has run for an hour; n0 received a pod 30 s ago, so with consolidateAfter 1m n1's pod may not move there
    const pool = suitePool({ consolidateAfter: '1m' });
    const input = () => ({
      nodes: [nodeOf('n0', CHEAPEST), nodeOf('n1', CHEAPEST)],
      pods: [
        rsPod('p0', 'n0'),
        rsPod('p1', 'n0', { createdAt: '2026-01-31T23:59:30Z' }),
        rsPod('p2', 'n1', { createdAt: '2026-01-31T23:00:00Z' }),
      ],
      pool,
    });
    const early = sim(input());
    expect(early.consolidation.decisions).toEqual([]);
    // with nowhere to go but a new node, which is no cheaper than n1 itself
    expect(early.consolidation.unconsolidatable.find((u) => u.node === 'n1')?.reason).toBe("Can't replace with a cheaper node");
    // two minutes on, the window has passed for both: n1 goes
    const later = simulate({ nodePools: [pool], ...input(), catalogue: ASSORTED, now: NOW + 120_000 });
    expect(later.consolidation.decisions[0]).toMatchObject({ action: 'delete', candidates: ['n1'] });
  });
  it('can replace node maintaining zonal topology spread: consolidation_test.go:4525 (the replacement goes to the same zone)', () => {
    const tsc = {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'test-zonal-spread' } },
    };
    const one = { cpu: '1', memory: '1Gi', pods: '10' };
    const zoned = (name: string, zone: string, type: string) => nodeOf(name, type, 'on-demand', { zone, allocatable: one });
    const r = sim({
      nodes: [
        zoned('z1', 'test-zone-1', '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand'),
        zoned('z2', 'test-zone-2', '64-cpu-128-mem-amd64-linux-test-zone-2-on-demand'),
        zoned('z3', 'test-zone-3', '1-cpu-1-mem-amd64-linux-test-zone-3-on-demand'),
      ],
      pods: ['z1', 'z2', 'z3'].map((n) =>
        rsPod(`p-${n}`, n, { labels: { app: 'test-zonal-spread' }, requests: { cpu: '1' }, spec: { topologySpreadConstraints: [tsc] } }),
      ),
    });
    const [d] = r.consolidation.decisions;
    expect(d).toMatchObject({ action: 'replace', candidates: ['z2'] });
    expect(d.replacement?.zone).toBe('test-zone-2');
  });
  it("won't delete node if it would violate pod anti-affinity: consolidation_test.go:4599 (with room to move, only the anti-affinity keeps them)", () => {
    // Karpenter's case gives each node 1 CPU for a 1-CPU pod, so nothing could move even without the anti-affinity.
    // Here each node (the cheapest type that holds a 1-CPU pod, 2-CPU) has room for a second pod: a delete is
    // possible unless the pods' hostname anti-affinity forbids sharing a node.
    const anti = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } }],
      },
    };
    const run = (affinity?: typeof anti) =>
      sim({
        nodes: ['n0', 'n1', 'n2'].map((n, i) =>
          nodeOf(n, `2-cpu-1-mem-amd64-linux-test-zone-${i + 1}-on-demand`, 'on-demand', {
            zone: `test-zone-${i + 1}`,
            allocatable: { cpu: '2', memory: '1Gi', pods: '10' },
          }),
        ),
        pods: ['n0', 'n1', 'n2'].map((n) => rsPod(`p-${n}`, n, { requests: { cpu: '1' }, spec: affinity ? { affinity } : {} })),
      });
    const held = run(anti);
    expect(held.consolidation.decisions).toEqual([]);
    expect(held.consolidation.unconsolidatable.map((u) => u.reason)).toEqual([
      "Can't replace with a cheaper node",
      "Can't replace with a cheaper node",
      "Can't replace with a cheaper node",
    ]);
    // the same pods without the anti-affinity: one node's pod moves onto another and the node goes
    expect(run().consolidation.decisions[0]).toMatchObject({ action: 'delete', reason: 'Underutilized' });
  });
});

describe("a caller's last pod event and command-only rounds (the sandbox's use)", () => {
  it('lastPodEventAt: a pod removed 2 minutes ago restarts consolidateAfter (5m) though every pod started long ago', () => {
    const input = { nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')], pool: suitePool({ consolidateAfter: '5m' }) };
    expect(sim(input).consolidation.decisions.map((d) => d.action)).toEqual(['replace']);
    const r = sim({ ...input, lastPodEventAt: new Map([['n1', NOW - 120_000]]) });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toContain("has not passed since the node's last pod event (120s ago)");
  });

  it('a Job pod that finished 2 minutes ago (its containers\' latest state.terminated.finishedAt) restarts consolidateAfter (5m): podevents/controller.go "newly terminal pod"', () => {
    // Hand-worked: the Job pod started 2026-01-31T23:50 (10 min ago) and its two containers ended 23:55 and 23:58;
    // the node's last pod event is the later finish, 120 s before NOW, so 300 s have not passed.
    const job = pod('job-1', { nodeName: 'n1', ownerKind: 'Job', ownerName: 'j', createdAt: '2026-01-31T23:50:00Z', phase: 'Succeeded' });
    job.status = {
      ...job.status,
      containerStatuses: [
        { name: 'a', state: { terminated: { finishedAt: '2026-01-31T23:55:00Z' } } },
        { name: 'b', state: { terminated: { finishedAt: '2026-01-31T23:58:00Z' } } },
      ],
    };
    const r = sim({ nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1'), job], pool: suitePool({ consolidateAfter: '5m' }) });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable[0].reason).toContain("has not passed since the node's last pod event (120s ago)");
  });

  const cheapestSpot = '1-cpu-1-mem-amd64-linux-test-zone-1-spot';
  const cases: [string, Parameters<typeof sim>[0]][] = [
    ['replace (consolidation_test.go:1006)', { nodes: [nodeOf('n1', MOST_EXPENSIVE)], pods: [rsPod('p', 'n1')] }],
    [
      'delete onto another node (consolidation_test.go:2421)',
      {
        nodes: [
          nodeOf('n0', '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand'),
          nodeOf('n1', '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand'),
        ],
        pods: [rsPod('p0', 'n0'), rsPod('p1', 'n0'), rsPod('p2', 'n1')],
      },
    ],
    [
      'spot nodes whose pods fit nowhere else (the quick proof skips them; nothing to do either way)',
      {
        nodes: [
          nodeOf('s0', cheapestSpot, 'spot', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }),
          nodeOf('s1', cheapestSpot, 'spot', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }),
        ],
        pods: [rsPod('p0', 's0', { requests: { cpu: '700m' } }), rsPod('p1', 's1', { requests: { cpu: '700m' } })],
      },
    ],
    [
      'a spot node whose pod fits on the other: deleted',
      {
        nodes: [nodeOf('s0', MOST_EXPENSIVE_SPOT, 'spot'), nodeOf('s1', MOST_EXPENSIVE_SPOT, 'spot')],
        pods: [
          rsPod('p0', 's0', { requests: { cpu: '1' } }),
          rsPod('p1', 's0', { requests: { cpu: '1' } }),
          rsPod('p2', 's1', { requests: { cpu: '1' } }),
        ],
      },
    ],
  ];
  it.each(cases)('commandOnly finds the same command: %s', (_name, input) => {
    const ctx = prepare({ nodePools: [input.pool ?? suitePool()], nodes: input.nodes, pods: input.pods, catalogue: ASSORTED, now: NOW });
    const full = consolidate(ctx, provision(ctx));
    const only = consolidate(ctx, provision(ctx), { commandOnly: true });
    const summary = (o: typeof full) =>
      o.command && {
        method: o.command.method,
        candidates: o.command.candidates.map((c) => c.node.name),
        type: o.command.replacement?.launch.instanceType.name,
      };
    expect(summary(only)).toEqual(summary(full));
  });
});
