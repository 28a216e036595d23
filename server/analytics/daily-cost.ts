/** Pure merge of the Cost Explorer bill and our snapshot estimate into daily rows. No I/O. */

import type { BillDayRow, EstimateDayRow } from '../../db/repositories/reports-repository.js';
import type { CapacityType } from '../schemas/common.js';
import type { DailyCostRow } from '../schemas/cost.js';
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
 * The bill (per day, NodePool and purchase type) beside our estimate (per day, NodePool and capacity type), as the
 * reports repository reads them. Rows sorted by day, NodePool, then on-demand, spot, reserved, then other purchase
 * types by name. Reserved capacity is estimated in the on-demand row (estimateReservedUsd says how much of it).
 */
export function mergeDailyCost(bill: readonly BillDayRow[], estimate: readonly EstimateDayRow[]): DailyCostRow[] {
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
        billUsd: null,
        billAmortizedUsd: null,
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
    row.billUsd = (row.billUsd ?? 0) + b.unblendedUsd;
    if (b.amortizedUsd !== null) row.billAmortizedUsd = (row.billAmortizedUsd ?? 0) + b.amortizedUsd;
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

/** Σ bill and Σ estimate over the rows, USD. */
export function dailyCostTotals(rows: readonly DailyCostRow[]): { billUsd: number; estimateUsd: number } {
  return rows.reduce((t, r) => ({ billUsd: t.billUsd + (r.billUsd ?? 0), estimateUsd: t.estimateUsd + (r.estimateUsd ?? 0) }), {
    billUsd: 0,
    estimateUsd: 0,
  });
}
