import { describe, expect, it } from 'vitest';
import type { KubeSnapshot, NodeRecord, PodRecord } from './model.js';
import { awsSplitParts, awsSplitPodCost, buildSnapshotRows, requestShareCost } from './rollup.js';

const GiB = 1024 ** 3;
const node = (
  name: string,
  nodePool: string | null,
  cpu: number,
  memGiB: number,
  extra: Partial<NodeRecord> = {},
  gpu = 0,
): NodeRecord => ({
  name,
  nodeClaim: nodePool ? `${nodePool}-abcde` : null,
  nodePool,
  instanceType: 'm5.xlarge',
  capacityType: 'on-demand',
  zone: 'us-east-1a',
  instanceId: 'i-0123',
  createdAt: 0,
  allocatable: { cpuMillicores: cpu, memoryBytes: memGiB * GiB, pods: 58, gpu },
  labels: {},
  ...extra,
});
const pod = (uid: string, ns: string, nodeName: string | null, cpu: number, memGiB: number, phase = 'Running'): PodRecord => ({
  uid,
  namespace: ns,
  name: uid,
  nodeName,
  phase,
  ownerKind: 'ReplicaSet',
  ownerName: 'rs',
  team: null,
  requests: { cpuMillicores: cpu, memoryBytes: memGiB * GiB, pods: 1, gpu: 0 },
  doNotDisrupt: false,
  createdAt: 0,
  labels: {},
});

describe('buildSnapshotRows', () => {
  // One node of 4 vCPU / 16 GiB at $0.20/h. web requests 1.5 cpu + 3 GiB, jobs 0.5 cpu + 1 GiB -> 50% cpu, 25% memory.
  const snap: KubeSnapshot = {
    takenAt: 1000,
    nodePools: [],
    namespaces: [
      { name: 'web', team: 'storefront', labels: {} },
      { name: 'jobs', team: 'data', labels: {} },
    ],
    nodes: [node('n1', 'general', 4000, 16)],
    nodeClaims: [],
    pods: [
      pod('a', 'web', 'n1', 1500, 3),
      pod('b', 'jobs', 'n1', 500, 1),
      pod('done', 'jobs', 'n1', 2000, 8, 'Succeeded'),
      pod('pending', 'web', null, 1000, 1, 'Pending'),
    ],
    events: [],
  };
  const rows = buildSnapshotRows(snap, () => ({ usdPerHour: 0.2, source: 'pricing-api' }));

  it('sums only bound, unfinished pods per node', () => {
    expect(rows.nodes[0].requested).toEqual({ cpuMillicores: 2000, memoryBytes: 4 * GiB, pods: 2, gpu: 0 });
  });
  it('rolls up per NodePool x capacity type', () => {
    expect(rows.nodePoolRollups).toHaveLength(1);
    expect(rows.nodePoolRollups[0]).toMatchObject({
      nodePool: 'general',
      capacityType: 'on-demand',
      nodes: 1,
      allocatable: { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 },
      requested: { cpuMillicores: 2000, memoryBytes: 4 * GiB, pods: 2, gpu: 0 },
      usdPerHour: 0.2,
    });
  });
  it('charges namespaces their request share and leaves the rest idle', () => {
    // web: 0.5*(1500/4000) + 0.5*(3/16) = 0.1875 + 0.09375 = 0.28125 of $0.20 = $0.05625/h
    // jobs: 0.5*(500/4000) + 0.5*(1/16) = 0.0625 + 0.03125 = 0.09375 of $0.20 = $0.01875/h; idle = 0.2 - 0.075 = 0.125
    const web = rows.namespaceRollups.find((r) => r.namespace === 'web');
    const jobs = rows.namespaceRollups.find((r) => r.namespace === 'jobs');
    expect(web?.usdPerHour).toBeCloseTo(0.05625, 12);
    expect(web?.team).toBe('storefront');
    expect(jobs?.usdPerHour).toBeCloseTo(0.01875, 12);
    expect(jobs?.pods).toBe(1);
  });
  it('caps a pod share at the whole node', () => {
    expect(
      requestShareCost(
        1,
        { cpuMillicores: 8000, memoryBytes: 64 * GiB, pods: 1, gpu: 0 },
        { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 },
      ),
    ).toBe(1);
  });
});

