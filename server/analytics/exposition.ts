/**
 * The figures /metrics exposes, reduced from what the services answer (pure, no I/O): the resources packing is
 * exposed for, and the newest final day of the bill.
 */

import type { DailyCostRow } from '../schemas/cost.js';

/** The efficiency summary's ratio fields exposed as nodepool_ledger_packing_ratio's `resource`. */
export const PACKING_RESOURCES = ['cpu', 'memory', 'pods', 'gpu'] as const;
export type PackingResource = (typeof PACKING_RESOURCES)[number];

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
