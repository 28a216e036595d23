import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from './catalogue.js';
import { prepare } from './engine.js';
import { EngineInputError } from './errors.js';
import type { KubeNodePool, KubePod } from './kube-types.js';
import { provision } from './provisioning.js';
import { simulate } from './simulate.js';
import { fakeAssorted, fakeDefaultCatalogue, fakeType, node, nodePool, pod } from './test-support.js';
import { karpenterBehaviour, resolveGates } from './version.js';

/**
 * Behaviour a Karpenter release changed, reproduced for the release given as karpenterVersion and kept as it was
 * for older ones. "provisioning/suite_test.go:N" and "consolidation_test.go:N" cite kubernetes-sigs/karpenter@v1.14.1
 * pkg/controllers/provisioning/suite_test.go and pkg/controllers/disruption/consolidation_test.go; each feature's
 * release is named with the commit that brought it.
 */

const NOW = Date.parse('2026-08-01T00:00:00Z');
const AGO = '2026-07-01T00:00:00Z';
const ASSORTED = fakeAssorted();
const BIG = { cpu: '32', pods: '100', memory: '128Gi' };
const pool = (o: Parameters<typeof nodePool>[1] = {}) =>
  nodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '100%' }], ...o });
const rsPod = (name: string, nodeName: string, o: Parameters<typeof pod>[1] = {}): KubePod =>
  pod(name, { nodeName, ownerKind: 'ReplicaSet', ownerName: 'rs', createdAt: AGO, ...o });
const assortedNode = (name: string, type: string, o: Partial<Parameters<typeof node>[1]> = {}) =>
  node(name, { nodePool: 'default', instanceType: type, allocatable: BIG, createdAt: AGO, ...o });
const CHEAPEST = '1-cpu-1-mem-amd64-linux-test-zone-1-on-demand';
const MOST_EXPENSIVE = '64-cpu-128-mem-amd64-linux-test-zone-1-on-demand';

describe('releases and gates', () => {
  it('a release number: 1.14.1 is modelled, 1.15.0 runs as 1.14.1 with a warning, 0.37 and "latest" are refused', () => {
    expect(karpenterBehaviour('v1.14.1')).toMatchObject({ version: '1.14.1', balancedPolicy: true, nodeLimits: true });
    expect(karpenterBehaviour('1.10')).toMatchObject({
      version: '1.10.0',
      balancedPolicy: false,
      nodeLimits: false,
      doNotDisruptDuration: false,
    });
    const warnings: string[] = [];
    expect(karpenterBehaviour('1.15.0', warnings).balancedPolicy).toBe(true);
    expect(warnings).toEqual(['karpenterVersion 1.15.0 is newer than the newest release modelled (1.14.1); simulated as 1.14.1']);
    expect(() => karpenterBehaviour('0.37.0')).toThrow(EngineInputError);
    expect(() => karpenterBehaviour('latest')).toThrow('karpenterVersion: "latest" is not a release number like 1.14.1');
  });
  it('options.go: ReservedCapacity defaults on from v1.6.0 (off in 1.3–1.5); NodeOverlay does not exist before v1.7.0', () => {
    const warnings: string[] = [];
    expect(resolveGates({}, karpenterBehaviour('1.14.1'), warnings)).toEqual({
      spotToSpotConsolidation: false,
      nodeOverlay: false,
      staticCapacity: false,
      reservedCapacity: true,
    });
    expect(resolveGates({}, karpenterBehaviour('1.5.0'), warnings).reservedCapacity).toBe(false);
    expect(resolveGates({ nodeOverlay: true }, karpenterBehaviour('1.6.0'), warnings).nodeOverlay).toBe(false);
    expect(warnings).toEqual(['feature gate NodeOverlay does not exist before Karpenter v1.7.0 (karpenterVersion 1.6.0); left off']);
  });
});

