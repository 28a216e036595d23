import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from '../../core/karpenter/scheduling/catalogue.js';
import type { StoredSnapshot, StoredSnapshotPod } from '../../db/repositories/stored-snapshot-repository.js';
import { repack, repackEffect, rightsizedRequests, workloadRef } from './rightsizing-repack.js';
import { snapshotCatalogueOptions, snapshotToEngineInput } from './snapshot-to-engine.js';

const GI = 2 ** 30;
const ZONE = 'us-west-2a';

// One instance type, 2 CPU and 8 GiB allocatable (no overhead), USD 0.10/h on-demand: node counts are easy to work.
const catalogue: CatalogueEntry[] = [
  {
    name: 'm-test.large',
    capacity: { cpu: '2', memory: '8Gi', pods: '20' },
    overhead: { cpu: '0', memory: '0' },
    labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
    offerings: [{ zone: ZONE, capacityType: 'on-demand', priceUsdPerHour: 0.1, available: true }],
  },
];

const pod = (name: string, nodeName: string, cpu: number, memory: number, owner = 'web-7d9f8c6b5'): StoredSnapshotPod => ({
  namespace: 'shop',
  name,
  nodeName,
  ownerKind: 'ReplicaSet',
  ownerName: owner,
  labels: { 'pod-template-hash': owner.split('-').at(-1) ?? '' },
  reqCpuMillicores: cpu,
  reqMemoryBytes: memory,
  reqGpu: 0,
});

const node = (name: string, nodePool: string) => ({
  name,
  nodePool,
  instanceType: 'm-test.large',
  capacityType: 'on-demand',
  zone: ZONE,
  usdPerHour: 0.1,
  allocCpuMillicores: 2000,
  allocMemoryBytes: 8 * GI,
  allocPods: 20,
});

// Four web pods of 900m / 1 GiB: two fit a 2-CPU node (1,800m), so 2 nodes; a batch pool beside it with one pod.
const snapshot: StoredSnapshot = {
  takenAt: Date.parse('2026-11-05T12:00:00Z'),
  region: null,
  nodePools: [
    {
      name: 'general',
      weight: null,
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
      limits: {},
    },
    { name: 'batch', weight: null, requirements: [], limits: {} },
  ],
  nodes: [node('n1', 'general'), node('n2', 'general'), node('b1', 'batch')],
  pods: [
    pod('web-7d9f8c6b5-aaaaa', 'n1', 900, GI),
    pod('web-7d9f8c6b5-bbbbb', 'n1', 900, GI),
    pod('web-7d9f8c6b5-ccccc', 'n2', 900, GI),
    pod('web-7d9f8c6b5-ddddd', 'n2', 900, GI),
    pod('etl-0', 'b1', 1500, 2 * GI, 'etl'),
  ],
};

describe('snapshot-to-engine', () => {
  it('one NodePool: its NodePool, nodes and pods only; unbound leaves the nodes out and the pods without a node', () => {
    const bound = snapshotToEngineInput(snapshot, catalogue, { nodePool: 'general' });
    expect(bound.nodePools.map((np) => np.metadata.name)).toEqual(['general']);
    expect(bound.nodes?.map((n) => n.metadata.name)).toEqual(['n1', 'n2']);
    expect(bound.pods?.map((p) => p.spec.nodeName)).toEqual(['n1', 'n1', 'n2', 'n2']);
    expect(bound.pods?.[0].spec.containers[0].resources?.requests).toEqual({ cpu: '900m', memory: `${GI}` });
    const unbound = snapshotToEngineInput(snapshot, catalogue, { nodePool: 'general', unbound: true });
    expect(unbound.nodes).toEqual([]);
    expect(unbound.pods?.every((p) => p.spec.nodeName === undefined)).toBe(true);
  });

  it('the region is read off a zone when none was recorded (us-west-2a -> us-west-2), with the zones seen', () => {
    expect(snapshotCatalogueOptions(snapshot)).toMatchObject({ region: 'us-west-2', zones: ['us-west-2a'] });
    expect(snapshotCatalogueOptions({ ...snapshot, nodes: [] })).toBeNull();
  });
});

describe('rightsizing-repack: the same re-pack with current and recommended requests', () => {
  it('4 × 900m need 2 nodes (USD 0.20/h); at 400m they fit one (1,600m of 2,000m): −1 node, −0.10 × 730 = −73.00 USD a month', () => {
    const deltas = [{ workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: -500, memoryBytes: 0 }];
    const e = repackEffect(snapshot, catalogue, 'general', deltas);
    expect(e.before).toEqual({ nodes: 2, usdPerHour: expect.closeTo(0.2, 9) as number, unschedulable: 0 });
    expect(e.after).toEqual({ nodes: 1, usdPerHour: expect.closeTo(0.1, 9) as number, unschedulable: 0 });
    expect(e.nodesDelta).toBe(-1);
    expect(e.pods).toBe(4);
    expect(e.monthlyEffectUsd).toBeCloseTo(-73, 9);
  });

  it('a smaller change that frees no node (900m -> 800m: still two per node) is worth 0, not a request-share fraction', () => {
    const deltas = [{ workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: -100, memoryBytes: 0 }];
    expect(repackEffect(snapshot, catalogue, 'general', deltas).monthlyEffectUsd).toBe(0);
  });

  it('a recommendation no type can hold (3 CPU on a 2-CPU type) is not comparable: null, so the caller falls back', () => {
    const deltas = [{ workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: 2100, memoryBytes: 0 }];
    const e = repackEffect(snapshot, catalogue, 'general', deltas);
    expect(e.after.unschedulable).toBe(4);
    expect(e.monthlyEffectUsd).toBeNull();
  });

  it('another workload’s delta leaves these pods alone, and requests never go below zero', () => {
    const of = rightsizedRequests([
      { workload: workloadRef('shop', 'StatefulSet', 'etl'), cpuMillicores: -5000, memoryBytes: -GI },
      { workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: 100, memoryBytes: GI },
    ]);
    expect(of(snapshot.pods[0])).toEqual({ cpuMillicores: 1000, memoryBytes: 2 * GI });
    // etl-0 is owned by "etl" (kind ReplicaSet without its hash label match), so the StatefulSet delta does not apply.
    expect(of(snapshot.pods[4])).toEqual({ cpuMillicores: 1500, memoryBytes: 2 * GI });
    const etlPod = { ...snapshot.pods[4], ownerKind: 'StatefulSet', ownerName: 'etl' };
    expect(of(etlPod)).toEqual({ cpuMillicores: 0, memoryBytes: GI });
  });

  it('the batch pool alone: one 1,500m pod, one node', () => {
    expect(repack(snapshotToEngineInput(snapshot, catalogue, { nodePool: 'batch', unbound: true }))).toMatchObject({
      nodes: 1,
      unschedulable: 0,
    });
  });
});
