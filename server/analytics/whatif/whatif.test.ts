import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from '../../../core/karpenter/scheduling/index.js';
import { parseObjectStream } from '../../../core/karpenter/scheduling/index.js';
import type { NodePoolRecord } from '../../../core/model.js';
import { whatIfCatalogue } from './catalogue.js';
import { consolidationHeadroom } from './headroom.js';
import { applyEdit, nodePoolEdit, NodePoolEditError } from './nodepool-edit.js';
import { predict } from './predict.js';
import { prepareWorld, type WhatIfWorld } from './repack.js';
import { clusterObjectsFromRows, type SnapshotNodeRow, type SnapshotPodRow } from '../../../db/repositories/cluster-snapshot-objects.js';
import { whyNotConsolidated } from './why-not.js';
import { snapshotWorkloads, workloadOnNodePools } from './workload-placement.js';

/*
 * A cluster small enough to work by hand. Two instance types with no overhead and one zone, priced 0.05 USD per
 * vCPU-hour on-demand and 0.015 spot, plus a Graviton type:
 *   small     2 vCPU  4 GiB  10 pods  on-demand 0.10  spot 0.03
 *   large     8 vCPU 16 GiB  40 pods  on-demand 0.40  spot 0.12
 *   arm-small 2 vCPU  4 GiB  10 pods  on-demand 0.08  (arm64, family g)
 * NodePools: general (weight 10, on-demand, amd64), batch (on-demand, tainted workload=batch), spot (spot only).
 * Nodes at the snapshot: n1, n2, n3 small on-demand in general, each with one 500m / 1 GiB pod of Deployment web
 * (n1's pod is karpenter.sh/do-not-disrupt); b1 small on-demand in batch with one 500m / 1 GiB pod of Job etl.
 * Everything was created an hour before the snapshot (consolidateAfter 1m has passed).
 */

const GiB = 2 ** 30;
const ZONE = 'zone-a';
const TAKEN_AT = Date.parse('2026-11-01T12:00:00Z');
const HOUR = 3_600_000;

function type(
  name: string,
  cpu: number,
  memGiB: number,
  pods: number,
  od: number,
  spot: number | null,
  labels: Record<string, string>,
): CatalogueEntry {
  return {
    name,
    capacity: { cpu: String(cpu), memory: `${memGiB}Gi`, pods: String(pods) },
    overhead: { cpu: '0', memory: '0' },
    labels: {
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': name,
      'karpenter.k8s.aws/instance-cpu': String(cpu),
      ...labels,
    },
    offerings: [
      { zone: ZONE, capacityType: 'on-demand', priceUsdPerHour: od, available: true },
      ...(spot === null ? [] : [{ zone: ZONE, capacityType: 'spot', priceUsdPerHour: spot, available: true }]),
    ],
  };
}

const CATALOGUE: CatalogueEntry[] = [
  type('small', 2, 4, 10, 0.1, 0.03, { 'karpenter.k8s.aws/instance-family': 'm' }),
  type('large', 8, 16, 40, 0.4, 0.12, { 'karpenter.k8s.aws/instance-family': 'm' }),
  type('arm-small', 2, 4, 10, 0.08, null, { 'karpenter.k8s.aws/instance-family': 'g', 'kubernetes.io/arch': 'arm64' }),
];

const pool = (name: string, over: Partial<NodePoolRecord> = {}): NodePoolRecord => ({
  name,
  weight: null,
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  consolidateAfter: '1m',
  capacityTypes: ['on-demand'],
  requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
  limits: {},
  budgets: [{ nodes: '100%' }],
  nodeClass: 'default',
  ...over,
});

const POOLS: NodePoolRecord[] = [
  pool('general', { weight: 10 }),
  pool('batch', { taints: [{ key: 'workload', value: 'batch', effect: 'NoSchedule' }] }),
  pool('spot', {
    capacityTypes: ['spot'],
    requirements: [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    ],
  }),
];

const node = (name: string, nodePool: string): SnapshotNodeRow => ({
  name,
  nodePool,
  instanceType: 'small',
  capacityType: 'on-demand',
  zone: ZONE,
  instanceId: null,
  createdAt: TAKEN_AT - HOUR,
  allocCpuMillicores: 2000,
  allocMemoryBytes: 4 * GiB,
  allocPods: 10,
  allocGpu: 0,
  capacity: null,
  labels: { 'kubernetes.io/arch': 'amd64', 'karpenter.sh/initialized': 'true' },
});

