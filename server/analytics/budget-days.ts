/** A budget scope's cost per whole UTC day (pure): the bill where the day is final, else our estimate. No I/O. */

import type { BudgetDay } from '../../core/budget-forecast.js';
import type { BudgetCostMetric } from '../../core/budget-model.js';
import type { BillDayRow, EstimateDayRow } from '../../db/repositories/reports-repository.js';
import type { CostMetric } from '../schemas/cost.js';
import { billInMetric } from './daily-cost.js';

/** The bill metric a budget is spent in: net is NetUnblendedCost (the gross figure where a line has no net one). */
export const billMetricOf = (m: BudgetCostMetric): CostMetric => (m === 'net' ? 'net-unblended' : m);

export interface ScopeDays {
  /** Whole days before today, oldest first. */
  days: BudgetDay[];
  /** Today (from its start) so far, estimated. */
  todaySoFar: number;
}

interface DayBill {
  amount: number;
  final: boolean;
}

/** Σ bill per day (and per NodePool when `byNodePool`), final when no line of it is still estimated. */
function billByDay(bill: readonly BillDayRow[], metric: CostMetric, byNodePool: boolean): Map<string, DayBill> {
  const out = new Map<string, DayBill>();
  for (const b of bill) {
    const key = byNodePool ? `${b.dayMs}\u0000${b.nodePool}` : String(b.dayMs);
    const d = out.get(key) ?? { amount: 0, final: true };
    d.amount += billInMetric(b, metric);
    d.final = d.final && !b.estimated;
    out.set(key, d);
  }
  return out;
}

const sumBy = <T>(rows: readonly T[], key: (r: T) => string, value: (r: T) => number): Map<string, number> => {
  const out = new Map<string, number>();
  for (const r of rows) out.set(key(r), (out.get(key(r)) ?? 0) + value(r));
  return out;
};

/**
 * The cluster's or one NodePool's days: `bill` and `estimate` already narrowed to the scope. A day final on the bill
 * counts at the bill; a day not final at our estimate (Cost Explorer's own estimate where we have none).
 */
export function billScopeDays(
  bill: readonly BillDayRow[],
  estimate: readonly EstimateDayRow[],
  metric: CostMetric,
  todayStartMs: number,
): ScopeDays {
  const billed = billByDay(bill, metric, false);
  const estimated = sumBy(
    estimate,
    (e) => String(e.dayMs),
    (e) => e.usd,
  );
  const dayKeys = new Set([...billed.keys(), ...estimated.keys()].filter((k) => Number(k) < todayStartMs));
  const days = [...dayKeys]
    .map(Number)
    .sort((a, b) => a - b)
    .map((dayStartMs): BudgetDay => {
      const b = billed.get(String(dayStartMs));
      const e = estimated.get(String(dayStartMs));
      if (b !== undefined && (b.final || e === undefined)) return { dayStartMs, amount: b.amount, final: b.final };
      return { dayStartMs, amount: e ?? 0, final: false };
    });
  return { days, todaySoFar: estimated.get(String(todayStartMs)) ?? 0 };
}

/** A team's or namespace's estimated share of one NodePool's cost on one day. */
export interface ShareDayRow {
  dayMs: number;
  nodePool: string;
  usd: number;
}

/**
 * A team's or namespace's days: its request share of each NodePool's estimate, and on a day final on the bill for
 * every NodePool it ran on, that share of each NodePool's bill (share × bill ÷ the NodePool's estimate that day).
 */
export function shareScopeDays(
  shares: readonly ShareDayRow[],
  bill: readonly BillDayRow[],
  nodePoolEstimate: readonly EstimateDayRow[],
  metric: CostMetric,
  todayStartMs: number,
): ScopeDays {
  const billed = billByDay(bill, metric, true);
  const poolEstimate = sumBy(
    nodePoolEstimate,
    (e) => `${e.dayMs}\u0000${e.nodePool}`,
    (e) => e.usd,
  );
  const byDay = new Map<number, ShareDayRow[]>();
  for (const s of shares) byDay.set(s.dayMs, [...(byDay.get(s.dayMs) ?? []), s]);
  const days: BudgetDay[] = [];
  let todaySoFar = 0;
  for (const [dayStartMs, rows] of [...byDay.entries()].sort((a, b) => a[0] - b[0])) {
    const estimate = rows.reduce((t, r) => t + r.usd, 0);
    if (dayStartMs >= todayStartMs) {
      todaySoFar += estimate;
      continue;
    }
    const final = rows.every((r) => r.usd === 0 || billed.get(`${dayStartMs}\u0000${r.nodePool}`)?.final === true);
    if (!final) {
      days.push({ dayStartMs, amount: estimate, final: false });
      continue;
    }
    const amount = rows.reduce((t, r) => {
      const key = `${dayStartMs}\u0000${r.nodePool}`;
      const poolUsd = poolEstimate.get(key) ?? 0;
      return t + (poolUsd > 0 ? (r.usd * (billed.get(key)?.amount ?? 0)) / poolUsd : r.usd);
    }, 0);
    days.push({ dayStartMs, amount, final: true });
  }
  return { days, todaySoFar };
}
