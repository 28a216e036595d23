import type { BudgetPeriod } from './budget-model.js';
import { DAY_MS } from './time.js';

/**
 * The period a budget is spent over, around an instant: a UTC calendar month (the 1st, 00:00 UTC, to the next
 * month's 1st), or an ISO week (Monday 00:00 UTC to the next Monday), the way AWS Budgets and Cost Explorer cut them.
 */
export function budgetPeriodAt(period: BudgetPeriod, atMs: number): { startMs: number; endMs: number } {
  const d = new Date(atMs);
  if (period === 'monthly') {
    return { startMs: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), endMs: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
  }
  const dayStartMs = Math.floor(atMs / DAY_MS) * DAY_MS;
  // getUTCDay: 0 Sunday .. 6 Saturday; days since Monday: (day + 6) % 7.
  const startMs = dayStartMs - ((d.getUTCDay() + 6) % 7) * DAY_MS;
  return { startMs, endMs: startMs + 7 * DAY_MS };
}
