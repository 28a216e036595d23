import type { Db } from '../db/open-db.js';
import { createAlertRepository } from '../db/repositories/alert-repository.js';
import { createAlertDelivery } from '../server/services/alert-delivery.js';
import { replayAlerts } from '../server/services/alert-replay.js';
import type { AlertSink } from './demo-alert-sink.js';
import { budgetStatusesAt } from '../server/services/budget-service.js';

/** The demo evaluates every third 5-minute snapshot: every hold time is a multiple of 15 minutes. */
export const DEMO_ALERT_EVERY_MS = 15 * 60_000;

/**
 * The built-in alerts over the demo's scenario, as the collector would have raised them after each snapshot, sent to
 * the demo's webhook sink. Returns the lines to log.
 */
export async function demoAlerts(db: Db, o: { fromMs: number; toMs: number; sink: AlertSink; dashboardUrl: string }): Promise<string[]> {
  const t0 = performance.now();
  // A database filled and evaluated before (the demo started again) is evaluated only after where it stopped.
  const repo = createAlertRepository(db);
  const after = repo.evaluatedAtMs() ?? -Infinity;
  const times = repo.snapshotTimes(o.fromMs, o.toMs).filter((t) => t > after);
  const transitions = replayAlerts(db, {
    snapshotTimes: times,
    everyMs: DEMO_ALERT_EVERY_MS,
    targets: [{ url: o.sink.url, format: 'json' }],
    dashboardUrl: o.dashboardUrl,
    budgetStatuses: budgetStatusesAt,
  });
  const delivery = createAlertDelivery(db, { timeoutMs: 2000, maxAttempts: 3 });
  const sent = await delivery.runOnce();
  await delivery.stop();
  const fired = transitions.filter((t) => t.kind === 'firing').length;
  const resolved = transitions.length - fired;
  return [
    `alerts: ${fired} fired and ${resolved} resolved over the scenario (evaluated at ${Math.ceil(times.length / 3)} snapshots in ${((performance.now() - t0) / 1000).toFixed(1)} s); ` +
      `${sent.delivered} delivered to the demo's webhook sink ${o.sink.url} (GET it to read them); the Alerts page lists them: ${o.dashboardUrl}/alerts`,
  ];
}
