import { fixedWeights, ratesOfParts, relativePriceWeights, type ResourceWeights, type UnitRates } from './cost-weights.js';
import type { WorkloadHourRollup } from './usage.js';

/**
 * Usage beside requests, and what requests cost, by request share of the node cost: each node's price per hour split
 * into CPU and memory by the one weighting (core/cost-weights.ts: relative price over its allocatable; fixed weights
 * when given), each NodePool's CPU and memory parts divided by what its pods request. One requested millicore or byte
 * then costs the same wherever it sits in the NodePool, so a change in requests is priced without re-packing nodes: a
 * first-order figure, what request-share attribution would charge, not what the bill would become.
 */

/** Hours in a month as AWS and Kubecost quote monthly prices (8,760 / 12). */
export const HOURS_PER_MONTH = 730;

export interface CostWeights {
  cpu: number;
  memory: number;
}

/** The weights of one node: fixed ones when given, else relative price over its allocatable (the default). */
const weightsOf = (
  weights: CostWeights | undefined,
  n: { allocCpuMillicores: number; allocMemoryBytes: number; allocGpu?: number },
): ResourceWeights =>
  weights === undefined
    ? relativePriceWeights({ cpuMillicores: n.allocCpuMillicores, memoryBytes: n.allocMemoryBytes, gpu: n.allocGpu ?? 0 })
    : fixedWeights(weights);

/** One node at a snapshot: its NodePool, price, what it offers and what its pods request. */
export interface NodeRequestCost {
  nodePool: string;
  /** null: no price known (the node is left out). */
  usdPerHour: number | null;
  allocCpuMillicores: number;
  allocMemoryBytes: number;
  allocGpu?: number;
  requestCpuMillicores: number;
  requestMemoryBytes: number;
}

export interface RequestRates {
  nodePool: string;
  usdPerHour: number;
  requestCpuMillicores: number;
  requestMemoryBytes: number;
  /** Σ price × w_cpu ÷ Σ requested millicores; null when nothing is requested. */
  usdPerCpuMillicoreHour: number | null;
  /** Σ price × w_memory ÷ Σ requested bytes; null when nothing is requested. */
  usdPerMemoryByteHour: number | null;
}

/**
 * Per NodePool: the cost of one requested millicore and one requested byte per hour, each node's price split by the
 * one weighting (relative price; `weights` fixes them instead). Nodes without a price are left out.
 */
export function requestRates(nodes: readonly NodeRequestCost[], weights?: CostWeights): Map<string, RequestRates> {
  const sums = new Map<string, { usd: number; cpuUsd: number; memoryUsd: number; cpu: number; memory: number }>();
  for (const n of nodes) {
    if (n.usdPerHour === null) continue;
    const s = sums.get(n.nodePool) ?? { usd: 0, cpuUsd: 0, memoryUsd: 0, cpu: 0, memory: 0 };
    const w = weightsOf(weights, n);
    s.usd += n.usdPerHour;
    s.cpuUsd += n.usdPerHour * w.cpu;
    s.memoryUsd += n.usdPerHour * w.memory;
    s.cpu += n.requestCpuMillicores;
    s.memory += n.requestMemoryBytes;
    sums.set(n.nodePool, s);
  }
  const out = new Map<string, RequestRates>();
  for (const [nodePool, s] of sums) {
    out.set(nodePool, {
      nodePool,
      usdPerHour: s.usd,
      requestCpuMillicores: s.cpu,
      requestMemoryBytes: s.memory,
      usdPerCpuMillicoreHour: s.cpu > 0 ? s.cpuUsd / s.cpu : null,
      usdPerMemoryByteHour: s.memory > 0 ? s.memoryUsd / s.memory : null,
    });
  }
  return out;
}

/**
 * USD per month of requesting `cpuMillicores` and `memoryBytes` more (negative: less) on each of `replicas` pods:
 * replicas × (Δcpu × USD per millicore-hour + Δmemory × USD per byte-hour) × 730. Null without rates.
 */
export function monthlyRequestCostUsd(
  cpuMillicores: number,
  memoryBytes: number,
  replicas: number,
  rates: RequestRates | undefined,
): number | null {
  if (rates === undefined || rates.usdPerCpuMillicoreHour === null || rates.usdPerMemoryByteHour === null) return null;
  return replicas * (cpuMillicores * rates.usdPerCpuMillicoreHour + memoryBytes * rates.usdPerMemoryByteHour) * HOURS_PER_MONTH;
}

/** The fields of an hourly rollup the efficiency reads. */
export type EfficiencyHour = Pick<WorkloadHourRollup, 'samples' | 'cpuAvgMillicores' | 'memoryAvgBytes'>;

export interface WorkloadEfficiency {
  /** Sample-weighted mean usage over the window. */
  cpuAvgMillicores: number;
  memoryAvgBytes: number;
  /** Mean usage ÷ request (0.3 = 30 %); null without a request. */
  cpuUsageOverRequest: number | null;
  memoryUsageOverRequest: number | null;
  /**
   * Workload idle as Kubecost names it (requested, unused) at request-share prices: replicas × (max(0, request −
   * mean usage) per resource × its rate) × 730. Null without rates.
   */
  idleUsdPerMonth: number | null;
}