describe('consolidateAfter on destinations (v1.14.0, core #3006)', () => {
  // consolidation_test.go:3050: n0 had a pod bound 30 s ago (consolidateAfter 1m); n1's pod could move there
  const input = (karpenterVersion?: string) => ({
    nodePools: [pool({ consolidateAfter: '1m' })],
    nodes: [assortedNode('n0', CHEAPEST), assortedNode('n1', CHEAPEST)],
    pods: [
      rsPod('p0', 'n0'),
      rsPod('p1', 'n0', { createdAt: '2026-07-31T23:59:30Z' }),
      rsPod('p2', 'n1', { createdAt: '2026-07-31T23:00:00Z' }),
    ],
    catalogue: ASSORTED,
    now: NOW,
    ...(karpenterVersion ? { karpenterVersion } : {}),
  });
  it('consolidation_test.go:3050 v1.14.1: no pod of n1 is simulated onto n0, so n1 stays', () => {
    expect(simulate(input()).consolidation.decisions).toEqual([]);
  });
  it('v1.13.0 (before the change): n1 is deleted, its pod moving to n0', () => {
    expect(simulate(input('1.13.0')).consolidation.decisions[0]).toMatchObject({ action: 'delete', candidates: ['n1'] });
  });
  it('consolidation_test.go:3121 a destination whose NodePool has consolidateAfter Never is never "under" it', () => {
    const r = simulate({
      nodePools: [pool({ consolidateAfter: '0s' }), nodePool('never', { consolidateAfter: 'Never', budgets: [{ nodes: '100%' }] })],
      nodes: [
        assortedNode('src', CHEAPEST),
        node('dst', { nodePool: 'never', instanceType: CHEAPEST, allocatable: BIG, createdAt: '2026-07-31T23:59:50Z' }),
      ],
      pods: [rsPod('p', 'src')],
      catalogue: ASSORTED,
      now: NOW,
    });
    expect(r.consolidation.decisions[0]).toMatchObject({ action: 'delete', candidates: ['src'] });
  });
  it('consolidation_test.go:3192 a replacement is a new node: not blocked by consolidateAfter', () => {
    const r = simulate({
      nodePools: [pool({ consolidateAfter: '1m' })],
      nodes: [assortedNode('n', MOST_EXPENSIVE)],
      pods: [rsPod('p', 'n')],
      catalogue: ASSORTED,
      now: NOW,
    });
    expect(r.consolidation.decisions[0]).toMatchObject({ action: 'replace', candidates: ['n'] });
  });
});

