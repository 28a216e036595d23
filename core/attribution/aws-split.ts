import { chargedAmounts, type AttributedPod } from './attributed-pod.js';
import type { Capacity } from './capacity.js';

/**
 * AWS split cost allocation data for Amazon EKS, as AWS defines it (AWS Data Exports User Guide, "Understanding split
 * cost allocation data" and "Example of split cost allocation data", with its accelerated-instance variant):
 *
 * 1. Unit cost: the instance's cost ÷ (cpu weight × vCPU available + memory weight × GB available [+ GPU weight × GPUs]),
 *    over the instance type's capacity. Weights: vCPU 9 : GB 1 ("derived from per vCPU per hour and per GB per hour
 *    prices in Fargate"); on an instance with GPUs, GPU 9 : (vCPU and memory together) 1, split 9:1 again, so GPU 9,
 *    vCPU 0.9, GB 0.1. Cost per vCPU-hour = cpu weight × unit cost, and so on.
 * 2. Allocated capacity of each pod: max(used, reserved) per resource (the request when usage is unknown).
 *    Instance unused capacity: max(available − Σ allocated, 0).
 * 3. Split usage ratio: allocated ÷ max(available, Σ allocated) (over-subscription divides by what was allocated).
 *    Unused ratio: allocated ÷ Σ allocated.
 * 4. Split cost = Σ over resources of split usage ratio × available × cost per unit; unused cost = Σ unused ratio ×
 *    unused capacity × cost per unit. A pod's total is split + unused.
 *
 * So the instance's whole cost goes to its pods whenever each resource is allocated by some pod; the unused cost of a
 * resource no pod allocates (or of an instance without pods) is left unassigned: idle.
 *
 * Memory is counted in GiB (AWS's "16 GB" m5.xlarge is 16,384 MiB). Pure; `costUsd` may be an hourly rate or the cost
 * of any period, the result being in the same unit.
 */

/** Relative weights per vCPU, per GiB and per GPU (AWS: "relative unit weights ... 9:1"). */
export interface AwsSplitWeights {
  cpu: number;
  memory: number;
  gpu: number;
}
export const AWS_SPLIT_WEIGHTS: Readonly<AwsSplitWeights> = { cpu: 9, memory: 1, gpu: 0 };
/** GPU:(cpu and memory) 9:1, then cpu:memory 9:1 within the 1 (AWS's accelerated-instance example). */
export const AWS_SPLIT_ACCELERATED_WEIGHTS: Readonly<AwsSplitWeights> = { cpu: 0.9, memory: 0.1, gpu: 9 };

export interface AwsSplitInput {
  /** The instance's (amortized) cost, USD or USD/h. */
  costUsd: number;
  /** The EC2 instance type's vCPU, memory and GPUs (core/attribution/capacity.ts instanceTypeCapacity). */
  capacity: Capacity;
  pods: readonly AttributedPod[];
}

export interface AwsSplitPodCost {
  /** AWS's split cost: the pod's allocated share of the capacity it used. */
  splitCostUsd: number;
  /** AWS's unused cost: the pod's share (by allocation) of the capacity no pod allocated. */
  unusedCostUsd: number;
  /** Whether usage was known for this pod (else its requests stood in). */
  usageFed: boolean;
  /**
   * The same per resource, as the Cost and Usage Report writes it (one line per pod and resource: vCPU, memory, GPU).
   * splitCostUsd and unusedCostUsd above are the sums over these.
   */
  byResource: Record<AwsSplitResource, AwsSplitResourceCost>;
}

export type AwsSplitResource = 'cpu' | 'memory' | 'gpu';

/** One pod's share of one resource, in AWS's units (vCPU, GiB, GPUs). */
export interface AwsSplitResourceCost {
  /** What the pod reserved (its request). */
  reservedUnits: number;
  /** What it used; null when usage was unknown. */
  actualUnits: number | null;
  /** max(reserved, actual): AWS's split usage. */
  allocatedUnits: number;
  /** allocated ÷ max(available, Σ allocated). */
  splitUsageRatio: number;
  splitCostUsd: number;
  unusedCostUsd: number;
}

