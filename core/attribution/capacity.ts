import { LABEL_INSTANCE_CPU, LABEL_INSTANCE_GPU_COUNT, LABEL_INSTANCE_MEMORY_MIB } from '../labels.js';
import type { NodeRecord } from '../model.js';
import { parseBaseUnits, parseCpuMillicores, QuantityError } from '../quantity.js';

/**
 * The capacity a method divides a node's price by. Neither AWS nor OpenCost divides by Kubernetes allocatable
 * (which leaves out what the kubelet and system reserve): AWS uses the EC2 instance type's vCPU and memory, OpenCost
 * the node's status.capacity. Each falls back to the other source, then to allocatable (never 0 for a real node).
 */
export interface Capacity {
  cpuMillicores: number;
  memoryBytes: number;
  gpu: number;
}

const MiB = 1024 ** 2;

/** A non-negative finite number from a label or quantity, or undefined. */
function fromLabel(labels: Record<string, string>, key: string): number | undefined {
  const v = labels[key];
  if (v === undefined || !/^\d+(\.\d+)?$/.test(v)) return undefined;
  return Number(v);
}

function fromQuantity(capacity: Record<string, string> | undefined, key: string, parse: (q: string) => number): number | undefined {
  const q = capacity?.[key];
  if (q === undefined) return undefined;
  try {
    const v = parse(q);
    return v >= 0 ? v : undefined;
  } catch (e) {
    if (e instanceof QuantityError) return undefined;
    throw e;
  }
}

const instanceLabels = (n: NodeRecord): Partial<Capacity> => {
  const vcpu = fromLabel(n.labels, LABEL_INSTANCE_CPU);
  const mib = fromLabel(n.labels, LABEL_INSTANCE_MEMORY_MIB);
  return {
    cpuMillicores: vcpu === undefined ? undefined : vcpu * 1000,
    memoryBytes: mib === undefined ? undefined : mib * MiB,
    gpu: fromLabel(n.labels, LABEL_INSTANCE_GPU_COUNT),
  };
};

const statusCapacity = (n: NodeRecord): Partial<Capacity> => ({
  cpuMillicores: fromQuantity(n.capacity, 'cpu', parseCpuMillicores),
  memoryBytes: fromQuantity(n.capacity, 'memory', parseBaseUnits),
  gpu: fromQuantity(n.capacity, 'nvidia.com/gpu', parseBaseUnits),
});

const firstOf = (n: NodeRecord, sources: Partial<Capacity>[]): Capacity => ({
  cpuMillicores: sources.find((s) => s.cpuMillicores !== undefined)?.cpuMillicores ?? n.allocatable.cpuMillicores,
  memoryBytes: sources.find((s) => s.memoryBytes !== undefined)?.memoryBytes ?? n.allocatable.memoryBytes,
  gpu: sources.find((s) => s.gpu !== undefined)?.gpu ?? n.allocatable.gpu,
});

/**
 * The EC2 instance type's capacity, which AWS split cost allocation divides the instance's cost by: the vCPU,
 * memory (MiB) and GPU labels Karpenter puts on its nodes, else the node's status.capacity (a managed node group's
 * nodes carry no Karpenter labels; the kubelet reports the vCPUs and slightly less memory than EC2 lists).
 */
export const instanceTypeCapacity = (n: NodeRecord): Capacity => firstOf(n, [instanceLabels(n), statusCapacity(n)]);

/** The node's status.capacity, which OpenCost divides a node's price by (pkg/costmodel: n.Status.Capacity), else the instance type's. */
export const nodeStatusCapacity = (n: NodeRecord): Capacity => firstOf(n, [statusCapacity(n), instanceLabels(n)]);
