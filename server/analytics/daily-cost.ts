/** Pure merge of the Cost Explorer bill and our snapshot estimate into daily rows. No I/O. */

import { type BillDayRow, EC2_OTHER_PURCHASE_TYPE, type EstimateDayRow } from '../../db/repositories/reports-repository.js';
import type { CapacityType } from '../schemas/common.js';
import type { CostMetric, DailyCostRow } from '../schemas/cost.js';
import { utcDay } from './range.js';

const CAPACITY_ORDER: readonly CapacityType[] = ['on-demand', 'spot', 'reserved'];

const asCapacityType = (s: string): CapacityType | null => ((CAPACITY_ORDER as readonly string[]).includes(s) ? (s as CapacityType) : null);

/**
 * The Karpenter capacity type a Cost Explorer PURCHASE_TYPE bills: "On Demand Instances" -> on-demand,
 * "Spot Instances" -> spot. Reserved Instances and Savings Plans are discounts over on-demand usage,
 * not a capacity type of their own, so they map to null and stay separate rows.
 */
export function purchaseTypeToCapacityType(purchaseType: string): CapacityType | null {
  const p = purchaseType.toLowerCase().replace(/[-_]/g, ' ');
  if (p.startsWith('spot')) return 'spot';
  if (p.startsWith('on demand')) return 'on-demand';
  return null;
}

/**
 * The purchase kind a capacity type is billed under. A node in an on-demand capacity reservation (`reserved`) is
 * billed at the on-demand rate as On Demand usage (AWS: "you just pay for the instance and nothing for the
 * reservation"), so its estimate joins the on-demand row, where the bill for it is.
 */
export const billedAs = (capacityType: CapacityType): CapacityType => (capacityType === 'reserved' ? 'on-demand' : capacityType);

/**
 * A bill row's amount in a metric. Lines synced before a metric was asked for (migration 0014) lack it: they count
 * at the nearest figure they have (net -> gross, amortized -> unblended), so a day is never shown as free.
 */
export function billInMetric(b: BillDayRow, metric: CostMetric): number {
  const amortized = b.amortizedUsd ?? b.unblendedUsd;
  switch (metric) {
    case 'unblended':
      return b.unblendedUsd;
    case 'amortized':
      return amortized;
    case 'net-unblended':
      return b.netUnblendedUsd ?? b.unblendedUsd;
    case 'net-amortized':
      return b.netAmortizedUsd ?? amortized;
  }
}

/** Commitments apply when some row's amortized cost differs from its unblended cost by more than a cent. */
export const hasCommitments = (bill: readonly BillDayRow[]): boolean =>
  bill.some((b) => b.amortizedUsd !== null && Math.abs(b.amortizedUsd - b.unblendedUsd) > 0.01);

/**
 * The bill (per day, NodePool and purchase type) beside our estimate (per day, NodePool and capacity type), as the
 * reports repository reads them. Rows sorted by day, NodePool, then on-demand, spot, reserved, then other purchase
 * types by name. Reserved capacity is estimated in the on-demand row (estimateReservedUsd says how much of it).
 */
export function mergeDailyCost(
  bill: readonly BillDayRow[],
  estimate: readonly EstimateDayRow[],
  metric: CostMetric = 'unblended',
): DailyCostRow[] {
  const rows = new Map<string, DailyCostRow & { sortKind: string }>();
  const rowFor = (dayMs: number, nodePool: string, capacityType: CapacityType | null, purchaseType: string | null) => {
    const kind = capacityType ?? `~${purchaseType ?? ''}`;
    const key = `${dayMs}\u0000${nodePool}\u0000${kind}`;
    let row = rows.get(key);
    if (row === undefined) {
      const order = capacityType === null ? 9 : CAPACITY_ORDER.indexOf(capacityType);
      row = {
        day: utcDay(dayMs),
        nodePool,
        purchaseType: null,
        capacityType,
        band: purchaseType === EC2_OTHER_PURCHASE_TYPE ? 'storage-network' : 'compute',
        billUsd: null,
        billUnblendedUsd: null,
        billAmortizedUsd: null,
        billNetUnblendedUsd: null,
        billNetAmortizedUsd: null,
        billEstimated: false,
        estimateUsd: null,
        estimateReservedUsd: null,
        sortKind: `${order}${kind}`,
      };
      rows.set(key, row);
    }
    return row;
  };

  for (const b of bill) {
    const row = rowFor(b.dayMs, b.nodePool, purchaseTypeToCapacityType(b.purchaseType), b.purchaseType);
    row.purchaseType = row.purchaseType === null ? b.purchaseType : `${row.purchaseType}, ${b.purchaseType}`;
    row.billUnblendedUsd = (row.billUnblendedUsd ?? 0) + b.unblendedUsd;
    row.billUsd = (row.billUsd ?? 0) + billInMetric(b, metric);
    if (b.amortizedUsd !== null) row.billAmortizedUsd = (row.billAmortizedUsd ?? 0) + b.amortizedUsd;
    if (b.netUnblendedUsd !== undefined && b.netUnblendedUsd !== null)
      row.billNetUnblendedUsd = (row.billNetUnblendedUsd ?? 0) + b.netUnblendedUsd;
    if (b.netAmortizedUsd !== undefined && b.netAmortizedUsd !== null)
      row.billNetAmortizedUsd = (row.billNetAmortizedUsd ?? 0) + b.netAmortizedUsd;
    row.billEstimated = row.billEstimated || b.estimated;
  }
  for (const e of estimate) {
    const capacityType = asCapacityType(e.capacityType);
    const row = rowFor(
      e.dayMs,
      e.nodePool,
      capacityType === null ? null : billedAs(capacityType),
      capacityType === null ? e.capacityType : null,
    );
    row.estimateUsd = (row.estimateUsd ?? 0) + e.usd;
    if (capacityType === 'reserved') row.estimateReservedUsd = (row.estimateReservedUsd ?? 0) + e.usd;
  }

  return [...rows.values()]
    .sort((a, b) => a.day.localeCompare(b.day) || a.nodePool.localeCompare(b.nodePool) || a.sortKind.localeCompare(b.sortKind))
    .map(({ sortKind: _sortKind, ...row }) => row);
}

/** Σ bill (in the rows' metric), Σ estimate and Σ storage-network bill over the rows, USD. */
export function dailyCostTotals(rows: readonly DailyCostRow[]): { billUsd: number; estimateUsd: number; storageNetworkUsd: number } {
  return rows.reduce(
    (t, r) => ({
      billUsd: t.billUsd + (r.billUsd ?? 0),
      estimateUsd: t.estimateUsd + (r.estimateUsd ?? 0),
      storageNetworkUsd: t.storageNetworkUsd + (r.band === 'storage-network' ? (r.billUsd ?? 0) : 0),
    }),
    { billUsd: 0, estimateUsd: 0, storageNetworkUsd: 0 },
  );
}
