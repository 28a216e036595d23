/**
 * The figures /metrics exposes, reduced from what the services answer (pure, no I/O): packing and idle cost per
 * NodePool from the node table at the newest snapshot, and the newest final day of the bill.
 */

import type { DailyCostRow } from '../schemas/cost.js';
import type { NodeRow } from '../schemas/efficiency.js';
import { efficiencyRatio } from './efficiency.js';

export const PACKING_RESOURCES = ['cpu', 'memory', 'pods', 'gpu'] as const;
export type PackingResource = (typeof PACKING_RESOURCES)[number];

export interface NodePoolPacking {
  /** Σ requested ÷ Σ allocatable over the NodePool's nodes per resource; null when nothing of it is allocatable. */
  ratio: Record<PackingResource, number | null>;
  /** Σ of the nodes' idle cost per hour (the node table's idleUsdPerHour), in the data's currency. */
  idlePerHour: number;
}

/** Per NodePool ('' = nodes without one), from the node rows of one snapshot. */
export function packingByNodePool(nodes: readonly NodeRow[]): Map<string, NodePoolPacking> {
  const sums = new Map<string, { req: Record<PackingResource, number>; alloc: Record<PackingResource, number>; idle: number }>();
  for (const n of nodes) {
    let s = sums.get(n.nodePool);
    if (s === undefined) {
      s = { req: { cpu: 0, memory: 0, pods: 0, gpu: 0 }, alloc: { cpu: 0, memory: 0, pods: 0, gpu: 0 }, idle: 0 };
      sums.set(n.nodePool, s);
    }
    s.req.cpu += n.requestedVcpu;
    s.alloc.cpu += n.allocatableVcpu;
    s.req.memory += n.requestedMemoryGiB;
    s.alloc.memory += n.allocatableMemoryGiB;
    s.req.pods += n.requestedPods;
    s.alloc.pods += n.allocatablePods;
    s.req.gpu += n.requestedGpu;
    s.alloc.gpu += n.allocatableGpu;
    s.idle += n.idleUsdPerHour;
  }
  const out = new Map<string, NodePoolPacking>();
  for (const [pool, s] of sums) {
    const ratio = {} as Record<PackingResource, number | null>;
    for (const r of PACKING_RESOURCES) ratio[r] = efficiencyRatio(s.req[r], s.alloc[r]);
    out.set(pool, { ratio, idlePerHour: s.idle });
  }
  return out;
}

export interface FinalBillDay {
  /** UTC day start, epoch ms. */
  dayMs: number;
  /** Σ bill of the day per NodePool ('' = untagged), every purchase kind and band, in the rows' metric. */
  byNodePool: Map<string, number>;
}

/**
 * The newest day whose bill is final: it has bill lines and none of them is still marked Estimated by Cost Explorer
 * (a day is final for every NodePool at once: Cost Explorer finalises a day, not a tag value). Null when none is.
 */
export function newestFinalBillDay(rows: readonly DailyCostRow[]): FinalBillDay | null {
  const days = new Map<string, { estimated: boolean; byNodePool: Map<string, number> }>();
  for (const r of rows) {
    if (r.billUsd === null) continue;
    let d = days.get(r.day);
    if (d === undefined) {
      d = { estimated: false, byNodePool: new Map() };
      days.set(r.day, d);
    }
    d.estimated ||= r.billEstimated;
    d.byNodePool.set(r.nodePool, (d.byNodePool.get(r.nodePool) ?? 0) + r.billUsd);
  }
  const final = [...days.entries()].filter(([, d]) => !d.estimated).sort(([a], [b]) => b.localeCompare(a))[0];
  return final === undefined ? null : { dayMs: Date.parse(`${final[0]}T00:00:00Z`), byNodePool: final[1].byNodePool };
}