export interface AwsSplitResult {
  /** Cost per vCPU, per GiB and per GPU over the instance's capacity (AWS: Cost-per-vCPU-hour, Cost-per-GB-hour). */
  unitCostUsd: { vcpu: number; memoryGiB: number; gpu: number };
  /** In the order of the input pods. */
  pods: AwsSplitPodCost[];
  /** The instance's unused cost: unallocated capacity × its cost per unit, USD (assigned to pods or not). */
  unusedCostUsd: number;
  /** What no pod takes: the unused cost of resources no pod allocates (all of it for an instance without pods). */
  unassignedUsd: number;
}

const GiB = 1024 ** 3;

type Resource = AwsSplitResource;
const RESOURCES: readonly Resource[] = ['cpu', 'memory', 'gpu'];

const emptyResourceCost = (): AwsSplitResourceCost => ({
  reservedUnits: 0,
  actualUnits: null,
  allocatedUnits: 0,
  splitUsageRatio: 0,
  splitCostUsd: 0,
  unusedCostUsd: 0,
});

/** Amounts in AWS's units: vCPU, GiB, GPUs. */
const inUnits = (a: { cpuMillicores: number; memoryBytes: number; gpu: number }): Record<Resource, number> => ({
  cpu: a.cpuMillicores / 1000,
  memory: a.memoryBytes / GiB,
  gpu: a.gpu,
});

export function awsSplit({ costUsd, capacity, pods }: AwsSplitInput): AwsSplitResult {
  const available = inUnits(capacity);
  const weights = available.gpu > 0 ? AWS_SPLIT_ACCELERATED_WEIGHTS : AWS_SPLIT_WEIGHTS;
  const weightedUnits = RESOURCES.reduce((t, r) => t + weights[r] * available[r], 0);
  const unitCost = weightedUnits > 0 ? costUsd / weightedUnits : 0;
  const perUnit: Record<Resource, number> = { cpu: weights.cpu * unitCost, memory: weights.memory * unitCost, gpu: weights.gpu * unitCost };

  const charged = pods.map(chargedAmounts);
  const allocated = charged.map(inUnits);
  const reserved = pods.map((p) => inUnits(p.requests));
  const actual = pods.map((p) => (p.usage === undefined ? null : inUnits({ ...p.usage, gpu: p.usage.gpu ?? 0 })));
  const out: AwsSplitPodCost[] = charged.map((c, i) => ({
    splitCostUsd: 0,
    unusedCostUsd: 0,
    usageFed: c.usageFed,
    byResource: {
      cpu: {
        ...emptyResourceCost(),
        reservedUnits: reserved[i].cpu,
        actualUnits: actual[i]?.cpu ?? null,
        allocatedUnits: allocated[i].cpu,
      },
      memory: {
        ...emptyResourceCost(),
        reservedUnits: reserved[i].memory,
        actualUnits: actual[i]?.memory ?? null,
        allocatedUnits: allocated[i].memory,
      },
      gpu: {
        ...emptyResourceCost(),
        reservedUnits: reserved[i].gpu,
        actualUnits: actual[i]?.gpu ?? null,
        allocatedUnits: allocated[i].gpu,
      },
    },
  }));
  let unusedCostUsd = 0;
  // Without capacity to divide by, nothing can be split: the whole cost stays unassigned.
  let unassignedUsd = weightedUnits > 0 ? 0 : costUsd;
  for (const r of RESOURCES) {
    const sumAllocated = allocated.reduce((t, a) => t + a[r], 0);
    const splitDenominator = Math.max(available[r], sumAllocated);
    const unusedCost = Math.max(available[r] - sumAllocated, 0) * perUnit[r];
    unusedCostUsd += unusedCost;
    if (sumAllocated <= 0) {
      unassignedUsd += unusedCost;
      continue;
    }
    allocated.forEach((a, i) => {
      const ratio = a[r] / splitDenominator;
      const split = ratio * available[r] * perUnit[r];
      const unused = (a[r] / sumAllocated) * unusedCost;
      const cost = out[i].byResource[r];
      cost.splitUsageRatio = ratio;
      cost.splitCostUsd = split;
      cost.unusedCostUsd = unused;
      out[i].splitCostUsd += split;
      out[i].unusedCostUsd += unused;
    });
  }
  return { unitCostUsd: { vcpu: perUnit.cpu, memoryGiB: perUnit.memory, gpu: perUnit.gpu }, pods: out, unusedCostUsd, unassignedUsd };
}
