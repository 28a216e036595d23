import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from './catalogue.js';
import { type EngineInput, prepare } from './engine.js';
import type { KubePod } from './kube-types.js';
import { provision } from './provisioning.js';
import { fakeDefaultCatalogue, fakeInstanceTypes, fakeType, nodePool, onDemand, pod, pods } from './test-support.js';

/**
 * Provisioning, case by case. "suite_test.go:N" cites kubernetes-sigs/karpenter@v1.14.1
 * pkg/controllers/provisioning/scheduling/suite_test.go, "provisioning/suite_test.go:N" the provisioner's suite,
 * "instance_selection_test.go:N" and "topology_test.go:N" the files beside it; the catalogue is Karpenter's fake
 * cloud provider (see test-support.ts) unless a case says otherwise. Numbers are worked in the comments.
 */

const NOW = Date.parse('2026-02-01T00:00:00Z');
// suite_test.go:136-149: the suite's NodePool allows every capacity type
const suitePool = (o: Parameters<typeof nodePool>[1] = {}) =>
  nodePool('default', {
    requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand', 'reserved'] }],
    ...o,
  });

function run(podList: KubePod[], o: Partial<EngineInput> = {}) {
  const ctx = prepare({ nodePools: [suitePool()], pods: podList, catalogue: fakeDefaultCatalogue(), now: NOW, ...o });
  const r = provision(ctx);
  return {
    claims: r.nodeClaims.map((nc) => ({
      pool: nc.nodePool,
      type: nc.launch.instanceType.name,
      capacityType: nc.launch.capacityType,
      zone: nc.launch.zone,
      usdPerHour: nc.launch.usdPerHour,
      options: nc.claim.options.map((it) => it.name),
      pods: nc.pods.map((p) => p.name),
    })),
    unschedulable: r.unschedulable.map((u) => ({ pod: u.pod.name, reason: u.reason })),
  };
}

const types = (r: ReturnType<typeof run>) => r.claims.map((c) => c.type);
const amd64 = { 'kubernetes.io/arch': 'amd64' };

