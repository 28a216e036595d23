import type { CollectionRun, StatusResponse } from '@schemas/status';
import { ErrorState } from '../../../components/ui/state-message';
import { formatAgo, formatDayShort, formatIsoUtc, formatUtcDateTime } from '../../../lib/format';
import { useStatus } from '../api/use-status';
import { fillText } from '../utils/fill-text';
import { storeText } from '../utils/store-text';

const SOURCE_TEXT: Record<StatusResponse['dataSource'], { badge: string; text: string }> = {
  sandbox: { badge: 'Sandbox', text: 'A simulated cluster and bill, not a real AWS account.' },
  aws: { badge: 'AWS account', text: 'Collected from your cluster and your AWS account.' },
  unknown: { badge: 'No data yet', text: 'No collection has run yet: start the collectors, then reload.' },
};

/** An abandoned run's time is when the next collector found it, not when it stopped (the title gives its message). */
const RUN_STATUS_TEXT: Record<CollectionRun['status'], string> = {
  running: 'running since',
  ok: 'ok',
  failed: 'failed',
  abandoned: 'stopped without finishing (killed?), found',
};

function rangeText(s: StatusResponse): string {
  const parts: string[] = [];
  const { firstSnapshotAt, lastSnapshotAt, firstCostDay, lastCostDay } = s.range;
  if (firstSnapshotAt !== null && lastSnapshotAt !== null) {
    parts.push(`Snapshots ${formatUtcDateTime(Date.parse(firstSnapshotAt))} – ${formatUtcDateTime(Date.parse(lastSnapshotAt))} UTC`);
  }
  if (firstCostDay !== null && lastCostDay !== null) parts.push(`Bill ${formatDayShort(firstCostDay)} – ${formatDayShort(lastCostDay)}`);
  return parts.length === 0 ? 'No snapshots or bill lines stored.' : parts.join(' · ');
}

/** Which partition and currency the prices are in, and where on-demand prices come from; null before any pricing. */
export function pricingText(p: StatusResponse['pricing']): string | null {
  if (p.region === null) return null;
  const from =
    p.pricingEndpoint !== null
      ? `on-demand from the Pricing API (${p.pricingEndpoint})`
      : `no Pricing API here: Karpenter's static table${p.staticTable === null ? '' : ` (${p.staticTable})`}`;
  return `Prices in ${p.currency} · ${p.region} (${p.partition ?? '?'}) · ${from}`;
}

/**
 * Where usage comes from: said once, in the banner, when metrics-server is missing (figures then use requests only),
 * else how many snapshots carried usage and what a Prometheus backfill added.
 */
function UsageNote({ usage }: { usage: StatusResponse['usage'] }) {
  const m = usage.metricsServer;
  if (m === null) return null;
  if (m.state !== 'available')
    return (
      <span className="banner-run is-failed" data-testid="usage-source" title={m.message}>
        Usage not collected (requests only): {m.message}
      </span>
    );
  const p = usage.prometheus;
  return (
    <span className="banner-run" data-testid="usage-source" title={m.message}>
      Usage: metrics-server in {usage.snapshotsWithUsage.toLocaleString('en-US')} of {usage.snapshots.toLocaleString('en-US')} snapshots
      {p === null
        ? ''
        : p.ok
          ? `; Prometheus backfilled ${p.rollupsWritten.toLocaleString('en-US')} workload-hours`
          : '; Prometheus backfill failed'}
    </span>
  );
}

/** A usage source that fails: metrics-server not answering, or the last Prometheus backfill failed. */
const usageFails = (u: StatusResponse['usage']): string | null =>
  u.metricsServer !== null && u.metricsServer.state !== 'available'
    ? `usage not collected (requests only): ${u.metricsServer.message}`
    : u.prometheus !== null && !u.prometheus.ok
      ? `Prometheus backfill failed${u.prometheus.message === null ? '' : `: ${u.prometheus.message}`}`
      : null;

/**
 * Where usage comes from in a ledger of several clusters: each cluster's own source, named when it fails (a
 * one-cluster ledger's banner says it as before, UsageNote); the snapshots with usage over every cluster otherwise.
 */
