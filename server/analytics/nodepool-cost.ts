/**
 * NodePool x capacity type cost comparison from hours-weighted rollup sums (pure, no I/O).
 */

import type { CapacityType } from '../schemas/common.js';
import type { NodePoolCompareResponse, NodePoolCompareRow } from '../schemas/nodepools.js';
import { BYTES_PER_GIB, type PackingSums } from './packing.js';

const CAPACITY_ORDER: readonly CapacityType[] = ['on-demand', 'spot', 'reserved'];
const asCapacityType = (s: string): CapacityType | null => ((CAPACITY_ORDER as readonly string[]).includes(s) ? (s as CapacityType) : null);

const per = (usd: number, quantity: number): number | null => (quantity > 0 ? usd / quantity : null);

/**
 * One row per NodePool x capacity type. Cost per vCPU-hour and per GiB-hour each divide the whole node cost
 * (a node's price is not split between cpu and memory here); "requested" divides by the hours of capacity
 * pods asked for, i.e. what a requested vCPU-hour really cost given the packing. The on-demand equivalent
 * is null when some snapshots of the row lack the on-demand price of their spot instances.
 */
export function nodePoolCompareRows(
  rows: readonly (PackingSums & { nodePool: string; capacityType: string })[],
  coveredHours: number,
): NodePoolCompareRow[] {
  const out: NodePoolCompareRow[] = [];
  for (const r of rows) {
    const capacityType = asCapacityType(r.capacityType);
    if (capacityType === null) continue;
    const vcpuAlloc = r.allocCpuMillicoreHours / 1000;
    const gibAlloc = r.allocMemoryByteHours / BYTES_PER_GIB;
    const vcpuReq = r.reqCpuMillicoreHours / 1000;
    const gibReq = r.reqMemoryByteHours / BYTES_PER_GIB;
    const onDemand = r.onDemandUnknownUsd > 0 ? null : r.onDemandUsd;
    const savings = onDemand === null ? null : onDemand - r.costUsd;
    out.push({
      nodePool: r.nodePool,
      capacityType,
      costUsd: r.costUsd,
      nodeHours: r.nodeHours,
      nodesAvg: coveredHours > 0 ? r.nodeHours / coveredHours : 0,
      vcpuHoursAllocatable: vcpuAlloc,
      memoryGiBHoursAllocatable: gibAlloc,
      vcpuHoursRequested: vcpuReq,
      memoryGiBHoursRequested: gibReq,
      usdPerVcpuHourAllocatable: per(r.costUsd, vcpuAlloc),
      usdPerGiBHourAllocatable: per(r.costUsd, gibAlloc),
      usdPerVcpuHourRequested: per(r.costUsd, vcpuReq),
      usdPerGiBHourRequested: per(r.costUsd, gibReq),
      onDemandEquivalentUsd: onDemand,
      savingsUsd: savings,
      savingsFraction: savings === null || onDemand === null || onDemand <= 0 ? null : savings / onDemand,
    });
  }
  return out.sort(
    (a, b) => a.nodePool.localeCompare(b.nodePool) || CAPACITY_ORDER.indexOf(a.capacityType) - CAPACITY_ORDER.indexOf(b.capacityType),
  );
}

export function nodePoolCompareTotals(rows: readonly NodePoolCompareRow[]): NodePoolCompareResponse['totals'] {
  const known = rows.every((r) => r.onDemandEquivalentUsd !== null);
  return {
    costUsd: rows.reduce((t, r) => t + r.costUsd, 0),
    nodeHours: rows.reduce((t, r) => t + r.nodeHours, 0),
    onDemandEquivalentUsd: known ? rows.reduce((t, r) => t + (r.onDemandEquivalentUsd ?? 0), 0) : null,
    savingsUsd: known ? rows.reduce((t, r) => t + (r.savingsUsd ?? 0), 0) : null,
  };
}
