import { describe, expect, it } from 'vitest';
import type { KubeSnapshot, NodeRecord, PodRecord } from './model';
import { buildSnapshotRows, requestShareCost } from './rollup';

const GiB = 1024 ** 3;
const node = (name: string, nodePool: string | null, cpu: number, memGiB: number): NodeRecord => ({
  name, nodeClaim: nodePool ? `${nodePool}-abcde` : null, nodePool, instanceType: 'm5.xlarge', capacityType: 'on-demand', zone: 'us-east-1a',
  instanceId: 'i-0123', createdAt: 0, allocatable: { cpuMillicores: cpu, memoryBytes: memGiB * GiB, pods: 58, gpu: 0 }, labels: {},
});
const pod = (uid: string, ns: string, nodeName: string | null, cpu: number, memGiB: number, phase = 'Running'): PodRecord => ({
  uid, namespace: ns, name: uid, nodeName, phase, ownerKind: 'ReplicaSet', ownerName: 'rs', team: null,
  requests: { cpuMillicores: cpu, memoryBytes: memGiB * GiB, pods: 1, gpu: 0 }, doNotDisrupt: false, createdAt: 0, labels: {},
});

describe('buildSnapshotRows', () => {
  // One node of 4 vCPU / 16 GiB at $0.20/h. web requests 1.5 cpu + 3 GiB, jobs 0.5 cpu + 1 GiB -> 50% cpu, 25% memory.
  const snap: KubeSnapshot = {
    takenAt: 1000,
    nodePools: [],
    namespaces: [{ name: 'web', team: 'storefront', labels: {} }, { name: 'jobs', team: 'data', labels: {} }],
    nodes: [node('n1', 'general', 4000, 16)],
    nodeClaims: [],
    pods: [pod('a', 'web', 'n1', 1500, 3), pod('b', 'jobs', 'n1', 500, 1), pod('done', 'jobs', 'n1', 2000, 8, 'Succeeded'), pod('pending', 'web', null, 1000, 1, 'Pending')],
    events: [],
  };
  const rows = buildSnapshotRows(snap, () => ({ usdPerHour: 0.2, source: 'pricing-api' }));

  it('sums only bound, unfinished pods per node', () => {
    expect(rows.nodes[0].requested).toEqual({ cpuMillicores: 2000, memoryBytes: 4 * GiB, pods: 2, gpu: 0 });
  });
  it('rolls up per NodePool x capacity type', () => {
    expect(rows.nodePoolRollups).toEqual([{ nodePool: 'general', capacityType: 'on-demand', nodes: 1, allocatable: { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 }, requested: { cpuMillicores: 2000, memoryBytes: 4 * GiB, pods: 2, gpu: 0 }, usdPerHour: 0.2 }]);
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
    expect(requestShareCost(1, { cpuMillicores: 8000, memoryBytes: 64 * GiB, pods: 1, gpu: 0 }, { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 })).toBe(1);
  });
});
