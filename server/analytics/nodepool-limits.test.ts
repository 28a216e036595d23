import { describe, expect, it } from 'vitest';
import { nodePoolLimitUsage, parseResourceQuantity, unitOf, type CapacityGroup, type ResourceLimitUsage } from './nodepool-limits.js';

const GiB = 1024 ** 3;
const noAlloc = { cpuMillicores: 0, memoryBytes: 0, pods: 0, gpu: 0 };

/*
 * Three m5.xlarge-like nodes (capacity cpu 4, memory 16Gi), one p3dn-like node (96 vCPU, 393216Mi = 384Gi, 8 GPUs),
 * and two nodes collected before capacity was recorded: their allocatable sums (3800m, 14Gi, 110 pods) count instead.
 *   cpu    = 3 x 4000 + 96000 + 3800        = 111,800 millicores
 *   memory = 3 x 16Gi + 384Gi + 14Gi        = 446 GiB
 *   gpu    = 8 (allocatable of the unrecorded nodes has 0 GPUs)
 */
const groups: CapacityGroup[] = [
  {
    capacity: { cpu: '4', memory: '16Gi', pods: '58' },
    nodes: 3,
    allocatable: { cpuMillicores: 11_580, memoryBytes: 45 * GiB, pods: 174, gpu: 0 },
  },
  { capacity: { cpu: '96', memory: '393216Mi', pods: '737', 'nvidia.com/gpu': '8' }, nodes: 1, allocatable: noAlloc },
  { capacity: null, nodes: 2, allocatable: { cpuMillicores: 3800, memoryBytes: 14 * GiB, pods: 110, gpu: 0 } },
];

interface Case {
  name: string;
  limits: Record<string, string>;
  expected: ResourceLimitUsage[];
}

describe('nodePoolLimitUsage: limits against the capacity of the nodes', () => {
  describe.each<Case>([
    {
      name: 'cpu 1000, memory 1000Gi, 16 GPUs',
      limits: { memory: '1000Gi', 'nvidia.com/gpu': '16', cpu: '1000' },
      expected: [
        { resource: 'cpu', quantity: '1000', unit: 'millicores', limit: 1_000_000, used: 111_800, usedFraction: 0.1118 },
        { resource: 'memory', quantity: '1000Gi', unit: 'bytes', limit: 1000 * GiB, used: 446 * GiB, usedFraction: 0.446 },
        { resource: 'nvidia.com/gpu', quantity: '16', unit: 'count', limit: 16, used: 8, usedFraction: 0.5 },
      ],
    },
    {
      name: 'over the cpu limit: 100 vCPU against 111.8',
      limits: { cpu: '100' },
      expected: [{ resource: 'cpu', quantity: '100', unit: 'millicores', limit: 100_000, used: 111_800, usedFraction: 1.118 }],
    },
    {
      name: 'a fractional cpu and pods (3 x 58 + 737 + 110 allocatable = 1021 of 2000)',
      limits: { pods: '2k', cpu: '0.5' },
      expected: [
        { resource: 'cpu', quantity: '0.5', unit: 'millicores', limit: 500, used: 111_800, usedFraction: 223.6 },
        { resource: 'pods', quantity: '2k', unit: 'count', limit: 2000, used: 1021, usedFraction: 0.5105 },
      ],
    },
    {
      name: 'nodes (Karpenter v1.4+): counts the nodes of the NodePool, 6 of 10, whether capacity was recorded or not',
      limits: { nodes: '10', cpu: '100' },
      expected: [
        { resource: 'cpu', quantity: '100', unit: 'millicores', limit: 100_000, used: 111_800, usedFraction: 1.118 },
        { resource: 'nodes', quantity: '10', unit: 'count', limit: 10, used: 6, usedFraction: 0.6 },
      ],
    },
    {
      name: 'numbers the API server returned as JSON numbers, in their string form: cpu 1.5 (1500m), nodes 6 (at the limit)',
      limits: { cpu: '1.5', nodes: '6' },
      expected: [
        { resource: 'cpu', quantity: '1.5', unit: 'millicores', limit: 1500, used: 111_800, usedFraction: 74.533333 },
        { resource: 'nodes', quantity: '6', unit: 'count', limit: 6, used: 6, usedFraction: 1 },
      ],
    },
    {
      name: 'a limit that does not parse, a zero limit, a resource no node offers',
      limits: { cpu: 'lots', memory: '0', 'example.com/fpga': '4' },
      expected: [
        { resource: 'cpu', quantity: 'lots', unit: 'millicores', limit: null, used: 111_800, usedFraction: null },
        { resource: 'memory', quantity: '0', unit: 'bytes', limit: 0, used: 446 * GiB, usedFraction: null },
        { resource: 'example.com/fpga', quantity: '4', unit: 'count', limit: 4, used: 0, usedFraction: 0 },
      ],
    },
  ])('$name', ({ limits, expected }) => {
    const out = nodePoolLimitUsage(limits, groups);
    it('lists every limit, cpu and memory first, with its usage', () => {
      expect(
        out.resources.map((r) => ({ ...r, usedFraction: r.usedFraction === null ? null : Number(r.usedFraction.toFixed(6)) })),
      ).toEqual(expected);
    });
    it('carries cpu and memory as written and parsed', () => {
      const cpu = expected.find((e) => e.resource === 'cpu');
      const memory = expected.find((e) => e.resource === 'memory');
      expect(out.cpu).toBe(cpu?.quantity ?? null);
      expect(out.cpuMillicores).toBe(cpu?.limit ?? null);
      expect(out.memory).toBe(memory?.quantity ?? null);
      expect(out.memoryBytes).toBe(memory?.limit ?? null);
    });
  });

  it('without limits: no resources, the usage still summed (6 nodes, 2 of them without capacity)', () => {
    expect(nodePoolLimitUsage({}, groups)).toEqual({
      cpu: null,
      cpuMillicores: null,
      memory: null,
      memoryBytes: null,
      resources: [],
      usage: { nodes: 6, cpuMillicores: 111_800, memoryBytes: 446 * GiB, nodesWithoutCapacity: 2 },
    });
  });

  it('without nodes: zero usage', () => {
    expect(nodePoolLimitUsage({ cpu: '8' }, []).resources).toEqual([
      { resource: 'cpu', quantity: '8', unit: 'millicores', limit: 8000, used: 0, usedFraction: 0 },
    ]);
  });
});

describe.each([
  { resource: 'cpu', quantity: '3920m', unit: 'millicores', value: 3920 },
  { resource: 'memory', quantity: '14320468Ki', unit: 'bytes', value: 14_320_468 * 1024 },
  { resource: 'ephemeral-storage', quantity: '20G', unit: 'bytes', value: 20e9 },
  { resource: 'hugepages-2Mi', quantity: '1Gi', unit: 'bytes', value: GiB },
  { resource: 'nvidia.com/gpu', quantity: '2', unit: 'count', value: 2 },
  { resource: 'memory', quantity: '1000 Gi', unit: 'bytes', value: null },
])('$resource $quantity', ({ resource, quantity, unit, value }) => {
  it(`is ${String(value)} ${unit}`, () => {
    expect(unitOf(resource)).toBe(unit);
    expect(parseResourceQuantity(resource, quantity)).toBe(value);
  });
});