describe('bin-packing onto the instance types Karpenter would pick', () => {
  it.each([
    // name, pods, expected type per NodeClaim
    // small-instance-type: 2 CPU, 2Gi (− 100m, 10Mi overhead) at 0.2 + 0.2147 = $0.4147/h is the cheapest that fits
    [
      'should schedule a small pod on the smallest instance: suite_test.go:1522',
      [pod('p', { requests: { memory: '100M' } })],
      ['small-instance-type'],
    ],
    // 2000M = 1.86Gi still fits 2Gi − 10Mi
    [
      'should schedule a small pod on the smallest possible instance type: suite_test.go:1534',
      [pod('p', { requests: { memory: '2000M' } })],
      ['small-instance-type'],
    ],
    // five pods of 10M share one small node (5 pod slots)
    [
      'should schedule multiple small pods on the smallest possible instance type: suite_test.go:1574',
      pods(5, 'p', { requests: { memory: '10M' } }),
      ['small-instance-type'],
    ],
    // 1.8G each: two fit a 4Gi default node (3.6e9 ≤ 4.28e9), three do not, so 40 pods → 20 nodes
    [
      'should create new nodes when a node is at capacity: suite_test.go:1593',
      pods(40, 'p', { nodeSelector: amd64, requests: { memory: '1.8G' } }),
      Array(20).fill('default-instance-type'),
    ],
    // 2 × 1.8G + 400M = 4.0e9 ≤ 4.28e9: each of the 20 nodes takes one small pod as well
    [
      'should pack small and large pods together: suite_test.go:1613',
      [
        ...pods(40, 'l', { nodeSelector: amd64, requests: { memory: '1.8G' } }),
        ...pods(20, 's', { nodeSelector: amd64, requests: { memory: '400M' } }),
      ],
      Array(20).fill('default-instance-type'),
    ],
    // every type holds 5 pods: 25 tiny pods → 5 of the cheapest
    [
      'should create new nodes when a node is at capacity due to pod limits per node: suite_test.go:1694',
      pods(25, 'p', { nodeSelector: amd64, requests: { memory: '1m', cpu: '1m' } }),
      Array(5).fill('small-instance-type'),
    ],
    // init container 2 CPU > app 1 CPU: the pod needs 2 CPU, more than small's 1.9
    [
      'should take into account initContainer resource requests when binpacking: suite_test.go:1716',
      [
        pod('p', {
          requests: { memory: '1Gi', cpu: '1' },
          spec: { initContainers: [{ resources: { requests: { memory: '1Gi', cpu: '2' } } }] },
        }),
      ],
      ['default-instance-type'],
    ],
    // RuntimeClass overhead of 2 CPU (admission writes it to spec.overhead) + 1 CPU = 3 CPU
    [
      'should take pod runtime class into consideration: suite_test.go:1546',
      [pod('p', { requests: { cpu: '1' }, spec: { runtimeClassName: 'my-runtime-class', overhead: { cpu: '2' } } })],
      ['default-instance-type'],
    ],
    // a zero request of an unknown resource is no request at all
    [
      'should handle zero-quantity resource requests: suite_test.go:1671',
      [pod('p', { requests: { 'foo.com/weird-resources': '0' } })],
      ['small-instance-type'],
    ],
  ])('%s', (_name, podList, expected) => {
    const r = run(podList as KubePod[]);
    expect(r.unschedulable).toEqual([]);
    expect(types(r)).toEqual(expected);
  });

  it('should pack nodes tightly: suite_test.go:1645 (4.5 CPU takes fake-it-4, 1 CPU gets its own smaller fake-it-1)', () => {
    const r = run([pod('big', { requests: { cpu: '4.5' } }), pod('small', { requests: { cpu: '1' } })], {
      catalogue: fakeInstanceTypes(5),
    });
    // fake-it-4: 5 CPU − 100m = 4.9 holds 4.5 but not 5.5; fake-it-0 (0.9 CPU) cannot hold 1, fake-it-1 (1.9) can
    expect(r.claims.map((c) => [c.type, c.pods])).toEqual([
      ['fake-it-4', ['big']],
      ['fake-it-1', ['small']],
    ]);
  });

  it('should select for valid instance types, regardless of price: suite_test.go:1763', () => {
    const catalogue = [
      fakeType('medium', { resources: { cpu: '2', memory: '2Gi' }, offerings: onDemand(3) }),
      fakeType('small', { resources: { cpu: '1', memory: '1Gi' }, offerings: onDemand(2) }),
      fakeType('large', { resources: { cpu: '4', memory: '4Gi' }, offerings: onDemand(1) }),
    ];
    // limits only: the API server makes them the requests
    const r = run([pod('p', { spec: { containers: [{ resources: { limits: { cpu: '1m', memory: '1Mi' } } }] } })], { catalogue });
    expect(r.claims[0].type).toBe('large');
    expect(r.claims[0].options).toEqual(['large', 'small', 'medium']);
  });

  it('should schedule on cheaper on-demand instance even when spot price ordering would place other instance types first: instance_selection_test.go:563', () => {
    const catalogue = [
      fakeType('test-instance1', {
        resources: { cpu: '1', memory: '1Gi' },
        offerings: [
          { zone: 'test-zone-1a', capacityType: 'on-demand', priceUsdPerHour: 1.0, available: true },
          { zone: 'test-zone-1a', capacityType: 'spot', priceUsdPerHour: 0.2, available: true },
        ],
      }),
      fakeType('test-instance2', {
        resources: { cpu: '1', memory: '1Gi' },
        offerings: [
          { zone: 'test-zone-1a', capacityType: 'on-demand', priceUsdPerHour: 1.3, available: true },
          { zone: 'test-zone-1a', capacityType: 'spot', priceUsdPerHour: 0.1, available: true },
        ],
      }),
    ];
    const r = run([pod('p')], {
      catalogue,
      nodePools: [nodePool('default', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] })],
    });
    expect(r.claims[0]).toMatchObject({ type: 'test-instance1', capacityType: 'on-demand', usdPerHour: 1.0 });
  });
});