const pod = (name: string, nodeName: string, over: Partial<SnapshotPodRow> = {}): SnapshotPodRow => ({
  uid: `uid-${name}`,
  namespace: 'shop',
  name,
  nodeName,
  ownerKind: 'ReplicaSet',
  ownerName: 'web-7d9f8c6b5',
  cpuMillicores: 500,
  memoryBytes: GiB,
  gpu: 0,
  doNotDisrupt: false,
  createdAt: TAKEN_AT - HOUR,
  labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5' },
  doNotDisruptValue: null,
  deletionCost: null,
  startedAt: null,
  volumes: null,
  spec: null,
  finished: null,
  ...over,
});

const ROWS = {
  nodePools: POOLS,
  nodes: [node('n1', 'general'), node('n2', 'general'), node('n3', 'general'), node('b1', 'batch')],
  pods: [
    pod('web-7d9f8c6b5-aaaaa', 'n1', { doNotDisrupt: true }),
    pod('web-7d9f8c6b5-bbbbb', 'n2'),
    pod('web-7d9f8c6b5-ccccc', 'n3'),
    pod('etl-1', 'b1', { ownerKind: 'Job', ownerName: 'etl', labels: { app: 'etl' } }),
  ],
};

/**
 * The rows as the one snapshot reader turns them into objects (cluster-snapshot-objects.ts), written as a snapshot
 * from before the collector kept pod specs (kinds null): the pods carry no tolerations, so the stand-in applies.
 */
const world = (): WhatIfWorld => ({
  objects: clusterObjectsFromRows({
    takenAt: TAKEN_AT,
    kinds: null,
    nodes: ROWS.nodes,
    nodeSpecs: new Map(),
    pods: ROWS.pods,
    nodePools: null,
    latestNodePools: ROWS.nodePools,
    namespaces: [],
    objects: {},
  }).objects,
  catalogue: CATALOGUE,
  takenAt: TAKEN_AT,
  podSpecsKnown: false,
});

describe('catalogue from stored prices (catalogue.ts)', () => {
  const data = {
    types: new Map([
      [
        'm5.large',
        {
          name: 'm5.large',
          labels: { 'kubernetes.io/arch': 'amd64' },
          allocatableQuantities: { cpu: '1930m', memory: '7244Mi', pods: '29' },
          allocatable: { cpuMillicores: 1930, memoryBytes: 7244 * 2 ** 20, pods: 29, gpu: 0 },
          vcpu: 2,
          memoryMiB: 8192,
        },
      ],
    ]),
  } as unknown as Parameters<typeof whatIfCatalogue>[0];

  it('a stored on-demand price beats the static table, spot is offered per stored zone', () => {
    const c = whatIfCatalogue(data, {
      region: 'us-east-1',
      zones: ['us-east-1a', 'us-east-1b'],
      storedOnDemand: new Map([['m5.large', 0.096]]),
      storedSpot: new Map([['m5.large/us-east-1b', 0.035]]),
      staticOnDemand: new Map([['m5.large', 0.1]]),
      capacityReservations: [],
      now: 0,
    });
    expect(c.entries[0].offerings).toEqual([
      { zone: 'us-east-1a', capacityType: 'on-demand', priceUsdPerHour: 0.096, available: true },
      { zone: 'us-east-1b', capacityType: 'on-demand', priceUsdPerHour: 0.096, available: true },
      { zone: 'us-east-1b', capacityType: 'spot', priceUsdPerHour: 0.035, available: true },
    ]);
    expect(c.source).toMatch(/1 stored Pricing API price.*1 stored spot price/);
  });
  it("reserved offerings come from the EC2NodeClasses' status.capacityReservations as Karpenter makes them: on-demand ÷ 10,000,000, unavailable while expiring, gone after endTime (aws reserved_capacity_resolver.go)", () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const res = (id: string, zone: string, o: Record<string, unknown> = {}) => ({
      nodeClass: 'system',
      reservation: { id, instanceType: 'm5.large', availabilityZone: zone, reservationType: 'default', state: 'active', ...o },
    });
    const c = whatIfCatalogue(data, {
      region: 'us-east-1',
      zones: ['us-east-1a', 'us-east-1b'],
      storedOnDemand: new Map([['m5.large', 0.096]]),
      storedSpot: new Map(),
      staticOnDemand: new Map(),
      capacityReservations: [
        res('cr-active', 'us-east-1a', { endTime: '2026-03-02T00:00:00Z' }),
        res('cr-expiring', 'us-east-1b', { state: 'expiring' }),
        res('cr-ended', 'us-east-1a', { endTime: '2026-02-28T23:00:00Z' }),
      ],
      now,
    });
    // 0.096 / 10,000,000 = 0.0000000096 per hour
    expect(c.entries[0].offerings.filter((o) => o.capacityType === 'reserved')).toEqual([
      expect.objectContaining({
        zone: 'us-east-1a',
        reservationId: 'cr-active',
        priceUsdPerHour: 0.0000000096,
        available: true,
        nodeClass: 'system',
      }),
      expect.objectContaining({ zone: 'us-east-1b', reservationId: 'cr-expiring', priceUsdPerHour: 0.0000000096, available: false }),
    ]);
  });
});

