/**
 * Bin-packing efficiency from hours-weighted sums (pure, no I/O).
 *
 * Each sum is Σ over snapshots of (quantity × hours the snapshot stands for), so a ratio of two sums is
 * the time-weighted ratio Σ requests ÷ Σ allocatable. The cost-weighted form divides Σ(node price × node
 * efficiency) by Σ node price: the share of the money that bought requested capacity, where an expensive
 * idle node counts for more than a cheap one.
 */

import type { NodeWindowRow, PoolSumsRow } from '../../db/repositories/analytics-packing-repository.js';
import { DEFAULT_WEIGHTS, type ShareWeights } from '../../core/attribution/request-share.js';
import { idleUsd as nodeIdleUsd, ratesOfParts, relativePriceWeights, unitRates, type UnitRates } from '../../core/cost-weights.js';
import { efficiencyRatio } from './efficiency.js';

const MILLICORES_PER_VCPU = 1000;
export const BYTES_PER_GIB = 1024 ** 3;

/**
 * Hours-weighted sums over a set of nodes and a time range: the repository's row without its keys (one declaration,
 * documented there). Σ nodes × hours, Σ price × hours (USD), Σ allocatable/requested × hours per resource,
 * Σ price × efficiency × hours (USD), and the on-demand price of the same instances.
 */
export type PackingSums = Omit<PoolSumsRow, 'nodePool' | 'capacityType'>;

export const zeroSums = (): PackingSums => ({
  nodeHours: 0,
  costUsd: 0,
  allocCpuMillicoreHours: 0,
  reqCpuMillicoreHours: 0,
  allocMemoryByteHours: 0,
  reqMemoryByteHours: 0,
  allocPodHours: 0,
  reqPodHours: 0,
  allocGpuHours: 0,
  reqGpuHours: 0,
  costWeightedCpuUsd: 0,
  costWeightedMemoryUsd: 0,
  costWeightedPodsUsd: 0,
  costWeightedGpuUsd: 0,
  gpuNodesUsd: 0,
  onDemandUsd: 0,
  onDemandUnknownUsd: 0,
  rpRequestedUsd: 0,
  rpCpuUsd: 0,
  rpGpuUsd: 0,
});

export function addSums(a: PackingSums, b: PackingSums): PackingSums {
  const out = zeroSums();
  for (const k of Object.keys(out) as (keyof PackingSums)[]) out[k] = a[k] + b[k];
  return out;
}

// The request-share weights are declared with the method (core/attribution/request-share.ts).
export type { ShareWeights };
export const DEFAULT_SHARE_WEIGHTS: Readonly<ShareWeights> = DEFAULT_WEIGHTS;
export type { UnitRates };

export interface PackingStats {
  nodesAvg: number;
  nodeHours: number;
  costUsd: number;
  usdPerHourAvg: number;
  cpu: number | null;
  memory: number | null;
  pods: number | null;
  gpu: number | null;
  costWeightedCpu: number | null;
  costWeightedMemory: number | null;
  costWeightedPods: number | null;
  costWeightedGpu: number | null;
  idleVcpuAvg: number;
  idleMemoryGiBAvg: number;
  idleUsdPerHourAvg: number;
  /** The rates the idle was priced at: the CPU, memory and GPU parts of the price per vCPU-, GiB- and GPU-hour offered. */
  rates: UnitRates;
}

/**
 * The money no request covers, USD: Σ price × (1 − (w_cpu × cpu efficiency + w_memory × memory efficiency + w_gpu ×
 * gpu efficiency)) × hours, each node weighted by relative price (core/cost-weights.ts), from the rollups' sums.
 */
export const idleUsd = (s: PackingSums): number => s.costUsd - s.rpRequestedUsd;

/** The rates behind the idle of a set of nodes over time: each part of the price ÷ what was offered, per hour. */
export const packingRates = (s: PackingSums): UnitRates =>
  ratesOfParts(
    { cpuUsd: s.rpCpuUsd, memoryUsd: s.costUsd - s.rpCpuUsd - s.rpGpuUsd, gpuUsd: s.rpGpuUsd },
    { vcpus: s.allocCpuMillicoreHours / MILLICORES_PER_VCPU, gib: s.allocMemoryByteHours / BYTES_PER_GIB, gpus: s.allocGpuHours },
  );

/**
 * Efficiency and idle capacity of sums covering `coveredHours` of time. Averages divide by the hours the
 * snapshots cover (not the hours a NodePool had nodes), so a NodePool scaled to zero averages lower.
 */
