import type { DeliveryTarget } from '../db/repositories/alert-repository.js';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BUDGETS_FLAG_HELP, type BudgetsFile, readBudgetsFlag } from './budgets-flag.js';
import { parseCalendarDuration } from '../core/duration.js';
import { isRegionName } from '../core/partitions.js';
import { RetentionSettingError, retentionSettings } from '../core/retention.js';
import { HOUR_MS } from '../core/time.js';
import { acquireCollectorLock, type HeldLock } from '../db/lock.js';
import { openDb } from '../db/open-db.js';
import { createClustersRepository } from '../db/repositories/clusters-repository.js';
import type { CostCollectResult } from '../collectors/cost-explorer/collect.js';
import type { MetricsState } from '../core/usage.js';
import type { RetentionRunRecord } from '../db/repositories/retention-store-repository.js';
import { CollectContext } from './collect/context.js';
import { collectOnce, collectWatch } from './collect/cycle.js';
import { collectClustersOnce, collectClustersWatch } from './collect/clusters.js';
import { placeholderCluster } from './collect/placeholder.js';
import { type ClusterEntry, ClustersFileError, clustersOfContexts, parseClustersFile } from './clusters-file.js';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { readFileSync } from 'node:fs';
import { DEFAULT_DB_PATH } from './default-db-path.js';
import { resolveRetentionSettings, retentionSummary, upgradeToIncrementalVacuum } from './retention-stage.js';
import { UsageError } from './usage-error.js';

