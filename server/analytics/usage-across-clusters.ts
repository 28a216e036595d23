import type { UsageStatus } from '../schemas/status.js';

/**
 * /api/status's top-level `usage` of a ledger holding several clusters (pure): every cluster's usage status summed up,
 * so the top level never speaks for the first cluster alone. metrics-server: the worst state of the clusters' (the
 * message naming each cluster whose metrics-server does not answer, with its own message), checked at the newest;
 * snapshots counted over all; Prometheus: ok only when every cluster's backfill that ran is, its message naming the
 * failing clusters, requests and rows added; `failing` lists the clusters whose usage source fails.
 */

type MetricsState = NonNullable<UsageStatus['metricsServer']>['state'];
/** Worst first: what the top level says when the clusters differ. */
const WORST_FIRST: readonly MetricsState[] = ['failed', 'forbidden', 'unavailable', 'absent', 'available'];

export interface ClusterUsage {
  name: string;
  usage: UsageStatus;
}

const maxIso = (xs: readonly (string | null)[]): string | null =>
  xs.reduce<string | null>((a, x) => (x !== null && (a === null || x > a) ? x : a), null);
const minIso = (xs: readonly string[]): string | null => xs.reduce<string | null>((a, x) => (a === null || x < a ? x : a), null);

export function usageAcrossClusters(clusters: readonly ClusterUsage[]): UsageStatus {
  const metrics = clusters.flatMap((c) => (c.usage.metricsServer === null ? [] : [{ name: c.name, m: c.usage.metricsServer }]));
  const worst = WORST_FIRST.find((s) => metrics.some((x) => x.m.state === s));
  const notAnswering = metrics.filter((x) => x.m.state !== 'available');
  const metricsServer =
    worst === undefined
      ? null
      : {
          state: worst,
          message:
            notAnswering.length === 0
              ? `metrics-server answered in every cluster (${metrics.map((x) => x.name).join(', ')}).`
              : notAnswering.map((x) => `${x.name}: ${x.m.message}`).join(' '),
          checkedAt: maxIso(metrics.map((x) => x.m.checkedAt)) ?? '',
        };

  const backfills = clusters.flatMap((c) => (c.usage.prometheus === null ? [] : [{ name: c.name, p: c.usage.prometheus }]));
  const failed = backfills.filter((x) => !x.p.ok);
  const newest = backfills.reduce<(typeof backfills)[number] | null>((a, x) => (a === null || x.p.at > a.p.at ? x : a), null);
  const shown = failed[0] ?? newest;
  const prometheus =
    shown === null
      ? null
      : {
          url: shown.p.url,
          ok: failed.length === 0,
          message: failed.length === 0 ? shown.p.message : failed.map((x) => `${x.name}: ${x.p.message ?? 'failed'}`).join(' '),
          at: maxIso(backfills.map((x) => x.p.at)) ?? shown.p.at,
          from: minIso(backfills.map((x) => x.p.from)) ?? shown.p.from,
          to: maxIso(backfills.map((x) => x.p.to)) ?? shown.p.to,
          requests: backfills.reduce((s, x) => s + x.p.requests, 0),
          series: backfills.reduce((s, x) => s + x.p.series, 0),
          rollupsWritten: backfills.reduce((s, x) => s + x.p.rollupsWritten, 0),
        };

  const failing = new Set([...notAnswering.map((x) => x.name), ...failed.map((x) => x.name)]);
  return {
    metricsServer,
    snapshots: clusters.reduce((s, c) => s + c.usage.snapshots, 0),
    snapshotsWithUsage: clusters.reduce((s, c) => s + c.usage.snapshotsWithUsage, 0),
    lastUsageAt: maxIso(clusters.map((c) => c.usage.lastUsageAt)),
    prometheus,
    failing: clusters.map((c) => c.name).filter((n) => failing.has(n)),
  };
}