export function packingStats(s: PackingSums, coveredHours: number): PackingStats {
  const per = (x: number): number => (coveredHours > 0 ? x / coveredHours : 0);
  return {
    nodesAvg: per(s.nodeHours),
    nodeHours: s.nodeHours,
    costUsd: s.costUsd,
    usdPerHourAvg: per(s.costUsd),
    cpu: efficiencyRatio(s.reqCpuMillicoreHours, s.allocCpuMillicoreHours),
    memory: efficiencyRatio(s.reqMemoryByteHours, s.allocMemoryByteHours),
    pods: efficiencyRatio(s.reqPodHours, s.allocPodHours),
    gpu: efficiencyRatio(s.reqGpuHours, s.allocGpuHours),
    costWeightedCpu: efficiencyRatio(s.costWeightedCpuUsd, s.costUsd),
    costWeightedMemory: efficiencyRatio(s.costWeightedMemoryUsd, s.costUsd),
    costWeightedPods: efficiencyRatio(s.costWeightedPodsUsd, s.costUsd),
    costWeightedGpu: efficiencyRatio(s.costWeightedGpuUsd, s.gpuNodesUsd),
    idleVcpuAvg: per(s.allocCpuMillicoreHours - s.reqCpuMillicoreHours) / MILLICORES_PER_VCPU,
    idleMemoryGiBAvg: per(s.allocMemoryByteHours - s.reqMemoryByteHours) / BYTES_PER_GIB,
    idleUsdPerHourAvg: per(idleUsd(s)),
    rates: packingRates(s),
  };
}

/** Sums keyed by NodePool, folded over capacity types; '' = nodes without a NodePool. */
export function sumByNodePool(rows: readonly (PackingSums & { nodePool: string })[]): Map<string, PackingSums> {
  const out = new Map<string, PackingSums>();
  for (const r of rows) out.set(r.nodePool, addSums(out.get(r.nodePool) ?? zeroSums(), r));
  return out;
}

/** Everything in the rows: the cluster. */
export const sumAll = (rows: readonly PackingSums[]): PackingSums => rows.reduce((t, r) => addSums(t, r), zeroSums());

/** One node at one snapshot (or averaged over snapshots): allocatable, requested and price, as the repository's node row has them. */
export type NodeAmounts = Pick<
  NodeWindowRow,
  | 'allocCpuMillicores'
  | 'reqCpuMillicores'
  | 'allocMemoryBytes'
  | 'reqMemoryBytes'
  | 'allocPods'
  | 'reqPods'
  | 'allocGpu'
  | 'reqGpu'
  | 'usdPerHour'
>;

export interface NodePacking {
  cpu: number | null;
  memory: number | null;
  pods: number | null;
  gpu: number | null;
  idleVcpu: number;
  idleMemoryGiB: number;
  /** price × (1 − (w_cpu × cpu + w_memory × memory + w_gpu × gpu)), relative-price weights, USD/h; 0 without a price. */
  idleUsdPerHour: number;
  /** The node's rates under that weighting (null without a price). */
  rates: UnitRates | null;
}

export function nodePacking(n: NodeAmounts): NodePacking {
  const cpu = efficiencyRatio(n.reqCpuMillicores, n.allocCpuMillicores);
  const memory = efficiencyRatio(n.reqMemoryBytes, n.allocMemoryBytes);
  const offered = { cpuMillicores: n.allocCpuMillicores, memoryBytes: n.allocMemoryBytes, gpu: n.allocGpu };
  const weights = relativePriceWeights(offered);
  const price = n.usdPerHour ?? 0;
  return {
    cpu,
    memory,
    pods: efficiencyRatio(n.reqPods, n.allocPods),
    gpu: efficiencyRatio(n.reqGpu, n.allocGpu),
    idleVcpu: (n.allocCpuMillicores - n.reqCpuMillicores) / MILLICORES_PER_VCPU,
    idleMemoryGiB: (n.allocMemoryBytes - n.reqMemoryBytes) / BYTES_PER_GIB,
    idleUsdPerHour: nodeIdleUsd(price, weights, offered, {
      cpuMillicores: n.reqCpuMillicores,
      memoryBytes: n.reqMemoryBytes,
      gpu: n.reqGpu,
    }),
    rates: n.usdPerHour === null ? null : unitRates(n.usdPerHour, weights, offered),
  };
}