function ClustersUsageNote({ clusters }: { clusters: StatusResponse['clusters'] }) {
  const usages = clusters.flatMap((c) => (c.usage === undefined ? [] : [{ name: c.name, usage: c.usage }]));
  const failing = usages.flatMap(({ name, usage }) => {
    const why = usageFails(usage);
    return why === null ? [] : [{ name, why, title: usage.metricsServer?.message ?? usage.prometheus?.message ?? undefined }];
  });
  const measured = usages.filter((c) => c.usage.metricsServer !== null);
  const snapshots = measured.reduce((s, c) => s + c.usage.snapshots, 0);
  const withUsage = measured.reduce((s, c) => s + c.usage.snapshotsWithUsage, 0);
  return (
    <>
      {failing.map((f) => (
        <span key={f.name} className="banner-run is-failed" data-testid={`usage-source-${f.name}`} title={f.title}>
          {f.name}: {f.why}
        </span>
      ))}
      {measured.length === 0 || failing.length === measured.length ? null : (
        <span className="banner-run" data-testid="usage-source">
          Usage: metrics-server in {withUsage.toLocaleString('en-US')} of {snapshots.toLocaleString('en-US')} snapshots
        </span>
      )}
    </>
  );
}

/**
 * Each cluster's freshness, said when the ledger holds more than one (a one-cluster ledger's banner is as before):
 * its newest snapshot, and "stale" in red when it is behind the others by more than three of its own cadences.
 */
function ClustersNote({ clusters }: { clusters: StatusResponse['clusters'] }) {
  if (clusters.length < 2) return null;
  return (
    <span className="banner-clusters" data-testid="banner-clusters">
      {clusters.map((c) => {
        const last = c.lastSnapshotAt === null ? 'no snapshot yet' : `last snapshot ${formatIsoUtc(c.lastSnapshotAt)}`;
        const cadence = c.cadenceSeconds === null ? '' : `, every ${Math.round(c.cadenceSeconds / 60)} min`;
        return (
          <span
            key={c.name}
            className={c.stale ? 'banner-run is-failed' : 'banner-run'}
            data-testid={`banner-cluster-${c.name}`}
            title={c.lastRun?.message ?? undefined}
          >
            {c.name}
            {c.stale ? ' is stale' : ''}: {last}
            {cadence}
          </span>
        );
      })}
    </span>
  );
}

/** Where the figures come from (sandbox or a real account), what time they cover, and when they were last collected. */
export function DataSourceBanner() {
  const status = useStatus();
  if (status.isPending) return <div className="banner banner-pending">Reading the data source…</div>;
  if (status.isError)
    return <ErrorState title="Could not read the data source." error={status.error} onRetry={() => void status.refetch()} />;
  const s = status.data;
  const source = SOURCE_TEXT[s.dataSource];
  const run = s.lastRun;
  return (
    <div className={`banner banner-${s.dataSource}`} data-testid="data-source-banner">
      <span className="badge">{source.badge}</span>
      <span className="banner-text">{source.text}</span>
      <span className="banner-range">{rangeText(s)}</span>
      {pricingText(s.pricing) === null ? null : (
        <span className="banner-pricing" data-testid="banner-pricing" title={s.pricing.pricingSkipped ?? undefined}>
          {pricingText(s.pricing)}
        </span>
      )}
      {run === null ? null : (
        <span
          className={run.status === 'failed' || run.status === 'abandoned' ? 'banner-run is-failed' : 'banner-run'}
          title={run.message ?? undefined}
        >
          Last collection: {run.kind} {RUN_STATUS_TEXT[run.status]}, {formatIsoUtc(run.finishedAt ?? run.startedAt)} (
          {formatAgo(run.finishedAt ?? run.startedAt, Date.now())})
        </span>
      )}
      {fillText(s.fill) === null ? null : (
        <span className={s.fill?.stage === 'failed' ? 'banner-run is-failed' : 'banner-run'} data-testid="banner-fill">
          {fillText(s.fill)}
        </span>
      )}
      <ClustersNote clusters={s.clusters} />
      {s.clusters.length < 2 ? <UsageNote usage={s.usage} /> : <ClustersUsageNote clusters={s.clusters} />}
      <span
        className={s.store.lastRun?.error != null ? 'banner-run is-failed' : 'banner-run'}
        data-testid="banner-store"
        title={
          s.store.lastRun === null
            ? undefined
            : `Last retention pass ${formatIsoUtc(s.store.lastRun.at)}: folded ${s.store.lastRun.folded}, ${s.store.lastRun.pending} left; longest transaction ${s.store.lastRun.longestTransactionMs.toFixed(1)} ms`
        }
      >
        {storeText(s.store)}
      </span>
    </div>
  );
}
