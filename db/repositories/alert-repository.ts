import type { AlertPhase, AlertRule, AlertState, AlertTransition } from '../../core/alert-model.js';
import type { AlertStep } from '../../core/alert-state.js';
import type { Db } from '../open-db.js';

/** Settings key: the alert settings as stored (a JSON partial of core's AlertSettings; unset = the defaults). */
export const ALERT_SETTINGS_KEY = 'alerts.settings';
/** Settings key: the newest time the alerts were evaluated at (epoch ms as text). */
export const ALERT_EVALUATED_AT_KEY = 'alerts.evaluated-at';

export type DeliveryFormat = 'json' | 'slack';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryTarget {
  url: string;
  format: DeliveryFormat;
}

export interface AlertDelivery {
  id: number;
  alertId: number;
  transition: 'firing' | 'resolved';
  atMs: number;
  targetUrl: string;
  format: DeliveryFormat;
  payloadJson: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAtMs: number;
}

export interface DeliveryAttempt {
  deliveryId: number;
  atMs: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

interface AlertRow {
  id: number;
  rule: string;
  subject: string;
  phase: string;
  pending_since: number;
  firing_since: number | null;
  resolved_at: number | null;
  figures_json: string;
  sentence: string;
  link_href: string;
  link_label: string;
}

const toState = (r: AlertRow): AlertState => ({
  id: r.id,
  rule: r.rule as AlertRule,
  subject: r.subject,
  phase: r.phase as AlertPhase,
  pendingSinceMs: r.pending_since,
  firingSinceMs: r.firing_since,
  resolvedAtMs: r.resolved_at,
  figures: JSON.parse(r.figures_json) as AlertState['figures'],
  sentence: r.sentence,
  link: { href: r.link_href, label: r.link_label },
});

interface DeliveryRow {
  id: number;
  alert_id: number;
  transition: 'firing' | 'resolved';
  at: number;
  target_url: string;
  format: DeliveryFormat;
  payload_json: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
}

const toDelivery = (r: DeliveryRow): AlertDelivery => ({
  id: r.id,
  alertId: r.alert_id,
  transition: r.transition,
  atMs: r.at,
  targetUrl: r.target_url,
  format: r.format,
  payloadJson: r.payload_json,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAtMs: r.next_attempt_at,
});

/** All SQL for alerts, their deliveries (the outbox) and each delivery attempt (migration 0025). */
export function createAlertRepository(db: Db) {
  const openStates = db.prepare("SELECT * FROM alerts WHERE phase <> 'resolved' ORDER BY id");
  // One group's open alerts: those of `rules` about one cluster (`@clusterId`; with `@orNull` also those stored without
  // a cluster, a one-cluster ledger's), or about none (`@clusterId` NULL: the ledger-wide rules).
  const openOfGroup = db.prepare(`
    SELECT * FROM alerts WHERE phase <> 'resolved' AND rule IN (SELECT value FROM json_each(@rules))
      AND (@any = 1 OR cluster_id IS @clusterId OR (@orNull = 1 AND cluster_id IS NULL))
    ORDER BY id`);
  const insert = db.prepare(`
    INSERT INTO alerts (rule, subject, phase, pending_since, firing_since, resolved_at, figures_json, sentence, link_href, link_label,
      cluster_id)
    VALUES (@rule, @subject, @phase, @pendingSinceMs, @firingSinceMs, @resolvedAtMs, @figures, @sentence, @href, @label, @clusterId)`);
  const update = db.prepare(`
    UPDATE alerts SET phase = @phase, firing_since = @firingSinceMs, resolved_at = @resolvedAtMs, figures_json = @figures,
      sentence = @sentence, link_href = @href, link_label = @label, cluster_id = CASE WHEN @keep = 1 THEN cluster_id ELSE @clusterId END
    WHERE id = @id`);
  const clusterNames = db.prepare('SELECT id, name FROM clusters ORDER BY id');
  const remove = db.prepare('DELETE FROM alerts WHERE id = ?');
  const listFired = db.prepare(`
    SELECT * FROM alerts WHERE phase <> 'pending' AND (@open = 0 OR phase = 'firing')
      AND (@rule IS NULL OR rule = @rule) AND (@clusterId IS NULL OR cluster_id = @clusterId OR cluster_id IS NULL)
    ORDER BY firing_since DESC, id DESC LIMIT @limit`);
  const setting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const putSetting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const enqueue = db.prepare(`
    INSERT INTO alert_deliveries (alert_id, transition, at, target_url, format, payload_json, status, next_attempt_at)
    VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT (alert_id, transition, target_url) DO NOTHING`);
  const due = db.prepare(
    "SELECT * FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
  );
  const recordAttempt = db.prepare(
    'INSERT INTO alert_delivery_attempts (delivery_id, at, duration_ms, http_status, error) VALUES (?, ?, ?, ?, ?)',
  );
  const afterAttempt = db.prepare('UPDATE alert_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ? WHERE id = ?');
  const deliveriesOf = db.prepare('SELECT * FROM alert_deliveries WHERE alert_id = ? ORDER BY id');
  const allDeliveries = db.prepare('SELECT * FROM alert_deliveries ORDER BY id');
  const failedScheduling = db.prepare(
    `SELECT at, message, namespace, name FROM events WHERE reason = 'FailedScheduling' AND kind = 'Pod' AND at > @fromMs AND at <= @toMs
       AND (@clusterId IS NULL OR cluster_id = @clusterId) ORDER BY at, name`,
  );
  const snapshotTimes = db.prepare('SELECT taken_at FROM snapshots WHERE taken_at >= ? AND taken_at < ? ORDER BY taken_at').pluck();
  const attemptsOf = db.prepare('SELECT * FROM alert_delivery_attempts WHERE delivery_id = ? ORDER BY id');

  const params = (s: AlertState, clusterId: number | null | 'kept') => ({
    clusterId: clusterId === 'kept' ? null : clusterId,
    keep: clusterId === 'kept' ? 1 : 0,
    id: s.id ?? null,
    rule: s.rule,
    subject: s.subject,
    phase: s.phase,
    pendingSinceMs: s.pendingSinceMs,
    firingSinceMs: s.firingSinceMs,
    resolvedAtMs: s.resolvedAtMs,
    figures: JSON.stringify(s.figures),
    sentence: s.sentence,
    href: s.link.href,
    label: s.link.label,
  });

  return {
    /** Pending and firing episodes: what the next evaluation steps from. */
    open: (): AlertState[] => (openStates.all() as AlertRow[]).map(toState),
    /**
     * The open alerts of `rules` about one cluster (null: about none, the ledger-wide rules); `orNull` adds those stored
     * without a cluster (before the ledger held several, its one cluster's).
     */
    openOf: (rules: readonly AlertRule[], clusterId: number | null | 'any', orNull = false): AlertState[] =>
      (
        openOfGroup.all({
          rules: JSON.stringify(rules),
          clusterId: clusterId === 'any' ? null : clusterId,
          any: clusterId === 'any' ? 1 : 0,
          orNull: orNull ? 1 : 0,
        }) as AlertRow[]
      ).map(toState),
    /** Each cluster's id and name, by id. */
    clusters: (): { id: number; name: string }[] => clusterNames.all() as { id: number; name: string }[],
    /** The cluster (clusters.id) each alert is about, null for the ledger-wide ones, by alert id. */
    clusterOf: (ids: readonly number[]): Map<number, number | null> => {
      const out = new Map<number, number | null>();
      if (ids.length === 0) return out;
      const rows = db
        .prepare('SELECT id, cluster_id FROM alerts WHERE id IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(ids)) as { id: number; cluster_id: number | null }[];
      for (const r of rows) out.set(r.id, r.cluster_id);
      return out;
    },

    /**
     * Writes one evaluation's step and queues each transition for every target, in one transaction: the state that
     * says "fired" and the delivery that tells it are stored together or not at all.
     */
    applyStep: (
      step: AlertStep,
      targets: readonly DeliveryTarget[],
      payloadOf: (t: AlertTransition, target: DeliveryTarget) => string,
      /** The cluster the step's alerts are about (null: none); 'kept': as stored (a one-cluster ledger's evaluation). */
      clusterId: number | null | 'kept' = 'kept',
    ): void => {
      db.transaction(() => {
        for (const d of step.dropped) if (d.id !== undefined) remove.run(d.id);
        const ids = new Map<AlertState, number>();
        for (const s of step.changed) {
          if (s.id === undefined) ids.set(s, Number(insert.run(params(s, clusterId)).lastInsertRowid));
          else {
            update.run(params(s, clusterId));
            ids.set(s, s.id);
          }
        }
        for (const t of step.transitions) {
          const id = ids.get(t.state) ?? t.state.id;
          if (id === undefined) continue;
          const withId = { ...t, state: { ...t.state, id } };
          for (const target of targets) enqueue.run(id, t.kind, t.atMs, target.url, target.format, payloadOf(withId, target), t.atMs);
        }
      })();
    },

    /** Fired episodes (firing and resolved), newest first; `open` only the firing ones. */
    list: (q: { open?: boolean; rule?: AlertRule; limit?: number; clusterId?: number | null } = {}): AlertState[] =>
      (
        listFired.all({
          open: q.open === true ? 1 : 0,
          rule: q.rule ?? null,
          limit: q.limit ?? 500,
          clusterId: q.clusterId ?? null,
        }) as AlertRow[]
      ).map(toState),

    /** The newest time evaluated at, or null before any evaluation. */
    evaluatedAtMs: (): number | null => {
      const v = setting.get(ALERT_EVALUATED_AT_KEY) as string | undefined;
      return v === undefined ? null : Number(v);
    },
    noteEvaluatedAt: (atMs: number): void => {
      const before = Number((setting.get(ALERT_EVALUATED_AT_KEY) as string | undefined) ?? -Infinity);
      if (atMs > before) putSetting.run(ALERT_EVALUATED_AT_KEY, String(atMs));
    },

    settingsJson: (): string | null => (setting.get(ALERT_SETTINGS_KEY) as string | undefined) ?? null,
    putSettingsJson: (json: string): void => {
      putSetting.run(ALERT_SETTINGS_KEY, json);
    },

    /** Deliveries whose next attempt is due at `atMs`, oldest first. */
    due: (atMs: number, limit = 50): AlertDelivery[] => (due.all(atMs, limit) as DeliveryRow[]).map(toDelivery),

    /** Records one attempt and the delivery's new status (pending again at `nextAttemptAtMs`, delivered or failed). */
    recordAttempt: (attempt: DeliveryAttempt, status: DeliveryStatus, nextAttemptAtMs: number): void => {
      db.transaction(() => {
        recordAttempt.run(attempt.deliveryId, attempt.atMs, attempt.durationMs, attempt.httpStatus, attempt.error);
        afterAttempt.run(status, nextAttemptAtMs, attempt.deliveryId);
      })();
    },

    /** Pod FailedScheduling events in (fromMs, toMs]: Karpenter's (and the scheduler's) reasons a pod waits. */
    failedScheduling: (fromMs: number, toMs: number, clusterId: number | null = null): { atMs: number; message: string; pod: string }[] =>
      (failedScheduling.all({ fromMs, toMs, clusterId }) as { at: number; message: string; namespace: string | null; name: string }[]).map(
        (r) => ({
          atMs: r.at,
          message: r.message,
          pod: `${r.namespace ?? ''}/${r.name}`,
        }),
      ),

    /** The stored snapshots' times in [fromMs, toMs), in order (a replay's evaluation times). */
    snapshotTimes: (fromMs: number, toMs: number): number[] => snapshotTimes.all(fromMs, toMs) as number[],

    deliveries: (alertId?: number): AlertDelivery[] =>
      ((alertId === undefined ? allDeliveries.all() : deliveriesOf.all(alertId)) as DeliveryRow[]).map(toDelivery),

    attempts: (deliveryId: number): DeliveryAttempt[] =>
      (
        attemptsOf.all(deliveryId) as {
          delivery_id: number;
          at: number;
          duration_ms: number;
          http_status: number | null;
          error: string | null;
        }[]
      ).map((r) => ({ deliveryId: r.delivery_id, atMs: r.at, durationMs: r.duration_ms, httpStatus: r.http_status, error: r.error })),
  };
}

export type AlertRepository = ReturnType<typeof createAlertRepository>;