describe("the controller's feature gates reach the engine (repack.ts prepareWorld)", () => {
  it('collected SpotToSpotConsolidation=true is in effect; without them the release default (off) is', () => {
    expect(prepareWorld(world()).gates.spotToSpotConsolidation).toBe(false);
    expect(prepareWorld({ ...world(), featureGates: { spotToSpotConsolidation: true } }).gates.spotToSpotConsolidation).toBe(true);
  });
});

describe('consolidation headroom and the spot lever (headroom.ts)', () => {
  const h = consolidationHeadroom(world());
  const row = (name: string) => h.rows.find((r) => r.nodePool === name);

  it.each([
    // general: 3 small on-demand today (3 × 0.10); its three 500m / 1 GiB pods fit one small (1500m ≤ 2000m) = 0.10;
    // headroom 0.20/h = 146 USD/month. With spot allowed (only the do-not-disrupt pod stays on-demand) the engine
    // packs the three pods onto one node whose capacity type the do-not-disrupt pod pins: still one on-demand small,
    // so the spot figure starts from the best placement (the cheaper of today and the re-pack) and saves 0.
    { nodePool: 'general', today: 0.3, best: 0.1, headroomPerMonth: 146, spot: 0.1, spotPerMonth: 0 },
    // batch: one small holding one pod; a re-pack needs the same node: no headroom; spot allowed: small spot 0.03,
    // 0.07/h = 51.1 USD/month.
    { nodePool: 'batch', today: 0.1, best: 0.1, headroomPerMonth: 0, spot: 0.03, spotPerMonth: 51.1 },
  ])('$nodePool: today $today, best $best, spot $spot', ({ nodePool, today, best, headroomPerMonth, spot, spotPerMonth }) => {
    const r = row(nodePool);
    expect(r?.today.usdPerHour).toBeCloseTo(today, 10);
    expect(r?.best.usdPerHour).toBeCloseTo(best, 10);
    expect(r?.headroomUsdPerMonth).toBeCloseTo(headroomPerMonth, 8);
    expect(r?.spot.usdPerHour).toBeCloseTo(spot, 10);
    expect(r?.spotUsdPerMonth).toBeCloseTo(spotPerMonth, 8);
  });

  it('the best placement (the cheaper of today and the re-pack)’s instance mix is what the re-pack launched; no pod is left out; the spot NodePool, empty today, has no row', () => {
    expect(row('general')?.best.mix).toEqual([{ instanceType: 'small', capacityType: 'on-demand', nodes: 1, usdPerHour: 0.1 }]);
    expect(row('general')?.bestSource).toBe('repack');
    expect(h.unschedulable).toEqual([]);
    expect(row('spot')).toBeUndefined();
  });

  it('where a re-pack costs more than today, today is the best placement (the cheaper of today and the re-pack): headroom 0, never negative', () => {
    // small's zone-a on-demand offering can no longer be launched (it still prices the nodes on it, 0.10); a new
    // small costs 0.12 in zone-b. batch: today 0.10 < re-pack 0.12, so the bound is today's node. general: today
    // 0.30, re-pack one small 0.12: headroom 0.18/h.
    const catalogue: CatalogueEntry[] = CATALOGUE.map((e) =>
      e.name === 'small'
        ? {
            ...e,
            offerings: [
              ...e.offerings.map((o) => ({ ...o, available: o.capacityType !== 'on-demand' })),
              { zone: 'zone-b', capacityType: 'on-demand', priceUsdPerHour: 0.12, available: true },
            ],
          }
        : e,
    );
    const h2 = consolidationHeadroom({ ...world(), catalogue });
    const batch = h2.rows.find((r) => r.nodePool === 'batch');
    expect(batch?.repack.usdPerHour).toBeCloseTo(0.12, 10);
    expect(batch?.bestSource).toBe('today');
    expect(batch?.best.usdPerHour).toBeCloseTo(0.1, 10);
    expect(batch?.headroomUsdPerHour).toBe(0);
    const general = h2.rows.find((r) => r.nodePool === 'general');
    expect(general?.bestSource).toBe('repack');
    expect(general?.headroomUsdPerHour).toBeCloseTo(0.18, 10);
  });
});