describe("pods that fit no instance type get Karpenter's reason", () => {
  it.each([
    [
      "should not schedule pods that exceed every instance type's capacity: suite_test.go:1683",
      pod('p', { requests: { memory: '2Ti' } }),
      /^no instance type has enough resources, requirements=.*karpenter.sh\/nodepool In \[default\].*, resources=\{"memory":"2Ti","pods":"1"\}$/,
    ],
    [
      'should not schedule if requesting more resources than any instance type has: suite_test.go:1248',
      pod('p', { requests: { cpu: '512' } }),
      /^no instance type has enough resources, .*resources=\{"cpu":"512","pods":"1"\}$/,
    ],
    [
      'should not schedule pods when initContainer resource requests are greater than available instance types: suite_test.go:1741',
      pod('p', {
        requests: { memory: '1Gi', cpu: '1' },
        spec: { initContainers: [{ resources: { requests: { memory: '1Ti', cpu: '2' } } }] },
      }),
      /^no instance type has enough resources/,
    ],
    [
      'should not schedule pods that have node selectors with undefined key: suite_test.go:172',
      pod('p', { nodeSelector: { foo: 'bar' } }),
      /^incompatible requirements, label "foo" does not have known values$/,
    ],
    [
      'should not schedule if node selector outside of NodePool constraints: suite_test.go:243 (arch)',
      pod('p', { nodeSelector: { 'kubernetes.io/arch': 's390x' } }),
      /^no instance type met all requirements, requirements=.*kubernetes.io\/arch In \[s390x\]/,
    ],
  ])('%s', (_name, p, reason) => {
    const r = run([p]);
    expect(r.claims).toEqual([]);
    expect(r.unschedulable).toHaveLength(1);
    expect(r.unschedulable[0].reason).toMatch(reason);
  });
});

describe('NodePools: weight, taints, labels, limits', () => {
  it('should schedule to the nodepool with the highest priority always: provisioning/suite_test.go:2815', () => {
    const r = run(pods(3, 'p'), { nodePools: [nodePool('a'), nodePool('b', { weight: 20 }), nodePool('c', { weight: 100 })] });
    expect(r.claims.map((c) => c.pool)).toEqual(['c']);
  });
  it('should schedule to explicitly selected nodepool even if other nodePools are higher priority: provisioning/suite_test.go:2831', () => {
    const r = run([pod('p', { nodeSelector: { 'karpenter.sh/nodepool': 'a' } })], {
      nodePools: [nodePool('a'), nodePool('b', { weight: 20 }), nodePool('c', { weight: 100 })],
    });
    expect(r.claims.map((c) => c.pool)).toEqual(['a']);
  });
  it('should schedule to a NodePool by labels: provisioning/suite_test.go:2781', () => {
    const r = run([pod('p', { nodeSelector: { foo: 'bar' } })], {
      nodePools: [nodePool('labelled', { labels: { foo: 'bar' } }), nodePool('plain')],
    });
    expect(r.claims.map((c) => c.pool)).toEqual(['labelled']);
  });
  it('equal weights go by name, descending (OrderByWeight)', () => {
    const r = run([pod('p')], { nodePools: [nodePool('alpha'), nodePool('beta')] });
    expect(r.claims.map((c) => c.pool)).toEqual(['beta']);
  });
  it('should not match NodePool with PreferNoSchedule taint when other NodePool match: provisioning/suite_test.go:2797', () => {
    const r = run([pod('p')], {
      nodePools: [
        nodePool('tainted', { weight: 10, taints: [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }] }),
        nodePool('plain'),
      ],
    });
    expect(r.claims.map((c) => c.pool)).toEqual(['plain']);
  });
  it("a NoSchedule taint keeps pods without a toleration off the NodePool, in Karpenter's words", () => {
    const tainted = [nodePool('gpu', { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] })];
    const refused = run([pod('p')], { nodePools: tainted });
    expect(refused.unschedulable[0].reason).toBe('did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)');
    const tolerated = run([pod('p', { spec: { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] } })], {
      nodePools: tainted,
    });
    expect(tolerated.claims.map((c) => c.pool)).toEqual(['gpu']);
  });
  it.each([
    // limit 2 CPU: small (2 CPU capacity) may launch for 1.75 CPU
    [
      'should schedule if limits would be met: provisioning/suite_test.go:765',
      { cpu: '2' },
      [pod('p', { requests: { cpu: '1.75' } })],
      1,
      0,
    ],
    // 2.1 CPU needs a 4-CPU type, over the 2-CPU limit
    [
      'should not schedule if limits would be exceeded: provisioning/suite_test.go:832',
      { cpu: '2' },
      [pod('p', { requests: { cpu: '2.1' } })],
      0,
      1,
    ],
    // limit 3: the first pod takes small (2), leaving 1 — no type has ≤ 1 CPU
    [
      'should partially schedule if limits would be exceeded: provisioning/suite_test.go:782',
      { cpu: '3' },
      pods(2, 'p', {
        labels: { app: 'foo' },
        requests: { cpu: '1.5' },
        spec: {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'foo' } } },
              ],
            },
          },
        },
      }),
      1,
      1,
    ],
    // limits as numbers, the way the API server returns them
    ['limits written as numbers count the same (cpu: 2)', { cpu: 2 }, [pod('p', { requests: { cpu: '2.1' } })], 0, 1],
    // every type has 5 pod slots, over the pods limit of 1
    [
      'should not schedule if limits would be exceeded (GPU): provisioning/suite_test.go:847',
      { pods: '1' },
      [pod('p', { requests: { 'fake.com/vendor-a': '1' } })],
      0,
      1,
    ],
  ])('%s', (_name, limits, podList, scheduled, unscheduled) => {
    const r = run(podList, { nodePools: [nodePool('default', { limits })] });
    expect(r.claims.reduce((s, c) => s + c.pods.length, 0)).toBe(scheduled);
    expect(r.unschedulable).toHaveLength(unscheduled);
    if (unscheduled) expect(r.unschedulable[0].reason).toMatch(/exceed limits for nodepool \(NodePool=default\)|no instance type/);
  });
  it('NodePool limits count the capacity of its existing nodes (provisioning/suite_test.go:742, a 100-CPU node against a limit of 20)', () => {
    const ctx = prepare({
      nodePools: [nodePool('default', { limits: { cpu: '20' } })],
      nodes: [
        {
          metadata: {
            name: 'n1',
            labels: { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'default-instance-type' },
          },
          status: { allocatable: { cpu: '99', memory: '100Gi', pods: '100' }, capacity: { cpu: '100', memory: '100Gi', pods: '100' } },
          spec: { taints: [{ key: 'example.com/full', effect: 'NoSchedule' }] },
        },
      ],
      pods: [pod('p')],
      catalogue: fakeDefaultCatalogue(),
      now: NOW,
    });
    const r = provision(ctx);
    expect(r.nodeClaims).toEqual([]);
    expect(r.unschedulable[0].reason).toBe('all available instance types exceed limits for nodepool (NodePool=default)');
  });
});

