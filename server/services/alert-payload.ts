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
  /**
   * The cluster the alert is about (its EKS cluster name): the ledger's only cluster, or in a ledger of several the
   * cluster whose rows the rule judged; null for a rule about the whole ledger there (a budget, the cost allocation tag).
   * Added with issue 25: absent from payloads queued before.
   */
  cluster: string | null;
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

/**
 * The cluster an alert is about: `name` (null: the whole ledger); `several` when the ledger holds several clusters, and
 * then the words and the link name it (`?cluster=` opens the dashboard on it). One cluster: the words and link as before.
 */
export interface AlertCluster {
  name: string | null;
  several: boolean;
}

/** The link with `cluster=` added (an alert of one cluster in a ledger of several). */
function withCluster(href: string, cluster: AlertCluster): string {
  if (!cluster.several || cluster.name === null) return href;
  return `${href}${href.includes('?') ? '&' : '?'}cluster=${encodeURIComponent(cluster.name)}`;
}

export function alertPayload(
  t: AlertTransition,
  format: DeliveryFormat,
  dashboardUrl?: string,
  cluster: AlertCluster = { name: null, several: false },
): AlertWebhookPayload | SlackPayload {
  const s = t.state;
  const path = withCluster(s.link.href, cluster);
  const href = dashboardUrl === undefined ? path : `${dashboardUrl.replace(/\/+$/, '')}${path}`;
  if (format === 'slack') {
    const head = t.kind === 'firing' ? ':rotating_light: *Firing*' : ':white_check_mark: *Resolved*';
    // Several clusters: the cluster first, so the notification says which ("[FIRING] staging: …"); the whole ledger's as such.
    const about = cluster.several ? `${cluster.name ?? 'all clusters'}: ` : '';
    const text = `${t.kind === 'firing' ? '[FIRING]' : '[RESOLVED]'} ${about}${s.sentence}`;
    const link = dashboardUrl === undefined ? `${s.link.label}: ${href}` : `<${href}|${s.link.label}>`;
    const context = cluster.several ? `${cluster.name ?? 'all clusters'} · ${s.rule}` : s.rule;
    return {
      text,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `${head} ${about}${s.sentence}` } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `${context} · ${s.subject} · ${link}` }] },
      ],
    };
  }
  return {
    version: 1,
    source: 'nodepool-ledger',
    status: t.kind,
    alertId: s.id ?? null,
    rule: s.rule,
    cluster: cluster.name,
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
