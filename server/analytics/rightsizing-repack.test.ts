import { describe, expect, it } from 'vitest';
import type { CatalogueEntry, KubeNode, KubeNodePool, KubePod } from '../../core/karpenter/scheduling/index.js';
import { normalizePod } from '../../core/karpenter/scheduling/index.js';
import { nodePoolRepack, repackEffect, rightsizedPod, workloadRef } from './rightsizing-repack.js';
import { prepareWorld } from './whatif/repack.js';

const GI = 2 ** 30;
const ZONE = 'us-west-2a';
const NOW = Date.parse('2026-11-05T12:00:00Z');

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

const pool = (name: string): KubeNodePool => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name },
  spec: { template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] } } },
});

const node = (name: string, nodePool: string): KubeNode => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name,
    labels: {
      'node.kubernetes.io/instance-type': 'm-test.large',
      'karpenter.sh/capacity-type': 'on-demand',
      'topology.kubernetes.io/zone': ZONE,
      'karpenter.sh/nodepool': nodePool,
      'kubernetes.io/hostname': name,
      'karpenter.sh/initialized': 'true',
    },
    creationTimestamp: new Date(NOW - 3_600_000).toISOString(),
  },
  status: { allocatable: { cpu: '2', memory: '8Gi', pods: '20' } },
});

const pod = (name: string, nodeName: string, cpu: number, memory: number, owner = 'web-7d9f8c6b5', kind = 'ReplicaSet'): KubePod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'shop',
    uid: `uid-${name}`,
    labels: { 'pod-template-hash': owner.split('-').at(-1) ?? '' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind, name: owner, controller: true }],
  },
  spec: { nodeName, containers: [{ name: 'requests', resources: { requests: { cpu: `${cpu}m`, memory: String(memory) } } }] },
  status: { phase: 'Running' },
});

// Four web pods of 900m / 1 GiB: two fit a 2-CPU node (1,800m), so 2 nodes; a batch pool beside it with one pod.
const ctx = prepareWorld({
  objects: {
    nodePools: [pool('general'), pool('batch')],
    nodes: [node('n1', 'general'), node('n2', 'general'), node('b1', 'batch')],
    pods: [
      pod('web-7d9f8c6b5-aaaaa', 'n1', 900, GI),
      pod('web-7d9f8c6b5-bbbbb', 'n1', 900, GI),
      pod('web-7d9f8c6b5-ccccc', 'n2', 900, GI),
      pod('web-7d9f8c6b5-ddddd', 'n2', 900, GI),
      pod('etl-0', 'b1', 1500, 2 * GI, 'etl'),
    ],
    podDisruptionBudgets: [],
    namespaces: [],
    nodeOverlays: [],
    nodeClasses: [],
    persistentVolumeClaims: [],
    persistentVolumes: [],
    storageClasses: [],
    csiNodes: [],
  },
  catalogue,
  takenAt: NOW,
  podSpecsKnown: true,
});

describe('rightsizing-repack: the same re-pack with current and recommended requests', () => {
  it('4 × 900m need 2 nodes (USD 0.20/h); at 400m they fit one (1,600m of 2,000m): −1 node, −0.10 × 730 = −73.00 USD a month', () => {
    const deltas = [{ workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: -500, memoryBytes: 0 }];
    const e = repackEffect(ctx, 'general', deltas);
    expect(e.before).toEqual({ nodes: 2, usdPerHour: expect.closeTo(0.2, 9) as number, unschedulable: 0 });
    expect(e.after).toEqual({ nodes: 1, usdPerHour: expect.closeTo(0.1, 9) as number, unschedulable: 0 });
    expect(e.nodesDelta).toBe(-1);
    expect(e.pods).toBe(4);
    expect(e.monthlyEffectUsd).toBeCloseTo(-73, 9);
  });

  it('a smaller change that frees no node (900m -> 800m: still two per node) is worth 0, not a request-share fraction', () => {
    const deltas = [{ workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: -100, memoryBytes: 0 }];
    expect(repackEffect(ctx, 'general', deltas).monthlyEffectUsd).toBe(0);
  });

  it('a recommendation no type can hold (3 CPU on a 2-CPU type) is not comparable: null, so the caller falls back', () => {
    const deltas = [{ workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: 2100, memoryBytes: 0 }];
    const e = repackEffect(ctx, 'general', deltas);
    expect(e.after.unschedulable).toBe(4);
    expect(e.monthlyEffectUsd).toBeNull();
  });

  it('another workload’s delta leaves these pods alone, and requests never go below zero', () => {
    const deltas = new Map(
      [
        { workload: workloadRef('shop', 'StatefulSet', 'etl'), cpuMillicores: -5000, memoryBytes: -GI },
        { workload: workloadRef('shop', 'Deployment', 'web'), cpuMillicores: 100, memoryBytes: GI },
      ].map((d) => [d.workload, d]),
    );
    const req = (p: KubePod) => {
      const r = rightsizedPod(normalizePod(p, 0), deltas).requests;
      return { cpu: r.cpu, memory: r.memory };
    };
    expect(req(pod('web-7d9f8c6b5-aaaaa', 'n1', 900, GI))).toEqual({ cpu: 1000, memory: 2 * GI });
    // etl-0 is owned by ReplicaSet "etl" (no hash label to match), so the StatefulSet delta does not apply.
    expect(req(pod('etl-0', 'b1', 1500, 2 * GI, 'etl'))).toEqual({ cpu: 1500, memory: 2 * GI });
    expect(req(pod('etl-0', 'b1', 1500, 2 * GI, 'etl', 'StatefulSet'))).toEqual({ cpu: 0, memory: GI });
  });

  it('the batch pool alone: one 1,500m pod, one node', () => {
    expect(nodePoolRepack(ctx, 'batch')).toMatchObject({
      nodes: 1,
      unschedulable: 0,
    });
  });
});