describe('DaemonSet overhead on every new node', () => {
  it('should account for daemonsets: provisioning/suite_test.go:935 (2 CPU/2Gi DaemonSet + 1 CPU/1Gi pod needs the 4-CPU/4Gi type)', () => {
    const ds = pod('ds', { requests: { cpu: '2', memory: '2Gi' }, ownerKind: 'DaemonSet', ownerName: 'ds' });
    const r = run([pod('p', { requests: { cpu: '1', memory: '1Gi' } })], { daemonSetPods: [ds] });
    expect(types(r)).toEqual(['default-instance-type']);
  });
  it('should not schedule if daemonset overhead is too large: provisioning/suite_test.go:1004', () => {
    const ds = pod('ds', { requests: { cpu: '10000', memory: '10000Gi' }, ownerKind: 'DaemonSet', ownerName: 'ds' });
    const r = run([pod('p')], { daemonSetPods: [ds] });
    expect(r.claims).toEqual([]);
    expect(r.unschedulable[0].reason).toMatch(/^no instance type has enough resources/);
  });
  it('should ignore daemonsets without matching tolerations: provisioning/suite_test.go:1143', () => {
    const ds = pod('ds', { requests: { cpu: '2', memory: '2Gi' }, ownerKind: 'DaemonSet', ownerName: 'ds' });
    const r = run(
      [pod('p', { requests: { cpu: '1', memory: '1Gi' }, spec: { tolerations: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] } })],
      {
        daemonSetPods: [ds],
        nodePools: [nodePool('default', { taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] })],
      },
    );
    // the DaemonSet cannot run on these nodes, so the 2-CPU type is enough
    expect(types(r)).toEqual(['small-instance-type']);
  });
  it('one running pod per DaemonSet stands for it when no templates are given', () => {
    const ctx = prepare({
      nodePools: [suitePool()],
      nodes: [
        {
          metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } },
          status: { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } },
          spec: { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] },
        },
      ],
      pods: [
        pod('ds-abcde', {
          nodeName: 'n1',
          requests: { cpu: '2', memory: '2Gi' },
          ownerKind: 'DaemonSet',
          ownerName: 'ds',
          spec: { tolerations: [{ operator: 'Exists' }] },
        }),
        pod('p', { requests: { cpu: '1', memory: '1Gi' } }),
      ],
      catalogue: fakeDefaultCatalogue(),
      now: NOW,
    });
    expect(ctx.daemonPods.map((p) => p.name)).toEqual(['ds-abcde']);
    expect(provision(ctx).nodeClaims.map((nc) => nc.launch.instanceType.name)).toEqual(['default-instance-type']);
  });
});

