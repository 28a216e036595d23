import { chargedAmounts, type AttributedPod } from './attributed-pod.js';
import type { Capacity } from './capacity.js';
import { OPENCOST_DEFAULT_PRICES, relativePriceWeights, unitRates, type OpenCostBasePrices } from '../cost-weights.js';

/**
 * Workload cost as the OpenCost Specification (opencost/opencost spec/opencost-specv01.md) defines it:
 *
 * - Node price split into CPU, RAM (and GPU) prices (Appendix A): when the provider gives only the node's total, use
 *   base prices per core-hour, GiB-hour and GPU-hour ("based on the marginal resource rates of the provider"), keep
 *   their ratio and scale them so that cores × CPU price + GiB × RAM price (+ GPUs × GPU price) equals the node's
 *   price. The base prices are OpenCost's defaults (configs/default.json: CPU 0.031611, RAM 0.004237, GPU 0.95 USD
 *   per hour), so a vCPU costs about 7.46 times a GiB, not 50/50 and not AWS's 9:1. OpenCost applies them over the
 *   node's status.capacity (pkg/costmodel: ramPrice = nodePrice ÷ (gpus × GPU/RAM + cores × CPU/RAM + GiB)).
 * - Workload cost (section "Workload Costs"): max(request, usage) of each resource × its price.
 * - Idle (section "Idle Costs"): node cost − workload costs. It can be negative when usage above requests adds up
 *   past the capacity; with requests alone it never is.
 *
 * Pure; `costUsd` may be an hourly rate or the cost of any period, the result being in the same unit.
 */

// The base prices and the split are the one weighting of a node's price (core/cost-weights.ts): the team method,
// the packing idle and the Workloads page's capacity split all use it.
export { OPENCOST_DEFAULT_PRICES, type OpenCostBasePrices };

export interface OpenCostInput {
  /** The node's cost, USD or USD/h. */
  costUsd: number;
  /** The node's status.capacity (core/attribution/capacity.ts nodeStatusCapacity). */
  capacity: Capacity;
  pods: readonly AttributedPod[];
  basePrices?: OpenCostBasePrices;
}

export interface OpenCostPodCost {
  cpuCostUsd: number;
  ramCostUsd: number;
  gpuCostUsd: number;
  totalUsd: number;
  usageFed: boolean;
}

export interface OpenCostResult {
  /** The node's price per core, per GiB and per GPU, scaled to add up to its cost. */
  prices: OpenCostBasePrices;
  /** In the order of the input pods. */
  pods: OpenCostPodCost[];
  /** Node cost − Σ workload costs. */
  idleUsd: number;
}

const GiB = 1024 ** 3;

export function openCost({ costUsd, capacity, pods, basePrices = OPENCOST_DEFAULT_PRICES }: OpenCostInput): OpenCostResult {
  const offered = { cpuMillicores: capacity.cpuMillicores, memoryBytes: capacity.memoryBytes, gpu: capacity.gpu };
  const rates = unitRates(costUsd, relativePriceWeights(offered, basePrices), offered);
  // A resource the node does not offer has no price (nothing of it can be charged).
  const prices = {
    cpuPerCoreUsd: rates.usdPerVcpuHour ?? 0,
    ramPerGiBUsd: rates.usdPerGiBHour ?? 0,
    gpuPerGpuUsd: rates.usdPerGpuHour ?? 0,
  };
  const out = pods.map((p): OpenCostPodCost => {
    const c = chargedAmounts(p);
    const cpuCostUsd = (c.cpuMillicores / 1000) * prices.cpuPerCoreUsd;
    const ramCostUsd = (c.memoryBytes / GiB) * prices.ramPerGiBUsd;
    const gpuCostUsd = c.gpu * prices.gpuPerGpuUsd;
    return { cpuCostUsd, ramCostUsd, gpuCostUsd, totalUsd: cpuCostUsd + ramCostUsd + gpuCostUsd, usageFed: c.usageFed };
  });
  return { prices, pods: out, idleUsd: costUsd - out.reduce((t, p) => t + p.totalUsd, 0) };
}
