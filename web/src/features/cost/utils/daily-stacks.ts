import type { DailyCostRow } from '../../../../../server/schemas/reports';

/** One bar slot per UTC day: USD per NodePool for the bill and for our estimate. */
export interface DayStack {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** Cost Explorer UnblendedCost per NodePool, USD. */
  bill: Record<string, number>;
  /** Our estimate per NodePool, USD. */
  estimate: Record<string, number>;
  billTotalUsd: number;
  estimateTotalUsd: number;
  /** Cost Explorer still marks some of this day's lines as estimated (not final). */
  billNotFinal: boolean;
}

export interface DailyStacks {
  days: DayStack[];
  /** Every NodePool with cost in the range, sorted, '' (untagged) last. */
  nodePools: string[];
  billTotalUsd: number;
  estimateTotalUsd: number;
  /** (estimate − bill) ÷ bill; null without a bill. */
  estimateVsBill: number | null;
}

const DAY_MS = 86_400_000;

/** Every day from `from` (inclusive) to `to` (exclusive), YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t < end; t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * Sums rows (NodePool x purchase kind) into one stack per day, over purchase kinds. Days of the range
 * without rows are kept, empty, so gaps in the data show as gaps.
 */
export function toDailyStacks(rows: readonly DailyCostRow[], from: string, to: string): DailyStacks {
  const byDay = new Map<string, DayStack>(daysBetween(from, to).map((day) => [day, {
    day, bill: {}, estimate: {}, billTotalUsd: 0, estimateTotalUsd: 0, billNotFinal: false,
  }]));
  const pools = new Set<string>();
  for (const r of rows) {
    const d = byDay.get(r.day);
    if (d === undefined) continue;
    pools.add(r.nodePool);
    if (r.billUsd !== null) {
      d.bill[r.nodePool] = (d.bill[r.nodePool] ?? 0) + r.billUsd;
      d.billTotalUsd += r.billUsd;
    }
    if (r.estimateUsd !== null) {
      d.estimate[r.nodePool] = (d.estimate[r.nodePool] ?? 0) + r.estimateUsd;
      d.estimateTotalUsd += r.estimateUsd;
    }
    d.billNotFinal ||= r.billEstimated;
  }
  const days = [...byDay.values()];
  const billTotalUsd = days.reduce((s, d) => s + d.billTotalUsd, 0);
  const estimateTotalUsd = days.reduce((s, d) => s + d.estimateTotalUsd, 0);
  const nodePools = [...pools].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  return {
    days, nodePools, billTotalUsd, estimateTotalUsd,
    estimateVsBill: billTotalUsd > 0 ? (estimateTotalUsd - billTotalUsd) / billTotalUsd : null,
  };
}