describe('candidate order and emptiness (v1.14.0, core #2962)', () => {
  // one node disruptable at a time (budget 1), so single-node consolidation takes the first candidate that works:
  // A is dear with 3 pods (price per disruption 20.14 / 4), B cheap with 1 pod (0.41 / 2); either can go
  const input = (karpenterVersion?: string) => ({
    // expireAfter Never: the old order's lifetime factor is 1 for both
    nodePools: [pool({ budgets: [{ nodes: '1' }], expireAfter: 'Never' })],
    nodes: [assortedNode('a', MOST_EXPENSIVE), assortedNode('b', '2-cpu-2-mem-amd64-linux-test-zone-1-on-demand')],
    pods: [rsPod('a0', 'a'), rsPod('a1', 'a'), rsPod('a2', 'a'), rsPod('b0', 'b')],
    catalogue: ASSORTED,
    now: NOW,
    ...(karpenterVersion ? { karpenterVersion } : {}),
  });
  it('v1.14.1 sorts by savings ratio, highest first (consolidation.go sortCandidates): A goes', () => {
    expect(simulate(input()).consolidation.decisions[0]).toMatchObject({ method: 'single-node', candidates: ['a'] });
  });
  it('v1.13.0 sorted by disruption cost, lowest first: B (one pod) goes', () => {
    expect(simulate(input('1.13.0')).consolidation.decisions[0]).toMatchObject({ method: 'single-node', candidates: ['b'] });
  });
  it('types.go IsEmpty (v1.14.0): a node whose only pod has pod-deletion-cost -2147483647 is empty (Emptiness); before, it had a pod to move', () => {
    const cheap = { 'controller.kubernetes.io/pod-deletion-cost': '-2147483647' };
    const run = (v?: string) =>
      simulate({
        nodePools: [pool()],
        nodes: [assortedNode('n0', CHEAPEST), assortedNode('n1', MOST_EXPENSIVE)],
        pods: [rsPod('p', 'n1', { annotations: cheap }), rsPod('q', 'n0')],
        catalogue: ASSORTED,
        now: NOW,
        ...(v ? { karpenterVersion: v } : {}),
      }).consolidation.decisions[0];
    expect(run()).toMatchObject({ reason: 'Empty', method: 'emptiness', candidates: ['n1'] });
    expect(run('1.13.0')).toMatchObject({ reason: 'Underutilized' });
  });
  it('a WhenEmpty pool\'s busy node: v1.14 says "has consolidation policy WhenEmpty, but node is not empty", v1.13 "has non-empty consolidation disabled"', () => {
    const run = (v?: string) =>
      simulate({
        nodePools: [pool({ consolidationPolicy: 'WhenEmpty' })],
        nodes: [assortedNode('n', MOST_EXPENSIVE)],
        pods: [rsPod('p', 'n')],
        catalogue: ASSORTED,
        now: NOW,
        ...(v ? { karpenterVersion: v } : {}),
      }).consolidation.unconsolidatable[0].reason;
    expect(run()).toBe('NodePool "default" has consolidation policy WhenEmpty, but node is not empty');
    expect(run('1.13.0')).toBe('NodePool "default" has non-empty consolidation disabled');
  });
});

describe('do-not-disrupt durations (v1.12.0)', () => {
  const run = (v?: string) =>
    simulate({
      nodePools: [pool()],
      nodes: [assortedNode('n', MOST_EXPENSIVE)],
      // started 10 minutes ago, protected for 30
      pods: [rsPod('p', 'n', { annotations: { 'karpenter.sh/do-not-disrupt': '30m' }, createdAt: '2026-07-31T23:50:00Z' })],
      catalogue: ASSORTED,
      now: NOW,
      ...(v ? { karpenterVersion: v } : {}),
    }).consolidation;
  it('consolidation_test.go:2867 (v1.14.1): "30m" still protects a pod started 10 minutes ago', () => {
    expect(run().unconsolidatable[0].reason).toBe('Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/p)');
  });
  it('v1.11.0 read only "true" (pod.HasDoNotDisrupt): the node is replaced', () => {
    expect(run('1.11.0').decisions[0]).toMatchObject({ action: 'replace', candidates: ['n'] });
  });
});

describe('limits.nodes on dynamic NodePools (v1.11.0, core #2526)', () => {
  const run = (limit: number, v?: string) =>
    simulate({
      nodePools: [nodePool('default', { limits: { nodes: limit } })],
      nodes: [0, 1].map((i) =>
        node(`n${i}`, { nodePool: 'default', instanceType: 'default-instance-type', allocatable: { cpu: '100m', pods: '5' } }),
      ),
      pods: [pod('pending', { requests: { cpu: '1' } })],
      catalogue: fakeDefaultCatalogue(),
      now: NOW,
      ...(v ? { karpenterVersion: v } : {}),
    }).provisioning;
  it('provisioning/suite_test.go:891 two nodes of a limit of 2: the third is refused, "node limits have been exhausted"', () => {
    expect(run(2).unschedulable.map((u) => u.reason)).toEqual(['node limits have been exhausted for nodepool (NodePool=default)']);
  });
  it('more nodes than the limit: every type exceeds it (remaining below zero, scheduler.go filterByRemainingResources)', () => {
    expect(run(1).unschedulable[0].reason).toBe('all available instance types exceed limits for nodepool (NodePool=default)');
  });
  it('v1.10.0: limits.nodes counted nothing on a dynamic NodePool, the pod gets a node', () => {
    expect(run(2, '1.10.0').nodeClaims).toHaveLength(1);
  });
});

