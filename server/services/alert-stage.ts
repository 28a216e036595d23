import type { BudgetStatus } from '../../core/budget-model.js';
import type { Db } from '../../db/open-db.js';
import type { DeliveryTarget } from '../../db/repositories/alert-repository.js';
import { createAlertDelivery, type AlertDeliveryOptions } from './alert-delivery.js';
import { evaluateAlerts as evaluate } from './alert-evaluation.js';

export interface AlertStageOptions extends AlertDeliveryOptions {
  targets: readonly DeliveryTarget[];
  dashboardUrl?: string;
  /** The collector's snapshot interval: collector-stale counts missed intervals of this length. */
  snapshotIntervalMs?: number;
  budgetStatuses?: (db: Db, atMs: number) => BudgetStatus[];
}

/**
 * Alert evaluation as the collector's stage: `evaluateAlerts(atMs)` steps the alerts (synchronous, tens of ms) and
 * kicks the delivery loop without waiting for it, so a slow or hanging receiver never delays the next snapshot.
 * Evaluation errors are reported, never thrown: alerts must not stop collection.
 */
export function createAlertStage(db: Db, o: AlertStageOptions) {
  const delivery = createAlertDelivery(db, o);
  const interval = o.snapshotIntervalMs;
  return {
    evaluateAlerts(atMs: number): void {
      try {
        const r = evaluate(db, {
          atMs,
          targets: o.targets,
          ...(o.dashboardUrl === undefined ? {} : { dashboardUrl: o.dashboardUrl }),
          ...(o.budgetStatuses === undefined ? {} : { budgetStatuses: o.budgetStatuses }),
          ...(interval === undefined ? {} : { settings: (s) => ({ ...s, snapshotIntervalMs: interval }) }),
        });
        for (const t of r.transitions) o.log?.(`alert ${t.kind}: ${t.state.sentence}`);
        if (r.transitions.length > 0 && o.targets.length > 0) void delivery.kick();
      } catch (err) {
        o.log?.(`! alert evaluation at ${new Date(atMs).toISOString()} failed: ${(err as Error).message}`);
      }
    },
    /** Sends what is due now (awaited) without retrying: the rest stays queued for the next run. */
    flush: () => delivery.runOnce(),
    stop: () => delivery.stop(),
  };
}

export type AlertStage = ReturnType<typeof createAlertStage>;