const ratio = (usage: number, request: number | null): number | null => (request === null || request <= 0 ? null : usage / request);

/** One workload container's usage ÷ request and idle USD, over its hours, at its current requests and replicas. */
export function workloadEfficiency(
  hours: readonly EfficiencyHour[],
  request: { cpuMillicores: number | null; memoryBytes: number | null },
  replicas: number,
  rates: RequestRates | undefined,
): WorkloadEfficiency {
  const samples = hours.reduce((s, h) => s + h.samples, 0);
  const cpuAvg = samples === 0 ? 0 : hours.reduce((s, h) => s + h.cpuAvgMillicores * h.samples, 0) / samples;
  const memoryAvg = samples === 0 ? 0 : hours.reduce((s, h) => s + h.memoryAvgBytes * h.samples, 0) / samples;
  const idleCpu = Math.max(0, (request.cpuMillicores ?? 0) - cpuAvg);
  const idleMemory = Math.max(0, (request.memoryBytes ?? 0) - memoryAvg);
  return {
    cpuAvgMillicores: cpuAvg,
    memoryAvgBytes: memoryAvg,
    cpuUsageOverRequest: ratio(cpuAvg, request.cpuMillicores),
    memoryUsageOverRequest: ratio(memoryAvg, request.memoryBytes),
    idleUsdPerMonth: monthlyRequestCostUsd(idleCpu, idleMemory, replicas, rates),
  };
}

/** Per namespace per snapshot: the usage of the pods metrics-server reported, beside those same pods' requests. */
export interface NamespaceUsageSample {
  namespace: string;
  usageCpuMillicores: number;
  usageMemoryBytes: number;
  requestCpuMillicoresWithUsage: number;
  requestMemoryBytesWithUsage: number;
}

export interface NamespaceEfficiency {
  namespace: string;
  /** Σ usage ÷ Σ requests over the window's snapshots (like with like); null with nothing requested. */
  cpuUsageOverRequest: number | null;
  memoryUsageOverRequest: number | null;
  /** Σ of its workloads' idleUsdPerMonth (null ones count 0). */
  idleUsdPerMonth: number;
}

/** Per namespace, sorted by name: usage ÷ request over the window and the idle of its workloads. */
export function namespaceEfficiency(
  rows: readonly NamespaceUsageSample[],
  workloadIdle: readonly { namespace: string; idleUsdPerMonth: number | null }[],
): NamespaceEfficiency[] {
  const sums = new Map<string, { cpu: number; memory: number; reqCpu: number; reqMemory: number; idle: number }>();
  const of = (ns: string) => {
    let s = sums.get(ns);
    if (s === undefined) {
      s = { cpu: 0, memory: 0, reqCpu: 0, reqMemory: 0, idle: 0 };
      sums.set(ns, s);
    }
    return s;
  };
  for (const r of rows) {
    const s = of(r.namespace);
    s.cpu += r.usageCpuMillicores;
    s.memory += r.usageMemoryBytes;
    s.reqCpu += r.requestCpuMillicoresWithUsage;
    s.reqMemory += r.requestMemoryBytesWithUsage;
  }
  for (const w of workloadIdle) of(w.namespace).idle += w.idleUsdPerMonth ?? 0;
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([namespace, s]) => ({
      namespace,
      cpuUsageOverRequest: ratio(s.cpu, s.reqCpu),
      memoryUsageOverRequest: ratio(s.memory, s.reqMemory),
      idleUsdPerMonth: s.idle,
    }));
}

/**
 * One node at a snapshot with what its pods requested and used (usage: the pods metrics-server reported, so system
 * processes outside pods are not counted).
 */
export interface NodeCapacityUsage {
  /** null: no price known (the node counts in the ratios, not in USD). */
  usdPerHour: number | null;
  allocCpuMillicores: number;
  allocMemoryBytes: number;
  requestCpuMillicores: number;
  requestMemoryBytes: number;
  usageCpuMillicores: number;
  usageMemoryBytes: number;
  /** GPUs offered (allocatable) and requested: a GPU node's price is mostly its GPUs' under the relative-price weighting. */
  allocGpu?: number;
  requestGpu?: number;
}

export interface CapacityEfficiency {
  nodes: number;
  usdPerHour: number;
  allocCpuMillicores: number;
  allocMemoryBytes: number;
  requestCpuMillicores: number;
  requestMemoryBytes: number;
  usageCpuMillicores: number;
  usageMemoryBytes: number;
  /** Σ usage ÷ Σ request; null with nothing requested. */
  cpuUsageOverRequest: number | null;
  memoryUsageOverRequest: number | null;
  /** Σ usage ÷ Σ allocatable; null with no allocatable. */
  cpuUsageOverAllocatable: number | null;
  memoryUsageOverAllocatable: number | null;
  /** USD/hour of capacity used (the rest of max(request, usage) after workload idle). */
  usedUsdPerHour: number;
  /** Kubecost's workload idle: requested and not used, max(0, request − usage), at the node's price per unit. */
  workloadIdleUsdPerHour: number;
  /** Kubecost's infrastructure (cluster) idle: allocatable that no pod took, allocatable − max(request, usage). */
  infrastructureIdleUsdPerHour: number;
  /** The rates the split used: each part of the priced nodes' price ÷ their allocatable (per vCPU-, GiB-, GPU-hour). */
  rates: UnitRates;
}