describe('pod-level resources (v1.8.0)', () => {
  const example = (cpu: number, memGi: number): CatalogueEntry =>
    fakeType(`example-${cpu}`, {
      arch: 'arch',
      resources: { cpu: String(cpu), memory: `${memGi}Gi` },
      offerings: [
        { zone: 'test-zone-1', capacityType: 'spot', priceUsdPerHour: 0.1 * cpu + (0.1 * memGi * 2 ** 30) / 1e9, available: true },
      ],
    });
  const catalogue = [...fakeDefaultCatalogue(), example(10, 4), example(11, 5), example(12, 6)];
  const launched = (p: KubePod, karpenterVersion?: string) =>
    simulate({ nodePools: [nodePool('default')], pods: [p], catalogue, now: NOW, ...(karpenterVersion ? { karpenterVersion } : {}) })
      .provisioning.nodeClaims[0]?.instanceType;
  const container = (cpu: string, memory: string, restartPolicy?: string) => ({
    name: 'c',
    resources: { requests: { cpu, memory }, limits: { cpu, memory } },
    ...(restartPolicy ? { restartPolicy } : {}),
  });
  it('provisioning/suite_test.go:685 pod-level 9.9 CPU / 3.9Gi over containers 5 + sidecar 4, init 6 → the 10-CPU / 4Gi type', () => {
    const p = pod('p', {
      spec: {
        resources: { requests: { cpu: '9.9', memory: '3.9Gi' }, limits: { cpu: '10', memory: '4Gi' } },
        containers: [container('5', '1Gi')],
        initContainers: [container('6', '2Gi'), container('4', '2Gi', 'Always')],
      },
    });
    expect(launched(p)).toBe('example-10');
  });
  it("a pod-level request above the containers' (10.5 CPU over 5): the 11-CPU type from v1.8.0, the containers' 5 CPU before", () => {
    const p = pod('p', { spec: { resources: { requests: { cpu: '10.5', memory: '1Gi' } }, containers: [container('5', '1Gi')] } });
    expect(launched(p)).toBe('example-11');
    // 5 CPU, 1Gi: the cheapest type with room, the 16-CPU arm type ($1.6 + $13.7) loses to example-10 ($1.43)
    expect(launched(p, '1.7.0')).toBe('example-10');
  });
  it('a pod-level limit without requests (no container requests either) stands for the request, as the API server defaults it', () => {
    const p = pod('p', { spec: { resources: { limits: { cpu: '11', memory: '1Gi' } }, containers: [{ name: 'c' }] } });
    expect(launched(p)).toBe('example-12');
  });
});

describe('DaemonSets with instance-type requirements (v1.14.0, core #2975)', () => {
  const ds = (
    name: string,
    requirements: { key: string; operator: string; values: string[] }[],
    cpu: string,
    memory?: string,
  ): KubePod => ({
    metadata: { name, namespace: 'kube-system', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name, controller: true }] },
    spec: {
      containers: [{ name: 'd', resources: { requests: { cpu, ...(memory ? { memory } : {}) } } }],
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: requirements }] } },
      },
    },
  });
  const launched = (daemonSetPods: KubePod[], karpenterVersion?: string) =>
    simulate({
      nodePools: [nodePool('default')],
      pods: [pod('p', { requests: { cpu: '1', memory: '1Gi' } })],
      daemonSetPods,
      catalogue: fakeDefaultCatalogue(),
      now: NOW,
      ...(karpenterVersion ? { karpenterVersion } : {}),
    }).provisioning.nodeClaims[0].instanceType;
  const size = 'karpenter.k8s.aws/instance-size';
  it('provisioning/suite_test.go:1246 a 1-CPU DaemonSet for small types and a 10-CPU one for large: the pod (1 CPU) needs a 4-CPU small type', () => {
    const sets = [
      ds('small', [{ key: size, operator: 'In', values: ['small'] }], '1'),
      ds('large', [{ key: size, operator: 'In', values: ['large'] }], '10'),
    ];
    expect(launched(sets)).toBe('default-instance-type');
    // before v1.14.0 both counted on every type of the NodePool: 12 CPU of overhead, only the 16-CPU arm type holds it
    expect(launched(sets, '1.13.0')).toBe('arm-instance-type');
  });
  it('provisioning/suite_test.go:1197 a DaemonSet for an instance type no one offers is ignored: the 2-CPU type', () => {
    const sets = [
      ds('nowhere', [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['non-existent-instance-type'] }], '2', '2Gi'),
    ];
    expect(launched(sets)).toBe('small-instance-type');
    expect(launched(sets, '1.13.0')).toBe('default-instance-type');
  });
});

