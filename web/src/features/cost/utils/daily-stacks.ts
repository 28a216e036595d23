import type { DailyCostRow } from '@schemas/cost';
import { DAY_MS } from '../../../lib/time';

/**
 * How a segment was bought: our capacity type, `other` for purchase types with no Karpenter equivalent (Savings Plans,
 * RIs), or `storage-network` for the NodePool's volumes and data transfer (EC2 - Other).
 */
export type PurchaseKind = 'on-demand' | 'spot' | 'reserved' | 'other' | 'storage-network';

/** One stacked segment: a NodePool and how its capacity was bought. */
export interface Segment {
  /** `<nodePool>|<kind>`, the key of the day's records. */
  key: string;
  nodePool: string;
  kind: PurchaseKind;
}

/** One bar slot per UTC day: USD per segment for the bill and for our estimate. */
export interface DayStack {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** The bill in the response's metric per segment key, USD. */
  bill: Record<string, number>;
  /** Our estimate per segment key, USD. */
  estimate: Record<string, number>;
  billTotalUsd: number;
  estimateTotalUsd: number;
  /** Cost Explorer still marks some of this day's lines as estimated (not final). */
  billNotFinal: boolean;
}

export interface DailyStacks {
  days: DayStack[];
  /** Every segment with cost in the range: NodePools sorted with '' (untagged) last, then on-demand, spot, reserved, other, storage and network. */
  segments: Segment[];
  /** Every NodePool with cost in the range, same order. */
  nodePools: string[];
  billTotalUsd: number;
  estimateTotalUsd: number;
  /** (estimate − bill) ÷ bill; null without a bill. */
  estimateVsBill: number | null;
}

const KIND_ORDER: readonly PurchaseKind[] = ['on-demand', 'spot', 'reserved', 'other', 'storage-network'];

/** Every day from `from` (inclusive) to `to` (exclusive), YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t < end; t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

export const segmentKey = (nodePool: string, kind: PurchaseKind): string => `${nodePool}|${kind}`;

const byNodePoolName = (a: string, b: string): number => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b));

/**
 * Sums rows into one stack per day, one segment per NodePool × purchase kind. Days of the range without
 * rows are kept, empty, so gaps in the data show as gaps.
 */
export function toDailyStacks(rows: readonly DailyCostRow[], from: string, to: string): DailyStacks {
  const byDay = new Map<string, DayStack>(
    daysBetween(from, to).map((day) => [
      day,
      {
        day,
        bill: {},
        estimate: {},
        billTotalUsd: 0,
        estimateTotalUsd: 0,
        billNotFinal: false,
      },
    ]),
  );
  const segments = new Map<string, Segment>();
  for (const r of rows) {
    const d = byDay.get(r.day);
    if (d === undefined) continue;
    const kind: PurchaseKind = r.band === 'storage-network' ? 'storage-network' : (r.capacityType ?? 'other');
    const key = segmentKey(r.nodePool, kind);
    // The bill cannot tell capacity reservations from on-demand (both are On Demand Instances); the estimate can.
    const reservedUsd = r.estimateReservedUsd ?? 0;
    const ownEstimateUsd = r.estimateUsd === null ? null : r.estimateUsd - reservedUsd;
    if (r.billUsd !== null || ownEstimateUsd === null || ownEstimateUsd > 0 || reservedUsd === 0)
      segments.set(key, { key, nodePool: r.nodePool, kind });
    if (r.billUsd !== null) {
      d.bill[key] = (d.bill[key] ?? 0) + r.billUsd;
      d.billTotalUsd += r.billUsd;
    }
    if (r.estimateUsd !== null) {
      if (reservedUsd > 0) {
        const reservedKey = segmentKey(r.nodePool, 'reserved');
        segments.set(reservedKey, { key: reservedKey, nodePool: r.nodePool, kind: 'reserved' });
        d.estimate[reservedKey] = (d.estimate[reservedKey] ?? 0) + reservedUsd;
      }
      if (ownEstimateUsd !== null && (ownEstimateUsd > 0 || reservedUsd === 0)) d.estimate[key] = (d.estimate[key] ?? 0) + ownEstimateUsd;
      d.estimateTotalUsd += r.estimateUsd;
    }
    d.billNotFinal ||= r.billEstimated;
  }
  const days = [...byDay.values()];
  const billTotalUsd = days.reduce((s, d) => s + d.billTotalUsd, 0);
  const estimateTotalUsd = days.reduce((s, d) => s + d.estimateTotalUsd, 0);
  const sorted = [...segments.values()].sort(
    (a, b) => byNodePoolName(a.nodePool, b.nodePool) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind),
  );
  return {
    days,
    segments: sorted,
    nodePools: [...new Set(sorted.map((s) => s.nodePool))],
    billTotalUsd,
    estimateTotalUsd,
    estimateVsBill: billTotalUsd > 0 ? (estimateTotalUsd - billTotalUsd) / billTotalUsd : null,
  };
}
