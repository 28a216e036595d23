import type { BillLineRow } from '../../db/repositories/bill-lines-repository.js';
import type { LineFact } from '../explain/facts.js';
import type { BillGranularity, BillLine } from '../schemas/bill.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/** Pure conversions between stored or imported lines and the API's bill lines. */

/** End of the period that starts at `startMs`: an hour, a UTC day, or the first of the next UTC month. */
export function periodEndMs(startMs: number, granularity: BillGranularity): number {
  if (granularity === 'HOURLY') return startMs + HOUR_MS;
  if (granularity === 'DAILY') return startMs + DAY_MS;
  const d = new Date(startMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export function toLineFact(
  r: Omit<BillLineRow, 'id' | 'fetchedAt' | 'clusterId' | 'cluster'> & { id: number | null },
  billAsOfMs: number | null,
): LineFact {
  const endMs = periodEndMs(r.periodStartMs, r.granularity);
  return {
    id: r.id,
    source: r.source,
    granularity: r.granularity,
    periodStart: new Date(r.periodStartMs).toISOString(),
    periodEnd: new Date(endMs).toISOString(),
    nodePool: r.nodePool,
    groupBy: r.groupBy,
    dimensionValue: r.dimensionValue,
    unblendedUsd: r.unblendedUsd,
    amortizedUsd: r.amortizedUsd,
    usageQuantity: r.usageQuantity,
    usageUnit: r.usageUnit,
    estimated: r.estimated,
    currency: r.currency ?? 'USD',
    periodStartMs: r.periodStartMs,
    periodEndMs: endMs,
    billAsOfMs,
  };
}

/** Synced lines were read at fetchedAt: usage after it cannot be in them. Imports carry no such time. */
export const storedLineFact = (r: BillLineRow): LineFact => toLineFact(r, r.source === 'cost-explorer' ? r.fetchedAt : null);

export function toBillLine(f: LineFact): BillLine {
  const { periodStartMs: _s, periodEndMs: _e, billAsOfMs: _a, ...line } = f;
  return line;
}