describe('static NodePools (spec.replicas, v1.8.0)', () => {
  const staticPool = (replicas: number, o: Partial<KubeNodePool['spec']> = {}): KubeNodePool => {
    const np = nodePool('static', { budgets: [{ nodes: '100%' }], consolidateAfter: '0s' });
    return { ...np, spec: { ...np.spec, replicas, ...o } };
  };
  it('provisioning/suite_test.go:2848 a static NodePool creates no NodeClaim for a pending pod', () => {
    const r = simulate({ nodePools: [staticPool(2)], pods: [pod('p')], catalogue: fakeDefaultCatalogue(), now: NOW });
    expect(r.provisioning.nodeClaims).toEqual([]);
    expect(r.provisioning.unschedulable.map((u) => u.pod)).toEqual(['default/p']);
  });
  it('provisioning/suite_test.go:2859 beside a dynamic NodePool, the dynamic one takes the pod', () => {
    const r = simulate({ nodePools: [staticPool(1), nodePool('dynamic')], pods: [pod('p')], catalogue: fakeDefaultCatalogue(), now: NOW });
    expect(r.provisioning.nodeClaims.map((nc) => nc.nodePool)).toEqual(['dynamic']);
  });
  it('consolidation_test.go:5269 / emptiness_test.go:758 its nodes are never consolidated, empty or not; its fixed cost is reported', () => {
    const r = simulate({
      nodePools: [staticPool(2)],
      nodes: ['s0', 's1'].map((n) => node(n, { nodePool: 'static', instanceType: MOST_EXPENSIVE, allocatable: BIG, createdAt: AGO })),
      pods: [rsPod('p', 's0')],
      catalogue: ASSORTED,
      now: NOW,
    });
    expect(r.consolidation.decisions).toEqual([]);
    expect(r.consolidation.unconsolidatable.map((u) => [u.node, u.reason, u.wording])).toEqual([
      ['s0', 'NodePool "static" is static (spec.replicas 2): Karpenter never consolidates its nodes', 'ledger'],
      ['s1', 'NodePool "static" is static (spec.replicas 2): Karpenter never consolidates its nodes', 'ledger'],
    ]);
    // 64 CPU + 128Gi: 6.4 + 13.743895 each
    expect(r.staticNodePools).toEqual([{ nodePool: 'static', replicas: 2, nodes: 2, costUsdPerHour: expect.closeTo(2 * 20.143895, 5) }]);
  });
  it("the NodePool CRD's rules: only limits.nodes, no weight; and no replicas before v1.8.0", () => {
    const input = (np: KubeNodePool, karpenterVersion?: string) => ({
      nodePools: [np],
      catalogue: fakeDefaultCatalogue(),
      now: NOW,
      ...(karpenterVersion ? { karpenterVersion } : {}),
    });
    expect(() => prepare(input(staticPool(1, { limits: { cpu: '10' } })))).toThrow(
      "NodePool static: only 'limits.nodes' is supported on static NodePools",
    );
    expect(() => prepare(input(staticPool(1, { weight: 10 })))).toThrow("NodePool static: 'weight' is not supported on static NodePools");
    expect(() => prepare(input(staticPool(1), '1.7.0'))).toThrow(
      /^NodePool static: spec.replicas \(a static NodePool\) arrived in Karpenter v1.8.0/,
    );
    expect(() => prepare(input(staticPool(1, { limits: { nodes: '3' } })))).not.toThrow();
  });
});

