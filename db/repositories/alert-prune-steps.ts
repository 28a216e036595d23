import type { Db } from '../open-db.js';
import type { PruneBatch, PruneStep } from './retention-prune-repository.js';

/**
 * The built-in alerts' share of the retention pass (migration 0025's tables, issue 23): at the same horizon as the
 * rest, the attempts of finished deliveries, the finished deliveries (delivered, or failed after their bound), and the
 * alerts resolved before the cut with no delivery left. An open alert (pending or firing), however old, is kept, and so
 * is a delivery still to be sent and its attempts: retention never loses a transition that is yet to reach its sink.
 * Attempts first, then deliveries, then alerts, so each step finds its parents' children gone (the pass deletes with
 * foreign keys on or off).
 */
export function createAlertPruneSteps(db: Db): PruneStep[] {
  const step = (name: string, sql: string): PruneStep => {
    const st = db.prepare(sql);
    const run = db.transaction((cutMs: number, limit: number): PruneBatch => {
      const n = st.run({ cut: cutMs, limit }).changes;
      return { deleted: n, more: n >= limit };
    });
    return { name, batch: (cutMs, limit) => run.immediate(cutMs, limit) };
  };
  return [
    step(
      'alert_delivery_attempts',
      `DELETE FROM alert_delivery_attempts WHERE id IN (
         SELECT a.id FROM alert_delivery_attempts a JOIN alert_deliveries d ON d.id = a.delivery_id
         WHERE d.at < @cut AND d.status <> 'pending' LIMIT @limit)`,
    ),
    step('alert_deliveries', `DELETE FROM alert_deliveries WHERE at < @cut AND status <> 'pending' LIMIT @limit`),
    step(
      'alerts',
      `DELETE FROM alerts WHERE id IN (
         SELECT x.id FROM alerts x WHERE x.phase = 'resolved' AND x.resolved_at < @cut
           AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = x.id) LIMIT @limit)`,
    ),
  ];
}