export const COLLECT_HELP = `Usage: nodepool-ledger collect --cluster NAME [--region R] [--since 90d] [--watch] [--interval 5m]
                                [--kubeconfig PATH] [--context NAME] [--db .ledger/ledger.db] [--billing-profile P]
                                [--karpenter-version V] [--budgets FILE] [--alert-webhook URL]
                                [--alert-slack-webhook URL] [--dashboard-url URL] [--quiet]

Reads a real cluster and AWS account into the database: a snapshot of the cluster's Nodes, Pods, NodeClaims,
NodePools and Events, and of what Karpenter decides on beyond them (PodDisruptionBudgets, DaemonSets,
PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, EC2NodeClasses, NodeOverlays: a kind the
cluster does not serve or the role does not grant is noted and left out); on-demand (Pricing API) and spot (EC2 spot price history) prices of the instances in use;
and the Cost Explorer bill of the last --since, DAILY per NodePool x purchase type and x instance type, plus
HOURLY and per-instance lines for the last 14 days where the account has them enabled. Cost Explorer days
already final are never requested again (each request costs USD 0.01); a summary ends the run.

Each AWS partition is asked where it answers: Pricing at us-east-1 (ap-south-1 for ap-*, eu-central-1 for eu-*,
cn-northwest-1 for cn-*, in CNY), none in GovCloud (Karpenter's static table prices it); Cost Explorer at
us-east-1, or cn-northwest-1 for China; EC2 in the cluster's region.

  --cluster NAME    the EKS cluster name (its cost is found by the eks:eks-cluster-name or kubernetes.io/cluster/NAME tag)
  --region R        the cluster's region; default $AWS_REGION, else the nodes' topology.kubernetes.io/region label
  --billing-profile P  the AWS profile whose credentials read Cost Explorer (default: the standard chain). A GovCloud
                    account is billed through its associated standard account: without this, collect reads no bill there
  --since 90d       how much of the bill to read (Go-style ms, s, m, h, plus d and w; combined as in 1d12h)
  --watch           keep a watch cache of the cluster and write a snapshot every --interval until Ctrl-C / SIGTERM
                    (the bill is refreshed every 8 h, on-demand prices every 12 h, spot prices hourly); stops with
                    exit code 1 if another collector takes the database over (this one silent for over 2 minutes)
  --interval 5m     time between snapshots with --watch
  --usage-retention 2h
                    how long per-container usage samples and per-node usage (metrics.k8s.io, read with every snapshot) are kept; hourly
                    rollups per workload (what right-sizing reads) are kept with the rest of the history (at least 2h:
                    an hour is rolled up when it is over)
  --hourly-retention 30d
                    how long hourly rows are kept; older ones are folded into one per UTC day (time-weighted: every
                    figure over whole days is unchanged)
  --raw-retention 14d
                    how long 5-minute snapshots (per node, per NodePool and namespace, usage per NodePool and namespace) are kept; older ones
                    are folded into one per UTC hour (time-weighted: every figure over whole hours is unchanged).
                    Stored in the database: later runs without the flag keep it (h, d, w; at least 2h)
  --retention 13mo  how long everything is kept: hourly snapshots, rollups, events, disruptions, bills, CUR rows,
                    prices; older rows are deleted and the file shrinks (mo and y are calendar months). Stored too
  --prometheus URL  also backfill usage history from a Prometheus-compatible HTTP API (its base URL, e.g.
                    http://prometheus.monitoring:9090 or a path prefix): rate(container_cpu_usage_seconds_total[5m])
                    and container_memory_working_set_bytes per namespace/pod/container, at --interval steps, into the
                    hours metrics-server did not measure
  --prometheus-since 14d
                    how much usage history to backfill (once; later runs ask only for what is new)
  --karpenter-version V
                    the Karpenter release the cluster runs (1.14.1), when its controller's image tag cannot be read
                    (Karpenter outside the cluster, an image by digest only); given, it wins over the tag
  --alert-webhook URL
                    POST each alert that fires or resolves (evaluated after every snapshot and bill refresh) to URL as
                    JSON; retried with backoff (5 attempts, 5 s timeout each), every attempt recorded; never delays a
                    snapshot
  --alert-slack-webhook URL
                    the same to a Slack incoming webhook ({"text": ..., "blocks": [...]})
  --dashboard-url URL
                    the dashboard's address, to make the links in delivered alerts absolute
  --kubeconfig P    kubeconfig file; default $KUBECONFIG, else the pod's service account in a cluster, else ~/.kube/config
  --context C       kubeconfig context; repeated (--context A --context B): one cluster per context, each named
                    from its kubeconfig cluster entry (an EKS ARN's last part), collected into the same ledger
  --clusters FILE   several clusters into one ledger (YAML: clusters: [{name, context | inCluster, region, account,
                    profile | roleArn, prometheus}], docs/clusters.md): one stage set per cluster, each with its own
                    error budget (one cluster's failure never stops the others); --cluster is then not needed. A
                    roleArn entry's bill is read as that role (STS AssumeRole with --billing-profile's or the
                    standard chain's credentials, renewed before they expire)
  --db PATH         the database (created if missing)
${BUDGETS_FLAG_HELP}

AWS credentials come from the standard chain (AWS_PROFILE, environment, SSO, web identity, instance or pod role).
Run 'nodepool-ledger doctor --cluster NAME' first: it checks the cost allocation tags, IAM permissions and cluster access.`;

export const COLLECT_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  cluster: { type: 'string' },
  region: { type: 'string' },
  since: { type: 'string' },
  watch: { type: 'boolean' },
  interval: { type: 'string' },
  'usage-retention': { type: 'string' },
  'raw-retention': { type: 'string' },
  'hourly-retention': { type: 'string' },
  retention: { type: 'string' },
  prometheus: { type: 'string' },
  'prometheus-since': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string', multiple: true },
  clusters: { type: 'string' },
  db: { type: 'string' },
  'billing-profile': { type: 'string' },
  'karpenter-version': { type: 'string' },
  budgets: { type: 'string' },
  'alert-webhook': { type: 'string' },
  'alert-slack-webhook': { type: 'string' },
  'dashboard-url': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

export { DEFAULT_DB_PATH };
export { dataSourceOf } from './collect/context.js';
export const USD_PER_COST_EXPLORER_REQUEST = 0.01;