describe('--min-values-policy (v1.6.0)', () => {
  // provisioning/suite_test.go:2876-2905: two arm64 types at $0.52 spot, a NodePool asking for 3 of them (minValues 3)
  const types = ['instance-type-1', 'instance-type-2'].map((name, i) =>
    fakeType(name, {
      arch: 'arm64',
      resources: { cpu: '4', memory: '4Gi' },
      offerings: [{ zone: `test-zone-${i + 1}-spot`, capacityType: 'spot', priceUsdPerHour: 0.52, available: true }],
    }),
  );
  const minValuesPool = nodePool('min-values', {
    weight: 100,
    requirements: [
      {
        key: 'node.kubernetes.io/instance-type',
        operator: 'In',
        values: ['instance-type-1', 'instance-type-2', 'instance-type-3'],
        minValues: 3,
      },
    ],
  });
  const input = (policy: 'Strict' | 'BestEffort', pools: KubeNodePool[] = [minValuesPool], karpenterVersion?: string) => ({
    nodePools: pools,
    pods: [pod('p', { requests: { cpu: '0.9', memory: '0.9Gi' } })],
    catalogue: types,
    now: NOW,
    minValuesPolicy: policy,
    ...(karpenterVersion ? { karpenterVersion } : {}),
  });
  it('provisioning/suite_test.go:2911 Strict: minValues 3 of 2 types: not scheduled', () => {
    expect(simulate(input('Strict')).provisioning.nodeClaims).toEqual([]);
  });
  it('provisioning/suite_test.go:2962 BestEffort: scheduled on instance-type-1, minValues relaxed to 2, annotated "true"', () => {
    const ctx = prepare(input('BestEffort'));
    const [nc] = provision(ctx).nodeClaims;
    expect(nc.launch.instanceType.name).toBe('instance-type-1');
    expect(nc.claim.requirements.get('node.kubernetes.io/instance-type').minValues).toBe(2);
    expect(simulate(input('BestEffort')).provisioning.nodeClaims[0].annotations).toEqual({
      'karpenter.sh/nodeclaim-min-values-relaxed': 'true',
    });
  });
  it('provisioning/suite_test.go:3024 BestEffort relaxes minValues before falling back to a lighter NodePool without them', () => {
    const plain = nodePool('plain', {
      weight: 10,
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['instance-type-1', 'instance-type-2', 'instance-type-3'] },
      ],
    });
    const r = simulate(input('BestEffort', [minValuesPool, plain]));
    expect(r.provisioning.nodeClaims.map((nc) => [nc.nodePool, nc.annotations?.['karpenter.sh/nodeclaim-min-values-relaxed']])).toEqual([
      ['min-values', 'true'],
    ]);
    // Strict falls back to the lighter NodePool, whose NodeClaim says "false"
    expect(simulate(input('Strict', [minValuesPool, plain])).provisioning.nodeClaims.map((nc) => [nc.nodePool, nc.annotations])).toEqual([
      ['plain', { 'karpenter.sh/nodeclaim-min-values-relaxed': 'false' }],
    ]);
  });
  it('before v1.6.0 there is no BestEffort: said, and minValues stay strict (no annotation either)', () => {
    const r = simulate(input('BestEffort', [minValuesPool], '1.5.0'));
    expect(r.provisioning.nodeClaims).toEqual([]);
    expect(r.warnings).toContain(
      '--min-values-policy BestEffort arrived in Karpenter v1.6.0 (karpenterVersion 1.5.0); minValues are strict',
    );
  });
});