describe('buildSnapshotRows: cost-weighted sums, on-demand equivalent, per-resource and AWS split shares', () => {
  // n1 general on-demand, 4 vCPU / 16 GiB at $0.20/h: web 1.5 vCPU + 1 GiB, jobs 0.5 vCPU + 3 GiB -> 50 % cpu, 25 % memory.
  // n2 general spot, 2 vCPU / 8 GiB at $0.20/h (on-demand $0.50/h): web 1 vCPU + 2 GiB -> 50 % cpu, 25 % memory.
  // n3 general on-demand, empty. n4 gpu on-demand, 8 vCPU / 32 GiB / 4 GPU: ml 2 vCPU + 8 GiB + 1 GPU.
  const snap: KubeSnapshot = {
    takenAt: 1000,
    nodePools: [],
    nodeClaims: [],
    events: [],
    namespaces: [
      { name: 'web', team: 'storefront', labels: {} },
      { name: 'jobs', team: 'data', labels: {} },
      { name: 'ml', team: 'data', labels: {} },
    ],
    nodes: [
      node('n1', 'general', 4000, 16),
      node('n2', 'general', 2000, 8, { capacityType: 'spot', instanceType: 'c5.large' }),
      node('n3', 'general', 4000, 16),
      node('n4', 'gpu', 8000, 32, { instanceType: 'g5.2xlarge' }, 4),
    ],
    pods: [
      pod('a', 'web', 'n1', 1500, 1),
      pod('b', 'jobs', 'n1', 500, 3),
      pod('c', 'web', 'n2', 1000, 2),
      { ...pod('d', 'ml', 'n4', 2000, 8), requests: { cpuMillicores: 2000, memoryBytes: 8 * GiB, pods: 1, gpu: 1 } },
    ],
  };
  const price = () => ({ usdPerHour: 0.2, source: 'pricing-api' as const });
  const rows = buildSnapshotRows(snap, price, (n) => (n.instanceType === 'c5.large' ? 0.5 : null));
  const pool = (name: string, ct: string) => rows.nodePoolRollups.find((r) => r.nodePool === name && r.capacityType === ct);
  const ns = (name: string, p = 'general') => rows.namespaceRollups.find((r) => r.namespace === name && r.nodePool === p);

  it('sums price x efficiency per NodePool x capacity type (n3 adds price, no efficiency)', () => {
    // on-demand general: cpu 0.2 x 0.5 + 0.2 x 0 = 0.1; memory 0.2 x 0.25 = 0.05; pods 0.2 x 2/58; no GPU nodes.
    const od = pool('general', 'on-demand');
    expect(od?.usdPerHour).toBeCloseTo(0.4, 12);
    expect(od?.costWeighted?.cpuUsdPerHour).toBeCloseTo(0.1, 12);
    expect(od?.costWeighted?.memoryUsdPerHour).toBeCloseTo(0.05, 12);
    expect(od?.costWeighted?.podsUsdPerHour).toBeCloseTo(0.2 * (2 / 58), 12);
    expect(od?.costWeighted?.gpuNodesUsdPerHour).toBe(0);
    // gpu: 1 of 4 GPUs -> 0.2 x 0.25 = 0.05 over $0.20 of GPU nodes.
    expect(pool('gpu', 'on-demand')?.costWeighted?.gpuUsdPerHour).toBeCloseTo(0.05, 12);
    expect(pool('gpu', 'on-demand')?.costWeighted?.gpuNodesUsdPerHour).toBeCloseTo(0.2, 12);
  });
  it('prices the same instances on demand: spot from the lookup, on-demand at their own price', () => {
    expect(pool('general', 'spot')?.onDemandUsdPerHour).toBeCloseTo(0.5, 12);
    expect(pool('general', 'on-demand')?.onDemandUsdPerHour).toBeCloseTo(0.4, 12);
    const without = buildSnapshotRows(snap, price);
    expect(without.nodePoolRollups.find((r) => r.capacityType === 'spot')?.onDemandUsdPerHour).toBeNull();
  });
  it('stores the cpu and memory parts of the request share so any weights apply', () => {
    // web on n1: cpu 0.2 x 1500/4000 = 0.075, memory 0.2 x 1/16 = 0.0125; on n2: cpu 0.2 x 0.5 = 0.1, memory 0.2 x 2/8 = 0.05.
    expect(ns('web')?.cpuShareUsdPerHour).toBeCloseTo(0.175, 12);
    expect(ns('web')?.memoryShareUsdPerHour).toBeCloseTo(0.0625, 12);
    // 50/50 of the parts is the stored request-share cost.
    expect(ns('web')?.usdPerHour).toBeCloseTo(0.5 * 0.175 + 0.5 * 0.0625, 12);
    // jobs: cpu 0.2 x 500/4000 = 0.025, memory 0.2 x 3/16 = 0.0375.
    expect(ns('jobs')?.cpuShareUsdPerHour).toBeCloseTo(0.025, 12);
    expect(ns('jobs')?.memoryShareUsdPerHour).toBeCloseTo(0.0375, 12);
    // Σ namespace cpu parts = Σ NodePool price x cpu efficiency (0.1 on-demand + 0.1 spot).
    const cpuParts = rows.namespaceRollups.filter((r) => r.nodePool === 'general').reduce((t, r) => t + (r.cpuShareUsdPerHour ?? 0), 0);
    const cpuWeighted = rows.nodePoolRollups
      .filter((r) => r.nodePool === 'general')
      .reduce((t, r) => t + (r.costWeighted?.cpuUsdPerHour ?? 0), 0);
    expect(cpuParts).toBeCloseTo(cpuWeighted, 12);
  });
  it('splits a node as AWS split cost allocation does from requests (9:1 per vCPU:GiB, unused to the pods)', () => {
    // n1: 9 x 4 + 16 = 52 units; cpu part 0.2 x 36/52, memory part 0.2 x 16/52.
    expect(awsSplitParts(0.2, snap.nodes[0].allocatable).cpuUsdPerHour).toBeCloseTo((0.2 * 36) / 52, 12);
    // web on n1: 3/4 of the pods' cpu, 1/4 of their memory: 0.2 x (36 x 0.75 + 16 x 0.25) / 52 = 6.2/52.
    // jobs on n1: 0.2 x (36 x 0.25 + 16 x 0.75) / 52 = 4.2/52; together the whole $0.20.
    // web on n2 (2 vCPU / 8 GiB, the only pod): the whole $0.20.
    expect(ns('web')?.awsSplitUsdPerHour).toBeCloseTo(6.2 / 52 + 0.2, 12);
    expect(ns('jobs')?.awsSplitUsdPerHour).toBeCloseTo(4.2 / 52, 12);
    // n3 has no pods: its $0.20 stays idle under AWS split as well.
    const general = rows.namespaceRollups.filter((r) => r.nodePool === 'general').reduce((t, r) => t + (r.awsSplitUsdPerHour ?? 0), 0);
    expect(general).toBeCloseTo(0.4, 12);
  });
  it('leaves a resource part idle when no pod on the node requests it', () => {
    const alloc = { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 };
    const cpuOnly = { cpuMillicores: 1000, memoryBytes: 0, pods: 1, gpu: 0 };
    // Only the cpu part (36/52 of $0.20) is charged; the memory part stays idle.
    expect(awsSplitPodCost(0.2, cpuOnly, cpuOnly, alloc)).toBeCloseTo((0.2 * 36) / 52, 12);
  });
});