describe('minValues', () => {
  const twoTypes: CatalogueEntry[] = [
    fakeType('instance-type-1', {
      arch: 'arm64',
      resources: { cpu: '1', memory: '1Gi' },
      offerings: [{ zone: 'test-zone-1-spot', capacityType: 'spot', priceUsdPerHour: 0.52, available: true }],
    }),
    fakeType('instance-type-2', {
      arch: 'arm64',
      resources: { cpu: '4', memory: '4Gi' },
      offerings: [{ zone: 'test-zone-1-spot', capacityType: 'spot', priceUsdPerHour: 1.0, available: true }],
    }),
  ];
  it('should schedule respecting the minValues from instance-type requirements: instance_selection_test.go:621', () => {
    // both pods together fit only instance-type-2, which would leave one type against minValues 2: one node each
    const r = run(pods(2, 'p', { requests: { cpu: '0.9', memory: '0.9Gi' } }), {
      catalogue: twoTypes,
      nodePools: [
        nodePool('default', {
          requirements: [
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['instance-type-1', 'instance-type-2'], minValues: 2 },
          ],
        }),
      ],
    });
    expect(r.claims).toHaveLength(2);
    for (const c of r.claims) expect(c.options.length).toBeGreaterThanOrEqual(2);
  });
  it('schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement: instance_selection_test.go:1234', () => {
    const ctx = prepare({
      nodePools: [nodePool('default', { requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: 11 }] })],
      pods: [pod('p')],
      catalogue: fakeInstanceTypes(10),
      now: NOW,
    });
    // the NodePool allows only 10 types, so Karpenter drops it with its NoCompatibleInstanceTypes message
    expect(ctx.skippedPools).toEqual([
      {
        nodePool: 'default',
        reason: 'NodePool requirements filtered out all compatible available instance types due to minValues incompatibility',
      },
    ]);
    expect(provision(ctx).unschedulable[0].reason).toBe('nodepool requirements filtered out all available instance types');
  });
});

describe('preferences are relaxed one at a time', () => {
  const affinity = (a: object) => ({ spec: { affinity: a } });
  it.each([
    [
      'should relax multiple terms: suite_test.go:1144',
      affinity({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: ['invalid', 'invalid', 'test-zone-1', 'test-zone-2'].map((z) => ({
              matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [z] }],
            })),
          },
        },
      }),
      'test-zone-1',
    ],
    [
      'should relax to use lighter weights: suite_test.go:1187',
      affinity({
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              preference: { matchExpressions: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['test-zone-3'] }] },
            },
            {
              weight: 50,
              preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-2'] }] },
            },
            {
              weight: 1,
              preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-1'] }] },
            },
          ],
        },
      }),
      'test-zone-2',
    ],
    [
      'should schedule even if preference is conflicting with requirement: suite_test.go:1214',
      affinity({
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 1,
              preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['test-zone-3'] }] },
            },
          ],
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-3'] }] }],
          },
        },
      }),
      'test-zone-3',
    ],
  ])('%s', (_name, spec, zone) => {
    const pools = _name.includes('1187')
      ? [
          nodePool('default', {
            requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-1', 'test-zone-2'] }],
          }),
        ]
      : [suitePool()];
    const r = run([pod('p', spec as never)], { nodePools: pools });
    expect(r.claims.map((c) => c.zone)).toEqual([zone]);
  });
  it('should not relax the final term: suite_test.go:1128', () => {
    const r = run(
      [
        pod(
          'p',
          affinity({
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['invalid'] }] }],
              },
            },
          }) as never,
        ),
      ],
      {
        nodePools: [
          nodePool('default', { requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-1'] }] }),
        ],
      },
    );
    expect(r.claims).toEqual([]);
    expect(r.unschedulable).toHaveLength(1);
  });
});

