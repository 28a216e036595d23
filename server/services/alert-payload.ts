import type { AlertTransition } from '../../core/alert-model.js';
import type { DeliveryFormat } from '../../db/repositories/alert-repository.js';

/** The generic webhook's body: one transition of one alert (version 1; fields only added, never renamed). */
export interface AlertWebhookPayload {
  version: 1;
  source: 'nodepool-ledger';
  /** firing: the condition has held for the rule's hold time; resolved: it no longer holds. */
  status: 'firing' | 'resolved';
  alertId: number | null;
  rule: string;
  subject: string;
  sentence: string;
  figures: Record<string, number | string>;
  /** ISO 8601 UTC. */
  at: string;
  pendingSince: string;
  firingSince: string | null;
  resolvedAt: string | null;
  /** The dashboard page and range that explain it; absolute when the dashboard's URL is known. */
  link: { href: string; label: string };
}

/** A Slack incoming webhook's body: `text` (the notification and fallback) and blocks with the same words. */
export interface SlackPayload {
  text: string;
  blocks: (
    { type: 'section'; text: { type: 'mrkdwn'; text: string } } | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
  )[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function alertPayload(t: AlertTransition, format: DeliveryFormat, dashboardUrl?: string): AlertWebhookPayload | SlackPayload {
  const s = t.state;
  const href = dashboardUrl === undefined ? s.link.href : `${dashboardUrl.replace(/\/+$/, '')}${s.link.href}`;
  if (format === 'slack') {
    const head = t.kind === 'firing' ? ':rotating_light: *Firing*' : ':white_check_mark: *Resolved*';
    const text = `${t.kind === 'firing' ? '[FIRING]' : '[RESOLVED]'} ${s.sentence}`;
    const link = dashboardUrl === undefined ? `${s.link.label}: ${href}` : `<${href}|${s.link.label}>`;
    return {
      text,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `${head} ${s.sentence}` } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `${s.rule} · ${s.subject} · ${link}` }] },
      ],
    };
  }
  return {
    version: 1,
    source: 'nodepool-ledger',
    status: t.kind,
    alertId: s.id ?? null,
    rule: s.rule,
    subject: s.subject,
    sentence: s.sentence,
    figures: s.figures,
    at: new Date(t.atMs).toISOString(),
    pendingSince: new Date(s.pendingSinceMs).toISOString(),
    firingSince: iso(s.firingSinceMs),
    resolvedAt: iso(s.resolvedAtMs),
    link: { href, label: s.link.label },
  };
}