export interface CollectOptions {
  cluster: string;
  /** --clusters FILE or a repeated --context: the clusters collected, one stage set each (cli/collect/clusters.ts). */
  clusters?: ClusterEntry[];
  /** Where they were named: the file, or each context's kubeconfig cluster. */
  clustersFrom?: 'clusters-file' | 'context';
  /** --budgets FILE, read: applied once the lock is held, before collecting. */
  budgets?: BudgetsFile | null;
  region?: string;
  sinceMs: number;
  watch: boolean;
  intervalMs: number;
  /** How long per-container usage samples are kept behind the newest snapshot (default 2 h: until their hour is rolled up). */
  usageRetentionMs?: number;
  /** --raw-retention and --retention as given (absent: the stored settings, else 14d and 13mo). */
  rawRetention?: string;
  /** --hourly-retention as given (absent: the stored setting, else 30d). */
  hourlyRetention?: string;
  retention?: string;
  /** Base URL of a Prometheus-compatible HTTP API to backfill usage history from; absent: none. */
  prometheusUrl?: string;
  /** How much usage history a Prometheus backfill asks for (default 14 days). */
  prometheusSinceMs?: number;
  kubeconfig?: string;
  context?: string;
  dbPath: string;
  quiet: boolean;
  /** The AWS profile for Cost Explorer (GovCloud: the associated standard account's). */
  billingProfile?: string;
  /** Karpenter's release as the user gives it (--karpenter-version); wins over the controller image's tag. */
  karpenterVersion?: string;
  /** Where alert transitions are POSTed (--alert-webhook: generic JSON; --alert-slack-webhook: Slack's); none: recorded only. */
  alertTargets?: DeliveryTarget[];
  /** The dashboard's base URL (--dashboard-url), to make alert links absolute. */
  dashboardUrl?: string;
}

