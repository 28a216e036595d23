import type { AlertSettings, AlertTransition } from '../../core/alert-model.js';
import type { BudgetStatus } from '../../core/budget-model.js';
import type { Db } from '../../db/open-db.js';
import type { DeliveryTarget } from '../../db/repositories/alert-repository.js';
import { evaluateAlerts } from './alert-evaluation.js';

/**
 * Evaluates the alerts at the stored snapshots of [fromMs, toMs), at most one every `everyMs`, in order: what the
 * collector would have said after each snapshot, for a database filled without it (the demo's seeding). Evaluating
 * a time again changes nothing (the stored state says what already fired), so a replay over a file replayed before
 * delivers nothing twice.
 */
export function replayAlerts(
  db: Db,
  o: {
    snapshotTimes: readonly number[];
    everyMs: number;
    targets?: readonly DeliveryTarget[];
    dashboardUrl?: string;
    settings?: (s: AlertSettings) => AlertSettings;
    /** Budget statuses at a time (budgets23's budgetStatusesAt); absent: budgets are not judged. */
    budgetStatuses?: (db: Db, atMs: number) => BudgetStatus[];
  },
): AlertTransition[] {
  const out: AlertTransition[] = [];
  let next = -Infinity;
  for (const t of o.snapshotTimes) {
    if (t < next) continue;
    next = t + o.everyMs;
    out.push(
      ...evaluateAlerts(db, {
        atMs: t,
        ...(o.targets === undefined ? {} : { targets: o.targets }),
        ...(o.dashboardUrl === undefined ? {} : { dashboardUrl: o.dashboardUrl }),
        ...(o.settings === undefined ? {} : { settings: o.settings }),
        ...(o.budgetStatuses === undefined ? {} : { budgetStatuses: o.budgetStatuses }),
      }).transitions,
    );
  }
  return out;
}