describe('why not consolidated (why-not.ts)', () => {
  const r = whyNotConsolidated(prepareWorld(world()));

  it('multi-node consolidation deletes b1, n2 and n3: their three 500m / 1 GiB pods fill n1 exactly (4 × 500m = 2000m, 4 × 1 GiB), saving 0.30/h', () => {
    // n1 is untainted, so b1's pod needs no toleration to move there; n1 itself is held by its do-not-disrupt pod.
    expect(r.command).toMatchObject({ action: 'delete', method: 'multi-node', candidates: ['b1', 'n2', 'n3'], replacement: null });
    expect(r.command?.savingsUsdPerHour).toBeCloseTo(0.3, 10);
  });

  it.each([
    // kubernetes-sigs/karpenter pkg/controllers/disruption/types.go: the do-not-disrupt pod blocks its node, in Karpenter's words
    {
      node: 'n1',
      decision: 'keep',
      reason: 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/web-7d9f8c6b5-aaaaa)',
      wording: 'karpenter',
    },
    { node: 'n2', decision: 'delete', reason: 'Underutilized (multi-node consolidation)', wording: 'ledger' },
    { node: 'n3', decision: 'delete', reason: 'Underutilized (multi-node consolidation)', wording: 'ledger' },
  ])('$node: $decision', ({ node: name, decision, reason, wording }) => {
    const row = r.nodes.find((n) => n.node === name);
    expect(row).toMatchObject({ decision, reason, wording, nodePool: 'general', instanceType: 'small', pods: 1 });
    expect(row?.usdPerHour).toBeCloseTo(0.1, 10);
  });

  it('b1 goes too, in batch’s name and price', () => {
    expect(r.nodes.find((n) => n.node === 'b1')).toMatchObject({ decision: 'delete', nodePool: 'batch', usdPerHour: 0.1 });
  });
});