export interface CollectIo {
  /** The collection time; default the wall clock (tests pass the sandbox's clock). */
  now?: () => number;
  /** Summary lines (stdout). */
  out?: (line: string) => void;
  /** Warnings and watch-mode notes (stderr). */
  err?: (line: string) => void;
  /** Ends --watch (SIGINT/SIGTERM in the CLI). */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** How often a stage ran in this invocation and how many of its runs (or steps) failed: its error budget spent. */
export interface StageTally {
  runs: number;
  failures: number;
}

export interface CollectSummary {
  /** True when every stage of every cycle succeeded. */
  ok: boolean;
  /** `stage: message` for each failure. */
  failures: string[];
  /** Per stage (cli/collect/*.ts, by its name): runs and failures. A failing stage never stops the others. */
  stages: Record<string, StageTally>;
  snapshots: number;
  snapshotNodeRows: number;
  costLines: number;
  priceRows: number;
  kubeRequests: number;
  /** The last snapshot's metrics.k8s.io status, and how many pods it reported; null before any snapshot. */
  usage: { state: MetricsState; message: string; pods: number } | null;
  /** Requests sent to the Prometheus API (retries included) and the hourly rollups its backfill wrote. */
  prometheusRequests: number;
  prometheusRollups: number;
  /** `service:Operation` -> HTTP requests sent (retries included). */
  awsRequests: Record<string, number>;
  costExplorerRequests: number;
  costExplorerUsd: number;
  /** Cost Explorer periods in the window already final, so not requested again. */
  finalPeriodsSkipped: number;
  costRuns: CostCollectResult[];
  /** The last retention pass (folds, deletes past the horizon, pages freed); null when none ran. */
  retention: RetentionRunRecord | null;
  seconds: number;
}

type Values = Record<string, string | boolean | string[] | undefined>;

/** --clusters FILE, or two or more --context: the clusters to collect; null: one cluster, as before. */
function clustersOf(v: Values, env: NodeJS.ProcessEnv): ClusterEntry[] | null {
  const contexts = Array.isArray(v.context) ? v.context : typeof v.context === 'string' ? [v.context] : [];
  const file = typeof v.clusters === 'string' ? v.clusters : undefined;
  try {
    if (file !== undefined) {
      if (contexts.length > 0) throw new UsageError("--clusters FILE names each cluster's context: leave --context out");
      return parseClustersFile(file, readFileSync(file, 'utf8'));
    }
    if (contexts.length < 2) return null;
    const kubeconfig = typeof v.kubeconfig === 'string' ? v.kubeconfig : undefined;
    return clustersOfContexts(contexts, (context) => {
      const cluster = createKubeClients({ kubeconfig, context, env }).config.getCurrentCluster();
      return cluster?.name ?? context;
    });
  } catch (err) {
    if (err instanceof ClustersFileError) throw new UsageError(err.message);
    throw err;
  }
}

/** CollectOptions from parsed flags; a missing or malformed flag is a UsageError. */
export function collectOptionsFrom(v: Values, env: NodeJS.ProcessEnv = process.env): CollectOptions {
  const str = (k: string): string | undefined =>
    typeof v[k] === 'string' ? (v[k] as string) : Array.isArray(v[k]) && v[k].length === 1 ? v[k][0] : undefined;
  const clusters = clustersOf(v, env);
  const cluster = str('cluster') ?? (clusters === null ? undefined : clusters.map((c) => c.name).join(','));
  if (!cluster) throw new UsageError('collect needs --cluster NAME (the EKS cluster name), or --clusters FILE');
  const region = str('region');
  if (region !== undefined && !isRegionName(region))
    throw new UsageError(`--region must be an AWS region name like us-east-1, eu-west-1 or cn-north-1, got "${region}"`);
  const duration = (k: string, fallback: string): number => {
    const text = str(k) ?? fallback;
    const ms = parseCalendarDuration(text);
    // A span of whole milliseconds, and more than none: "0s" or "1500us" would make no sense for --since or --interval.
    if (ms === null || !Number.isSafeInteger(ms) || ms <= 0)
      throw new UsageError(`--${k} must be a duration like 90d, 12h, 5m or 30s, got "${text}"`);
    return ms;
  };
  const usageRetentionMs = duration('usage-retention', '2h');
  if (usageRetentionMs < 2 * HOUR_MS)
    throw new UsageError(
      `--usage-retention must be at least 2h (an hour's samples are rolled up once it is over), got "${str('usage-retention')}"`,
    );
  const rawRetention = str('raw-retention');
  const retention = str('retention');
  const hourlyRetention = str('hourly-retention');
  // Checked here against each other (or the default); against the stored settings when the run opens the database.
  try {
    retentionSettings(rawRetention, retention, hourlyRetention);
  } catch (err) {
    if (err instanceof RetentionSettingError) throw new UsageError(err.message);
    throw err;
  }
  const karpenterVersion = str('karpenter-version');
  if (karpenterVersion !== undefined && !/^v?\d+\.\d+\.\d+$/.test(karpenterVersion))
    throw new UsageError(`--karpenter-version must be a Karpenter release like 1.14.1, got "${karpenterVersion}"`);
  const prometheusUrl = str('prometheus');
  if (prometheusUrl !== undefined && !/^https?:\/\/[^/\s]+/.test(prometheusUrl))
    throw new UsageError(`--prometheus must be an http(s) URL such as http://prometheus.monitoring:9090, got "${prometheusUrl}"`);
  const alertTargets: DeliveryTarget[] = [];
  for (const [flag, format] of [
    ['alert-webhook', 'json'],
    ['alert-slack-webhook', 'slack'],
  ] as const) {
    const url = str(flag);
    if (url === undefined) continue;
    if (!/^https?:\/\/[^/\s]+/.test(url)) throw new UsageError(`--${flag} must be an http(s) URL, got "${url}"`);
    alertTargets.push({ url, format });
  }
  const dashboardUrl = str('dashboard-url');
  return {
    cluster,
    ...(clusters === null ? {} : { clusters, clustersFrom: typeof v.clusters === 'string' ? 'clusters-file' : 'context' }),
    region,
    alertTargets,
    ...(dashboardUrl === undefined ? {} : { dashboardUrl }),
    sinceMs: duration('since', '90d'),
    watch: v.watch === true,
    intervalMs: duration('interval', '5m'),
    usageRetentionMs,
    rawRetention,
    hourlyRetention,
    retention,
    prometheusUrl,
    prometheusSinceMs: duration('prometheus-since', '14d'),
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    dbPath: resolve(str('db') ?? DEFAULT_DB_PATH),
    budgets: readBudgetsFlag(str('budgets')),
    quiet: v.quiet === true,
    billingProfile: str('billing-profile'),
    ...(karpenterVersion === undefined ? {} : { karpenterVersion: karpenterVersion.replace(/^v/, '') }),
  };
}

/**
 * Runs `collect`: one cycle of the stages (cli/collect/cycle.ts), or --watch until the signal, then prints and
 * returns the summary.
 */
export async function runCollect(o: CollectOptions, io: CollectIo = {}): Promise<CollectSummary> {
  const startedAt = Date.now();
  mkdirSync(dirname(o.dbPath), { recursive: true });
  const db = openDb({ path: o.dbPath });
  // Ends --watch on the caller's signal, or when the lock is taken over.
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (io.signal?.aborted) stop.abort();
  io.signal?.addEventListener('abort', onSignal, { once: true });
  let ctx: CollectContext | undefined;
  let lock: HeldLock;
  try {
    // One collector per file: a second collect or demo on it is refused with a message naming this one.
    lock = acquireCollectorLock(db, {
      command: o.watch ? 'collect --watch' : 'collect',
      dbPath: o.dbPath,
      onLost: (by) => {
        ctx?.lockLost(by);
        stop.abort();
      },
    });
  } catch (err) {
    io.signal?.removeEventListener('abort', onSignal);
    db.close();
    throw err;
  }
  ctx = new CollectContext(o, db, { ...io, signal: stop.signal }, () => lock.confirm());
  try {
    ctx.retentionSettings = resolveRetentionSettings(db, o);
    if (o.clusters !== undefined) return await collectClusters(ctx, o.clusters, startedAt);
    // The ledger's cluster takes the name collected (a migrated or new ledger's placeholder; docs/clusters.md).
    const named = createClustersRepository(db).nameCollected(
      {
        name: o.cluster,
        namedFrom: 'collect',
        account: null,
        region: o.region ?? null,
        kubeContext: o.context ?? null,
        inCluster: false,
        awsProfile: null,
        roleArn: null,
        prometheusUrl: o.prometheusUrl ?? null,
      },
      Date.now(),
    );
    if (named.note !== null) ctx.err(`collect: ${named.note}`);
    if (o.budgets != null) {
      const { applyBudgetsFile } = await import('./budgets-option.js');
      ctx.out(applyBudgetsFile(db, o.budgets, Date.now()));
    }
    upgradeToIncrementalVacuum(db, o.dbPath, ctx.err);
    if (o.watch) await collectWatch(ctx);
    else await collectOnce(ctx);
    const summary = finish(ctx, startedAt);
    for (const line of formatSummary(summary, o.dbPath)) ctx.out(line);
    return summary;
  } finally {
    io.signal?.removeEventListener('abort', onSignal);
    // The delivery round in flight ends within its timeout; what is still due stays queued for the next run.
    await ctx.alerts.stop();
    ctx.destroy();
    lock.release();
    db.close();
  }
}

/** --clusters: the clusters declared in the ledger (ids), then one stage set each (cli/collect/clusters.ts). */
async function collectClusters(ctx: CollectContext, entries: readonly ClusterEntry[], startedAt: number): Promise<CollectSummary> {
  const placeholderIs = await placeholderCluster(ctx.db, entries, ctx.o.kubeconfig, (line) => ctx.note(line));
  const clusters = createClustersRepository(ctx.db).declare(
    entries.map((e) => ({
      name: e.name,
      namedFrom: ctx.o.clustersFrom ?? 'clusters-file',
      account: e.account,
      region: e.region,
      kubeContext: e.context,
      inCluster: e.inCluster,
      awsProfile: e.profile,
      roleArn: e.roleArn,
      prometheusUrl: e.prometheusUrl,
    })),
    Date.now(),
    placeholderIs === null ? {} : { placeholderIs },
  );
  if (ctx.o.budgets != null) {
    const { applyBudgetsFile } = await import('./budgets-option.js');
    ctx.out(applyBudgetsFile(ctx.db, ctx.o.budgets, Date.now()));
  }
  if (ctx.o.watch) await collectClustersWatch(ctx, clusters);
  else await collectClustersOnce(ctx, clusters);
  const summary = finish(ctx, startedAt);
  for (const line of formatSummary(summary, ctx.o.dbPath)) ctx.out(line);
  return summary;
}

/** The summary's request counts and Cost Explorer's price, once every stage is done. */
function finish(ctx: CollectContext, startedAt: number): CollectSummary {
  const s = ctx.summary;
  s.awsRequests = Object.fromEntries(ctx.counter.entries());
  s.costExplorerRequests = ctx.counter.count('ce');
  s.costExplorerUsd = Math.round(s.costExplorerRequests * USD_PER_COST_EXPLORER_REQUEST * 100) / 100;
  s.seconds = (Date.now() - startedAt) / 1000;
  return s;
}

/** The end-of-run summary: rows written, requests per service, what Cost Explorer cost. */
export function formatSummary(s: CollectSummary, dbPath: string): string[] {
  const lines = [
    `${s.ok ? 'collected' : 'collected with failures'} into ${dbPath} in ${s.seconds.toFixed(1)} s`,
    `rows written: ${s.snapshots} snapshot${s.snapshots === 1 ? '' : 's'} (${s.snapshotNodeRows} node rows), ${s.costLines} Cost Explorer lines, ${s.priceRows} price rows`,
  ];
  const services = new Map<string, number>([['kubernetes', s.kubeRequests]]);
  for (const [key, n] of Object.entries(s.awsRequests)) {
    const service = key.split(':')[0];
    services.set(service, (services.get(service) ?? 0) + n);
  }
  if (s.prometheusRequests > 0) services.set('prometheus', s.prometheusRequests);
  lines.push(`requests: ${[...services].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  if (s.usage !== null)
    lines.push(
      s.usage.state === 'available'
        ? `usage: metrics-server reported ${s.usage.pods} pods at the last snapshot${s.prometheusRollups > 0 ? `; Prometheus backfilled ${s.prometheusRollups} workload-hours` : ''}`
        : `usage: not collected (requests only): ${s.usage.message}`,
    );
  const ops = Object.entries(s.awsRequests).map(([k, n]) => `${k} ${n}`);
  if (ops.length > 0) lines.push(`  by operation: ${ops.join(', ')}`);
  for (const run of s.costRuns) {
    for (const q of run.queries) {
      const what = `${q.granularity} x ${q.groupBy}`.padEnd(22);
      const asked = q.ranges.length === 0 ? 'nothing to ask' : q.ranges.map((r) => `${r.start}..${r.end}`).join(', ');
      lines.push(
        `  ${what} ${String(q.requests).padStart(3)} requests: ${asked}; ${q.finalSkipped} final periods not asked again${q.unavailable ? ' (not available to this account)' : ''}`,
      );
    }
  }
  lines.push(
    `Cost Explorer: ${s.costExplorerRequests} requests x USD ${USD_PER_COST_EXPLORER_REQUEST.toFixed(2)} = USD ${s.costExplorerUsd.toFixed(2)}; ${s.finalPeriodsSkipped} final periods skipped`,
  );
  const retention = s.retention === null ? null : retentionSummary(s.retention);
  if (retention !== null) lines.push(retention);
  for (const f of s.failures) lines.push(`failed: ${f}`);
  return lines;
}
