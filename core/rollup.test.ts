import { describe, expect, it } from 'vitest';
import type { KubeSnapshot, NamespaceRollup, NodeRecord, PodRecord } from './model.js';
import { requestShareCost } from './attribution/request-share.js';
import { buildSnapshotRows } from './rollup.js';

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
  const rows = buildSnapshotRows(snap, () => ({ pricePerHour: 0.2, currency: 'USD', source: 'pricing-api' }));

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
  const price = () => ({ pricePerHour: 0.2, currency: 'USD' as const, source: 'pricing-api' as const });
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
  it('AWS split over the instance capacity: with no labels or status.capacity, the allocatable stands in', () => {
    // n1 (4 vCPU / 16 GiB, $0.20): 9 × 4 + 16 = 52 units. web 1.5 vCPU + 1 GiB, jobs 0.5 vCPU + 3 GiB.
    // web split: 1.5 × 9/52 × 0.2 + 1 × 1/52 × 0.2 = 2.9/52; jobs: 0.5 × 1.8/52 ... = (0.9 + 0.6)/52 = 1.5/52.
    // Unused 2 vCPU × 1.8/52 = 3.6/52 (web 3/4, jobs 1/4) and 12 GiB × 0.2/52 = 2.4/52 (web 1/4, jobs 3/4).
    expect(ns('jobs')?.awsSplitCostUsdPerHour).toBeCloseTo(1.5 / 52, 12);
    expect(ns('jobs')?.awsUnusedCostUsdPerHour).toBeCloseTo((0.9 + 1.8) / 52, 12);
    // web on n1: split 2.9/52 + unused 2.7/52 + 0.6/52; n2 holds web alone, so all of its $0.20 goes to web.
    expect((ns('web')?.awsSplitCostUsdPerHour ?? 0) + (ns('web')?.awsUnusedCostUsdPerHour ?? 0)).toBeCloseTo(
      (2.9 + 2.7 + 0.6) / 52 + 0.2,
      12,
    );
    // n3 has no pods: its $0.20 is nobody's. n4's GPU is weighed 9 : (0.9 vCPU, 0.1 GiB) and the only pod takes it all.
    const general = rows.namespaceRollups
      .filter((r) => r.nodePool === 'general')
      .reduce((t, r) => t + (r.awsSplitCostUsdPerHour ?? 0) + (r.awsUnusedCostUsdPerHour ?? 0), 0);
    expect(general).toBeCloseTo(0.4, 12);
    expect((ns('ml', 'gpu')?.awsSplitCostUsdPerHour ?? 0) + (ns('ml', 'gpu')?.awsUnusedCostUsdPerHour ?? 0)).toBeCloseTo(0.2, 12);
    expect(ns('web')?.usagePods).toBe(0);
  });
});

/*
 * One node where the three methods differ, hand-worked: an m5.xlarge as Karpenter labels it (4 vCPU, 16,384 MiB) and
 * its kubelet reports it (status.capacity 4 cpu, 16Gi), allocatable 3.5 vCPU / 14 GiB, at $0.52/h.
 *   web  (team storefront) requests 1.75 vCPU + 3.5 GiB: 50 % of allocatable cpu, 25 % of memory.
 *   jobs (team data)       requests 0.7 vCPU + 7 GiB:    20 % of allocatable cpu, 50 % of memory.
 * Request share 50/50 (over allocatable): web 0.375 × 0.52 = 0.195, jobs 0.35 × 0.52 = 0.182, idle 0.143.
 * AWS split (9:1 over 4 vCPU / 16 GiB: 52 units, $0.01 each: $0.09 per vCPU, $0.01 per GiB):
 *   split: web 1.75 × 0.09 + 3.5 × 0.01 = 0.1925, jobs 0.7 × 0.09 + 7 × 0.01 = 0.133;
 *   unused: 1.55 vCPU × 0.09 = 0.1395 (web 1.75/2.45, jobs 0.7/2.45) + 5.5 GiB × 0.01 = 0.055 (web 1/3, jobs 2/3):
 *   web 0.0996429 + 0.0183333 = 0.1179762, jobs 0.0398571 + 0.0366667 = 0.0765238; together 0.52.
 * OpenCost (7.460703 per core : 1 per GiB over 4 cores / 16 GiB: 45.842813 units, $0.0113431 per GiB, $0.0846276 per
 *   core): web 1.75 × 0.0846276 + 3.5 × 0.0113431 = 0.1877991, jobs 0.7 × 0.0846276 + 7 × 0.0113431 = 0.1386411,
 *   idle 0.1935598.
 */
