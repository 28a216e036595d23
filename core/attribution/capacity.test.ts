import { describe, expect, it } from 'vitest';
import type { NodeRecord } from '../model.js';
import { instanceTypeCapacity, nodeStatusCapacity } from './capacity.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const node = (labels: Record<string, string>, capacity?: Record<string, string>): NodeRecord => ({
  name: 'n',
  nodeClaim: null,
  nodePool: null,
  instanceType: 'm5.xlarge',
  capacityType: 'on-demand',
  zone: 'us-east-1a',
  instanceId: null,
  createdAt: 0,
  // What Karpenter computes an m5.xlarge offers pods (data/instance-types.json).
  allocatable: { cpuMillicores: 3920, memoryBytes: 14162 * MiB, pods: 58, gpu: 0 },
  capacity,
  labels,
});

// Karpenter's labels for an m5.xlarge (data/instance-types.json) and a kubelet's status.capacity for one: the kubelet
// sees a little less memory than EC2 lists (16,384 MiB).
const KARPENTER = { 'karpenter.k8s.aws/instance-cpu': '4', 'karpenter.k8s.aws/instance-memory': '16384' };
const KUBELET = { cpu: '4', memory: '15896556Ki', pods: '58' };

describe('capacity a method divides the price by', () => {
  it.each([
    // [case, labels, status.capacity, AWS (instance type), OpenCost (status.capacity)]
    ['Karpenter node', KARPENTER, KUBELET, [4000, 16384 * MiB, 0], [4000, 15896556 * 1024, 0]],
    ['managed node group node (no Karpenter labels)', {}, KUBELET, [4000, 15896556 * 1024, 0], [4000, 15896556 * 1024, 0]],
    ['no status.capacity recorded', KARPENTER, undefined, [4000, 16 * GiB, 0], [4000, 16 * GiB, 0]],
    ['neither: allocatable', {}, undefined, [3920, 14162 * MiB, 0], [3920, 14162 * MiB, 0]],
    [
      'GPU instance: the GPU count label, or nvidia.com/gpu',
      { ...KARPENTER, 'karpenter.k8s.aws/instance-gpu-count': '1' },
      { ...KUBELET, 'nvidia.com/gpu': '1' },
      [4000, 16384 * MiB, 1],
      [4000, 15896556 * 1024, 1],
    ],
    [
      'unreadable values are skipped',
      { 'karpenter.k8s.aws/instance-cpu': 'four' },
      { cpu: 'lots', memory: '16Gi' },
      [3920, 16 * GiB, 0],
      [3920, 16 * GiB, 0],
    ],
  ] as [string, Record<string, string>, Record<string, string> | undefined, number[], number[]][])(
    '%s',
    (_case, labels, capacity, aws, opencost) => {
      const n = node(labels, capacity);
      const tuple = (c: { cpuMillicores: number; memoryBytes: number; gpu: number }) => [c.cpuMillicores, c.memoryBytes, c.gpu];
      expect(tuple(instanceTypeCapacity(n))).toEqual(aws);
      expect(tuple(nodeStatusCapacity(n))).toEqual(opencost);
    },
  );
});
