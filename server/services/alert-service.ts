import { ALERT_RULE_DOCS, ALERT_RULES } from '../../core/alert-model.js';
import type { Db } from '../../db/open-db.js';
import { createAlertRepository } from '../../db/repositories/alert-repository.js';
import type { AlertsQuery, AlertsResponse, AlertSettingsResponse } from '../schemas/alerts.js';
import { loadAlertSettings } from './alert-evaluation.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const HOUR_MS = 3_600_000;

/** A webhook URL without its path and query (a Slack incoming webhook's secret is its path). */
const origin = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
};

/** What the Alerts page and GET /api/alerts read: fired episodes with their deliveries, and the settings. */
export function createAlertService(db: Db) {
  const repo = createAlertRepository(db);
  return {
    /** `clusterId`: the alerts about that cluster and the ledger-wide ones; null: every alert. */
    list(q: AlertsQuery, clusterId: number | null = null): AlertsResponse {
      const alerts = repo.list({
        open: q.state === 'open',
        ...(q.rule === undefined ? {} : { rule: q.rule }),
        limit: q.limit ?? 200,
        clusterId,
      });
      const clusters = repo.clusters();
      const names = new Map(clusters.map((c) => [c.id, c.name]));
      const clusterOf = clusters.length > 1 ? repo.clusterOf(alerts.flatMap((a) => (a.id === undefined ? [] : [a.id]))) : null;
      return {
        open: repo.list({ open: true, limit: 100_000, clusterId }).length,
        alerts: alerts.map((a) => ({
          id: a.id ?? 0,
          rule: a.rule,
          subject: a.subject,
          ...(clusterOf === null ? {} : { cluster: names.get(clusterOf.get(a.id ?? 0) ?? -1) ?? null }),
          state: a.phase === 'resolved' ? ('resolved' as const) : ('firing' as const),
          pendingSince: iso(a.pendingSinceMs),
          firingSince: iso(a.firingSinceMs ?? a.pendingSinceMs),
          resolvedAt: a.resolvedAtMs === null ? null : iso(a.resolvedAtMs),
          sentence: a.sentence,
          figures: a.figures,
          link: a.link,
          deliveries: repo.deliveries(a.id).map((d) => {
            const last = repo.attempts(d.id).at(-1);
            return {
              transition: d.transition,
              target: origin(d.targetUrl),
              format: d.format,
              status: d.status,
              attempts: d.attempts,
              lastHttpStatus: last?.httpStatus ?? null,
              lastError: last?.error ?? null,
            };
          }),
        })),
      };
    },

    /** The alerts firing now, by rule and subject (the /metrics gauges). */
    firing: (): { rule: string; subject: string }[] =>
      repo.list({ open: true, limit: 100_000 }).map((a) => ({ rule: a.rule, subject: a.subject })),

    settings(): AlertSettingsResponse {
      const { settings: s, problems } = loadAlertSettings(db);
      return {
        rules: ALERT_RULES.map((rule) => ({
          rule,
          description: ALERT_RULE_DOCS[rule],
          enabled: s.rules[rule].enabled,
          threshold: s.rules[rule].threshold,
          holdMinutes: s.rules[rule].holdMs / 60_000,
        })),
        spotBaselineHours: s.spotBaselineMs / HOUR_MS,
        packingWindowHours: s.packingWindowMs / HOUR_MS,
        unschedulableWindowHours: s.unschedulableWindowMs / HOUR_MS,
        billGapMinAmount: s.billGapMinAmount,
        snapshotIntervalMinutes: s.snapshotIntervalMs / 60_000,
        problems,
      };
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