/** One resource of one node: its cost part split into used, workload idle and infrastructure idle; the three add up. */
function splitResource(partUsd: number, alloc: number, request: number, usage: number) {
  if (alloc <= 0) return { used: 0, workloadIdle: 0, infrastructureIdle: partUsd };
  // Kubecost's allocation is max(request, usage), capped at what the node has.
  const taken = Math.min(alloc, Math.max(request, usage));
  const workloadIdle = Math.min(taken, Math.max(0, request - usage));
  return {
    used: (partUsd * (taken - workloadIdle)) / alloc,
    workloadIdle: (partUsd * workloadIdle) / alloc,
    infrastructureIdle: (partUsd * (alloc - taken)) / alloc,
  };
}

/**
 * Usage ÷ request and usage ÷ allocatable over a set of nodes (a node, a NodePool, the cluster), and the node cost
 * split three ways, per node then summed: each node's USD/hour into CPU, memory and GPU by the one weighting
 * (core/cost-weights.ts: relative price over its allocatable; `weights` fixes CPU and memory weights instead), the
 * CPU and memory parts each over its allocatable into used, workload idle (requested, unused) and infrastructure idle
 * (allocatable, unrequested), the two idles as Kubecost names them; the GPU part, whose usage metrics-server does not
 * report, into used (requested) and infrastructure idle. used + workload idle + infrastructure idle = the priced
 * nodes' cost.
 */
export function capacityEfficiency(nodes: readonly NodeCapacityUsage[], weights?: CostWeights): CapacityEfficiency {
  const out: CapacityEfficiency = {
    nodes: nodes.length,
    usdPerHour: 0,
    allocCpuMillicores: 0,
    allocMemoryBytes: 0,
    requestCpuMillicores: 0,
    requestMemoryBytes: 0,
    usageCpuMillicores: 0,
    usageMemoryBytes: 0,
    cpuUsageOverRequest: null,
    memoryUsageOverRequest: null,
    cpuUsageOverAllocatable: null,
    memoryUsageOverAllocatable: null,
    usedUsdPerHour: 0,
    workloadIdleUsdPerHour: 0,
    infrastructureIdleUsdPerHour: 0,
    rates: { usdPerVcpuHour: null, usdPerGiBHour: null, usdPerGpuHour: null },
  };
  const parts = { cpuUsd: 0, memoryUsd: 0, gpuUsd: 0, vcpus: 0, gib: 0, gpus: 0 };
  for (const n of nodes) {
    out.allocCpuMillicores += n.allocCpuMillicores;
    out.allocMemoryBytes += n.allocMemoryBytes;
    out.requestCpuMillicores += n.requestCpuMillicores;
    out.requestMemoryBytes += n.requestMemoryBytes;
    out.usageCpuMillicores += n.usageCpuMillicores;
    out.usageMemoryBytes += n.usageMemoryBytes;
    if (n.usdPerHour === null) continue;
    out.usdPerHour += n.usdPerHour;
    const w = weightsOf(weights, n);
    const gpus = n.allocGpu ?? 0;
    parts.cpuUsd += w.cpu * n.usdPerHour;
    parts.memoryUsd += w.memory * n.usdPerHour;
    parts.gpuUsd += w.gpu * n.usdPerHour;
    parts.vcpus += n.allocCpuMillicores / 1000;
    parts.gib += n.allocMemoryBytes / 1024 ** 3;
    parts.gpus += gpus;
    for (const s of [
      splitResource(w.cpu * n.usdPerHour, n.allocCpuMillicores, n.requestCpuMillicores, n.usageCpuMillicores),
      splitResource(w.memory * n.usdPerHour, n.allocMemoryBytes, n.requestMemoryBytes, n.usageMemoryBytes),
      // GPU usage is not measured: what is requested counts as used.
      splitResource(w.gpu * n.usdPerHour, gpus, n.requestGpu ?? 0, n.requestGpu ?? 0),
    ]) {
      out.usedUsdPerHour += s.used;
      out.workloadIdleUsdPerHour += s.workloadIdle;
      out.infrastructureIdleUsdPerHour += s.infrastructureIdle;
    }
  }
  out.rates = ratesOfParts(parts, parts);
  out.cpuUsageOverRequest = ratio(out.usageCpuMillicores, out.requestCpuMillicores);
  out.memoryUsageOverRequest = ratio(out.usageMemoryBytes, out.requestMemoryBytes);
  out.cpuUsageOverAllocatable = ratio(out.usageCpuMillicores, out.allocCpuMillicores);
  out.memoryUsageOverAllocatable = ratio(out.usageMemoryBytes, out.allocMemoryBytes);
  return out;
}