describe('NodePool edits (nodepool-edit.ts)', () => {
  it.each([
    // Graviton: general's three pods (1500m, 3 GiB) on one arm-small at 0.08; before = the re-pack, one small 0.10.
    {
      name: 'arm64, family g',
      edit: { nodePool: 'general', arch: 'arm64', families: ['g'] },
      before: 0.1,
      after: 0.08,
      nodes: 1,
      type: 'arm-small',
    },
    // spot only: one small spot 0.03.
    { name: 'spot only', edit: { nodePool: 'general', capacityTypes: ['spot'] }, before: 0.1, after: 0.03, nodes: 1, type: 'small' },
    // at least 4 vCPUs: the small is out, one large 0.40 — an edit can cost more.
    { name: 'minCpu 4', edit: { nodePool: 'general', minCpu: 4 }, before: 0.1, after: 0.4, nodes: 1, type: 'large' },
    // batch merged into general: four 500m / 1 GiB pods = 2000m / 4 GiB fit one small exactly; before: 0.10 + 0.10.
    {
      name: 'merge batch into general',
      edit: { nodePool: 'batch', mergeInto: 'general' },
      before: 0.2,
      after: 0.1,
      nodes: 1,
      type: 'small',
    },
  ])('$name: before $before, after $after', ({ edit, before, after, nodes, type: t }) => {
    const r = nodePoolEdit(world(), edit);
    expect(r.before.usdPerHour).toBeCloseTo(before, 10);
    expect(r.after.usdPerHour).toBeCloseTo(after, 10);
    expect(r.after.nodes).toBe(nodes);
    expect(r.after.mix.map((m) => m.instanceType)).toEqual([t]);
    expect(r.savingsUsdPerHour).toBeCloseTo(before - after, 10);
    expect(r.unschedulable).toEqual([]);
  });

  it('families replace instance-family and drop instance-category; the other requirements stay', () => {
    const np = applyEdit(
      {
        metadata: { name: 'x' },
        spec: {
          template: {
            spec: {
              requirements: [
                { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] },
                { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['16'] },
              ],
            },
          },
        },
      },
      { nodePool: 'x', families: ['m7g'], minGeneration: 7 },
    );
    expect(np.spec.template?.spec?.requirements).toEqual([
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['16'] },
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7g'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gte', values: ['7'] },
    ]);
  });

  it('an edit no instance type meets leaves the pods unschedulable, says why, and claims no saving', () => {
    const r = nodePoolEdit(world(), { nodePool: 'general', families: ['nope'] });
    expect(r.savingsUsdPerHour).toBeNull();
    expect(r.unschedulable).toHaveLength(3);
    expect(r.skippedNodePools[0]?.nodePool).toBe('general');
  });

  it.each([
    [{ nodePool: 'gone' }, 'nodepool', /"gone" is not in the snapshot \(general, batch, spot\)/],
    [{ nodePool: 'general', mergeInto: 'general' }, 'mergeInto', /into itself/],
  ])('a bad edit names its parameter: %j', (edit, param, message) => {
    expect(() => nodePoolEdit(world(), edit)).toThrow(NodePoolEditError);
    try {
      nodePoolEdit(world(), edit);
    } catch (err) {
      expect((err as NodePoolEditError).param).toBe(param);
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe('this workload on that NodePool (workload-placement.ts)', () => {
  const ctx = prepareWorld(world());

  it('the snapshot’s workloads: web is the Deployment behind its ReplicaSet, 3 replicas in general', () => {
    expect(snapshotWorkloads(ctx)).toEqual([
      { namespace: 'shop', kind: 'Deployment', name: 'web', replicas: 3, nodePool: 'general', cpuMillicores: 500, memoryBytes: GiB },
      { namespace: 'shop', kind: 'Job', name: 'etl', replicas: 1, nodePool: 'batch', cpuMillicores: 500, memoryBytes: GiB },
    ]);
  });

  it.each([
    // the syllabus exercise: the same 3 × 500m on on-demand (one small, 0.10) and on spot (one small spot, 0.03)
    { nodePool: 'general', usdPerHour: 0.1, capacityType: 'on-demand' },
    { nodePool: 'spot', usdPerHour: 0.03, capacityType: 'spot' },
    // a tainted NodePool still takes it: the question is what it would cost there
    { nodePool: 'batch', usdPerHour: 0.1, capacityType: 'on-demand' },
  ])('web on $nodePool: $usdPerHour/h', ({ nodePool, usdPerHour, capacityType }) => {
    const [p] = workloadOnNodePools(ctx, { namespace: 'shop', kind: 'Deployment', name: 'web' }, [nodePool]);
    expect(p.footprint.usdPerHour).toBeCloseTo(usdPerHour, 10);
    expect(p.footprint.mix).toEqual([{ instanceType: 'small', capacityType, nodes: 1, usdPerHour }]);
    expect(p.unschedulable).toEqual([]);
  });
});

describe('predict (predict.ts)', () => {
  const ctx = prepareWorld(world());
  const deployment = (replicas: number, cpu: string, extra = '') =>
    parseObjectStream(
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
${extra}      containers: [{name: c, image: x, resources: {requests: {cpu: "${cpu}", memory: 1Gi}}}]
`,
      'test',
    ).pods;

  it('2 × 1500m fit the room n1 and n2 have (1500m free each): no new node, nothing added', () => {
    const r = predict(ctx, deployment(2, '1500m'));
    expect(r.nodeClaims).toEqual([]);
    expect(r.existingNodes).toEqual([
      { node: 'n1', nodePool: 'general', pods: ['shop/api-0'] },
      { node: 'n2', nodePool: 'general', pods: ['shop/api-1'] },
    ]);
    expect(r.addedUsdPerHour).toBe(0);
  });

  it('1 × 3 vCPU fits no small: a new large on-demand in general (the heaviest NodePool that takes it), 0.40/h', () => {
    const r = predict(ctx, deployment(1, '3'));
    expect(r.nodeClaims).toMatchObject([
      { nodePool: 'general', instanceType: 'large', capacityType: 'on-demand', zone: ZONE, pods: ['shop/api-0'] },
    ]);
    expect(r.addedUsdPerHour).toBeCloseTo(0.4, 10);
  });

  it('a pod that fits no type is unschedulable with Karpenter’s reason', () => {
    const r = predict(ctx, deployment(1, '64'));
    expect(r.unschedulable).toHaveLength(1);
    expect(r.unschedulable[0].reason).toMatch(/no instance type/);
  });

  it('a pod selecting the spot NodePool gets a spot small there (0.03/h)', () => {
    const r = predict(ctx, deployment(1, '1', '      nodeSelector: {karpenter.sh/capacity-type: spot}\n'));
    expect(r.nodeClaims).toMatchObject([{ nodePool: 'spot', instanceType: 'small', capacityType: 'spot' }]);
    expect(r.addedUsdPerHour).toBeCloseTo(0.03, 10);
  });
});
