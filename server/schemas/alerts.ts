import { Type, type Static } from '@sinclair/typebox';
import { ALERT_RULES } from '../../core/alert-model.js';
import { Nullable } from './common.js';

/**
 * GET /api/alerts: the alerts that fired (open and past), each with the sentence that says why, its figures, the
 * dashboard page and range that explains it, and how its deliveries went; GET /api/alerts/settings: every rule's
 * threshold and hold time. Instants ISO 8601 UTC.
 */

export const AlertRuleSchema = Type.Union(ALERT_RULES.map((r) => Type.Literal(r)));

export const AlertsQuerySchema = Type.Object(
  {
    state: Type.Optional(
      Type.Union([Type.Literal('open'), Type.Literal('all')], {
        description: 'open: firing now; all (default): firing and resolved, newest first.',
      }),
    ),
    rule: Type.Optional(AlertRuleSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many (default 200).' })),
  },
  { additionalProperties: false },
);
export type AlertsQuery = Static<typeof AlertsQuerySchema>;

export const AlertDeliverySchema = Type.Object({
  transition: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  /** The webhook's URL (its path and query left out: a Slack webhook's secret is in its path). */
  target: Type.String(),
  format: Type.Union([Type.Literal('json'), Type.Literal('slack')]),
  /** pending: queued or to be retried; delivered: a 2xx came back; failed: given up after its bound of attempts. */
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  /** The last attempt's HTTP status (null: no answer) and error; null before any attempt. */
  lastHttpStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
});

export const AlertSchema = Type.Object({
  id: Type.Integer(),
  rule: AlertRuleSchema,
  /** What it is about: a NodePool, a budget's figure and threshold (`budget/<name>/spent/0.8`), `collector`, ... */
  subject: Type.String(),
  /**
   * In a ledger of several clusters: the cluster the alert is about (its rule judged that cluster's rows only), null for
   * the ledger-wide rules (budgets, the cost allocation tag). Absent in a one-cluster ledger.
   */
  cluster: Type.Optional(Nullable(Type.String())),
  state: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  /** When the condition was first seen (the hold time runs from here). */
  pendingSince: Type.String(),
  firingSince: Type.String(),
  resolvedAt: Nullable(Type.String()),
  sentence: Type.String(),
  /** The figures in the sentence, by name (units in the names). */
  figures: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()])),
  /** The dashboard page and range that explains it (a path with its query). */
  link: Type.Object({ href: Type.String(), label: Type.String() }),
  deliveries: Type.Array(AlertDeliverySchema),
});
export type AlertView = Static<typeof AlertSchema>;

export const AlertsResponseSchema = Type.Object({
  /** Firing now. */
  open: Type.Integer(),
  alerts: Type.Array(AlertSchema),
});
export type AlertsResponse = Static<typeof AlertsResponseSchema>;

export const AlertRuleSettingsSchema = Type.Object({
  rule: AlertRuleSchema,
  /** What the rule watches and what its threshold means. */
  description: Type.String(),
  enabled: Type.Boolean(),
  threshold: Type.Number(),
  holdMinutes: Type.Number(),
});

export const AlertSettingsResponseSchema = Type.Object({
  rules: Type.Array(AlertRuleSettingsSchema),
  spotBaselineHours: Type.Number(),
  packingWindowHours: Type.Number(),
  unschedulableWindowHours: Type.Number(),
  billGapMinAmount: Type.Number(),
  snapshotIntervalMinutes: Type.Number(),
  /** Stored settings that were ignored (each names its field); [] when all apply. */
  problems: Type.Array(Type.String()),
});
export type AlertSettingsResponse = Static<typeof AlertSettingsResponseSchema>;