describe('buildSnapshotRows: one node, three methods', () => {
  const m5: NodeRecord = node('n1', 'general', 3500, 14, {
    labels: { 'karpenter.k8s.aws/instance-cpu': '4', 'karpenter.k8s.aws/instance-memory': '16384' },
    capacity: { cpu: '4', memory: '16Gi', pods: '58' },
  });
  const snap = (pods: PodRecord[]): KubeSnapshot => ({
    takenAt: 1000,
    nodePools: [],
    nodeClaims: [],
    events: [],
    namespaces: [
      { name: 'web', team: 'storefront', labels: {} },
      { name: 'jobs', team: 'data', labels: {} },
    ],
    nodes: [m5],
    pods,
  });
  const web = pod('w', 'web', 'n1', 1750, 3.5);
  const jobs = pod('j', 'jobs', 'n1', 700, 7);
  const price = () => ({ pricePerHour: 0.52, currency: 'USD' as const, source: 'pricing-api' as const });
  const of = (rows: ReturnType<typeof buildSnapshotRows>, name: string) => rows.namespaceRollups.find((r) => r.namespace === name);

  it.each([
    // [method, web, jobs, idle] USD/h
    ['request share', (r: NamespaceRollup) => r.usdPerHour, 0.195, 0.182, 0.143],
    ['AWS split cost', (r: NamespaceRollup) => r.awsSplitCostUsdPerHour ?? NaN, 0.1925, 0.133, 0.1945],
    [
      'AWS split cost + unused cost',
      (r: NamespaceRollup) => (r.awsSplitCostUsdPerHour ?? NaN) + (r.awsUnusedCostUsdPerHour ?? NaN),
      0.3104762,
      0.2095238,
      0,
    ],
    ['OpenCost', (r: NamespaceRollup) => r.openCostUsdPerHour ?? NaN, 0.1877991, 0.1386411, 0.1935598],
  ] as [string, (r: NamespaceRollup) => number, number, number, number][])(
    '%s: web, jobs, and idle adding up to $0.52',
    (_m, cost, w, j, idle) => {
      const rows = buildSnapshotRows(snap([web, jobs]), price);
      const [cw, cj] = [cost(of(rows, 'web') as NamespaceRollup), cost(of(rows, 'jobs') as NamespaceRollup)];
      expect(cw).toBeCloseTo(w, 6);
      expect(cj).toBeCloseTo(j, 6);
      expect(0.52 - cw - cj).toBeCloseTo(idle, 6);
    },
  );

  it('usage feeds AWS split and OpenCost, never the request share', () => {
    // jobs uses 1.5 vCPU (above its 0.7 request) and 2 GiB (below its 7): charged 1.5 vCPU and 7 GiB.
    // AWS: jobs split 1.5 × 0.09 + 0.07 = 0.205; unused vCPU 0.75 × 0.09 = 0.0675 now shared 1.75 : 1.5.
    // OpenCost: jobs 1.5 × 0.0846276 + 7 × 0.0113431 = 0.2063431.
    const used = { ...jobs, usage: { cpuMillicores: 1500, memoryBytes: 2 * GiB } };
    const rows = buildSnapshotRows(snap([web, used]), price);
    const j = of(rows, 'jobs');
    expect(j?.usdPerHour).toBeCloseTo(0.182, 12);
    expect(j?.awsSplitCostUsdPerHour).toBeCloseTo(0.205, 12);
    expect(j?.awsUnusedCostUsdPerHour).toBeCloseTo((1.5 / 3.25) * 0.0675 + (7 / 10.5) * 0.055, 12);
    expect(j?.openCostUsdPerHour).toBeCloseTo(0.2063431, 6);
    expect([j?.usagePods, of(rows, 'web')?.usagePods]).toEqual([1, 0]);
  });
});