describe('Gte and Lte NodePool requirements (Karpenter ≥ 1.10)', () => {
  it('instance-cpu Gte 4 and Lte 8 keep the 4- and 8-CPU types only', () => {
    const catalogue = fakeInstanceTypes(10).map((e, i) => ({
      ...e,
      labels: { ...e.labels, 'karpenter.k8s.aws/instance-cpu': String(i + 1) },
    }));
    const r = run([pod('p')], {
      catalogue,
      nodePools: [
        nodePool('default', {
          requirements: [
            { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4'] },
            { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['8'] },
          ],
        }),
      ],
    });
    expect(r.claims[0].options).toEqual(['fake-it-3', 'fake-it-4', 'fake-it-5', 'fake-it-6', 'fake-it-7']);
    expect(r.claims[0].type).toBe('fake-it-3');
  });
});

describe('existing nodes first', () => {
  const plainNode = (
    name: string,
    o: { initialized?: boolean; taints?: { key: string; value?: string; effect: string }[]; labels?: Record<string, string> } = {},
  ) => ({
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        ...(o.initialized === false ? { 'karpenter.sh/initialized': 'false' } : {}),
        ...(o.labels ?? {}),
      },
    },
    spec: { taints: o.taints ?? [] },
    status: { allocatable: { cpu: '10', memory: '100Gi', pods: '110' } },
  });
  const placed = (o: Partial<EngineInput>) => {
    const r = provision(prepare({ nodePools: [suitePool()], catalogue: fakeDefaultCatalogue(), now: NOW, ...o }));
    return { onNodes: Object.fromEntries([...r.onExistingNodes].map(([n, ps]) => [n, ps.length])), claims: r.nodeClaims.length };
  };
  it('should schedule multiple pods to an existing node unowned by Karpenter: suite_test.go:2633 (100 pods of 10m on a 10-CPU node)', () => {
    expect(placed({ nodes: [plainNode('n1')], pods: pods(100, 'p', { requests: { cpu: '10m' } }) })).toEqual({
      onNodes: { n1: 100 },
      claims: 0,
    });
  });
  it('should order initialized nodes for scheduling uninitialized nodes: suite_test.go:2662', () => {
    expect(placed({ nodes: [plainNode('a', { initialized: false }), plainNode('b')], pods: [pod('p')] })).toEqual({
      onNodes: { b: 1 },
      claims: 0,
    });
  });
  it('should not assume pod will schedule to a tainted node: suite_test.go:2078', () => {
    expect(
      placed({ nodes: [plainNode('n1', { taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] })], pods: [pod('p')] }),
    ).toEqual({ onNodes: {}, claims: 1 });
  });
  it('a node without the label a pod selects on is no destination (suite_test.go:2695); the NodePool can make one', () => {
    const r = placed({ nodes: [plainNode('n1')], pods: [pod('p', { nodeSelector: { 'topology.kubernetes.io/zone': 'test-zone-1' } })] });
    expect(r).toEqual({ onNodes: {}, claims: 1 });
  });
  it('should schedule pods with the same host port to different nodes: suite_test.go:2593', () => {
    const hostPort = { spec: { containers: [{ ports: [{ containerPort: 8080, hostPort: 8080 }] }] } };
    expect(placed({ pods: [pod('a', hostPort), pod('b', hostPort)] })).toEqual({ onNodes: {}, claims: 2 });
  });
  it("a node's room is its allocatable less its pods' requests and the DaemonSets still to come", () => {
    // 10 CPU − 9.5 CPU running − 0.25 CPU of a DaemonSet not yet there = 0.25 CPU: a 0.3 CPU pod needs a new node
    const ds = pod('ds', { requests: { cpu: '250m' }, ownerKind: 'DaemonSet', ownerName: 'ds' });
    const nodes = [plainNode('n1')];
    const busy = pod('busy', { nodeName: 'n1', requests: { cpu: '9500m' } });
    expect(placed({ nodes, daemonSetPods: [ds], pods: [busy, pod('p', { requests: { cpu: '300m' } })] })).toEqual({
      onNodes: {},
      claims: 1,
    });
    expect(placed({ nodes, daemonSetPods: [ds], pods: [busy, pod('p', { requests: { cpu: '250m' } })] })).toEqual({
      onNodes: { n1: 1 },
      claims: 0,
    });
  });
});
