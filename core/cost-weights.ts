/**
 * How a node's price is split between what it offers — CPU, memory and GPUs — so that what no pod requested can be
 * priced (idle) and a requested unit has a cost. One weighting everywhere: the packing idle (Overview, NodePools,
 * Nodes), the Workloads page's used / workload idle / infrastructure idle and its request-share dollars.
 *
 * The relative-price weighting, as OpenCost splits a node's price (opencost/opencost spec/opencost-specv01.md,
 * Appendix A; core/attribution/opencost.ts): each resource weighs what it offers times its base price per hour
 * (OpenCost's configs/default.json: 0.031611 a core, 0.004237 a GiB, 0.95 a GPU), so on a compute-optimised node a
 * vCPU carries most of the price (c6i.xlarge, 4 vCPU / 8 GiB: 79 % CPU, 21 % memory), on a memory-optimised one less
 * (r6i.xlarge, 4 / 32: 48 %), where a 50/50 split made them alike. Here over the node's allocatable, the capacity
 * a pod can request (OpenCost divides by status.capacity; the kubelet's reservations make the difference).
 * Pure; no I/O.
 */

/** Base prices whose ratio splits a node's price, USD per core-hour, GiB-hour, GPU-hour. */
export interface OpenCostBasePrices {
  cpuPerCoreUsd: number;
  ramPerGiBUsd: number;
  gpuPerGpuUsd: number;
}
/** opencost/opencost configs/default.json ("Default prices based on GCP us-central1"): CPU, RAM, GPU. */
export const OPENCOST_DEFAULT_PRICES: Readonly<OpenCostBasePrices> = {
  cpuPerCoreUsd: 0.031611,
  ramPerGiBUsd: 0.004237,
  gpuPerGpuUsd: 0.95,
};

/** What a node offers (allocatable here; status.capacity in the OpenCost team method). */
export interface OfferedResources {
  cpuMillicores: number;
  memoryBytes: number;
  gpu: number;
}

/** Shares of a node's price per resource; they add up to 1. */
export interface ResourceWeights {
  cpu: number;
  memory: number;
  gpu: number;
}

const GiB = 1024 ** 3;

/** The weighting used everywhere, in words (API answers and pages say it). */
export const RELATIVE_PRICE_WEIGHTING =
  "relative price: each node's price split into CPU, memory and GPU in the ratio of OpenCost's base prices (0.031611 per core-hour, 0.004237 per GiB-hour, 0.95 per GPU-hour) times its allocatable";

/** The relative-price weights of a node; a node offering nothing splits 50/50 (it has no unit to price anyway). */
export function relativePriceWeights(offered: OfferedResources, base: OpenCostBasePrices = OPENCOST_DEFAULT_PRICES): ResourceWeights {
  const cpu = (offered.cpuMillicores / 1000) * base.cpuPerCoreUsd;
  const memory = (offered.memoryBytes / GiB) * base.ramPerGiBUsd;
  const gpu = offered.gpu * base.gpuPerGpuUsd;
  const total = cpu + memory + gpu;
  if (!(total > 0)) return { cpu: 0.5, memory: 0.5, gpu: 0 };
  return { cpu: cpu / total, memory: memory / total, gpu: gpu / total };
}

/** Fixed CPU and memory weights (a request-share setting such as 0.5/0.5): no GPU part. */
export const fixedWeights = (w: { cpu: number; memory: number }): ResourceWeights => ({ cpu: w.cpu, memory: w.memory, gpu: 0 });

const share = (taken: number, offered: number): number => (offered > 0 ? taken / offered : 0);

/** The part of a node's price its pods' `taken` amounts (requests) stand for, per hour: Σ weight × taken ÷ offered × price. */
export function takenUsd(
  priceUsd: number,
  weights: ResourceWeights,
  offered: OfferedResources,
  taken: { cpuMillicores: number; memoryBytes: number; gpu: number },
): number {
  return (
    priceUsd *
    (weights.cpu * share(taken.cpuMillicores, offered.cpuMillicores) +
      weights.memory * share(taken.memoryBytes, offered.memoryBytes) +
      weights.gpu * share(taken.gpu, offered.gpu))
  );
}

/** Idle: the part of the price no request covers, price − takenUsd. */
export function idleUsd(
  priceUsd: number,
  weights: ResourceWeights,
  offered: OfferedResources,
  requested: { cpuMillicores: number; memoryBytes: number; gpu: number },
): number {
  return priceUsd - takenUsd(priceUsd, weights, offered, requested);
}

/** The rates a weighting gives a node: USD per vCPU-hour, GiB-hour and GPU-hour of what it offers (null: offers none). */
export interface UnitRates {
  usdPerVcpuHour: number | null;
  usdPerGiBHour: number | null;
  usdPerGpuHour: number | null;
}

export function unitRates(priceUsd: number, weights: ResourceWeights, offered: OfferedResources): UnitRates {
  const rate = (part: number, amount: number): number | null => (amount > 0 ? (priceUsd * part) / amount : null);
  return {
    usdPerVcpuHour: rate(weights.cpu, offered.cpuMillicores / 1000),
    usdPerGiBHour: rate(weights.memory, offered.memoryBytes / GiB),
    usdPerGpuHour: rate(weights.gpu, offered.gpu),
  };
}

/**
 * The rates of a set of nodes from their summed parts: Σ CPU part ÷ Σ vCPUs offered, and so on (node-hours
 * weighted when the sums are over time). Null where nothing is offered.
 */
export function ratesOfParts(
  parts: { cpuUsd: number; memoryUsd: number; gpuUsd: number },
  offered: { vcpus: number; gib: number; gpus: number },
): UnitRates {
  const rate = (usd: number, amount: number): number | null => (amount > 0 ? usd / amount : null);
  return {
    usdPerVcpuHour: rate(parts.cpuUsd, offered.vcpus),
    usdPerGiBHour: rate(parts.memoryUsd, offered.gib),
    usdPerGpuHour: rate(parts.gpuUsd, offered.gpus),
  };
}
