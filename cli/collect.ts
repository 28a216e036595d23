import type { DeliveryTarget } from '../db/repositories/alert-repository.js';
import { createAlertStage, type AlertStage } from '../server/services/alert-stage.js';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { AwsRequestCounter } from '../collectors/aws-request-counter.js';
import { checkCostAllocationTags, chooseClusterTag } from '../collectors/cost-explorer/allocation-tags.js';
import { createCostExplorerClient } from '../collectors/cost-explorer/client.js';
import { collectCostExplorer, type CostCollectResult } from '../collectors/cost-explorer/collect.js';
import { kubeErrorText } from '../collectors/kubernetes/api-error.js';
import { createKubeClients, type KubeClients } from '../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../collectors/kubernetes/collect.js';
import { collectUsage, usageNamespaces } from '../collectors/kubernetes/metrics.js';
import { createPrometheusClient } from '../collectors/prometheus/client.js';
import { backfillPrometheus } from '../collectors/prometheus/collect.js';
import type { ListStats } from '../collectors/kubernetes/list-all.js';
import { KubeWatchCache } from '../collectors/kubernetes/watch-cache.js';
import { createPricingClient } from '../collectors/pricing/client.js';
import { createEc2Client } from '../collectors/spot/client.js';
import { TAG_NODEPOOL } from '../core/labels.js';
import type { KubeSnapshot } from '../core/model.js';
import { isRegionName, type RegionFacts, regionFacts } from '../core/partitions.js';
import { buildSnapshotRows } from '../core/rollup.js';
import type { MetricsState, SnapshotUsage } from '../core/usage.js';
import { joinSnapshotUsage } from '../core/usage-snapshot.js';
import { DEFAULT_USAGE_RETENTION_MS } from '../db/repositories/usage-repository.js';
import { acquireCollectorLock, DEFAULT_STALE_MS, type HeldLock } from '../db/lock.js';
import { type Db, openDb } from '../db/open-db.js';
import { createApiRequestsRepository } from '../db/repositories/api-requests-repository.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { createPricesRepository } from '../db/repositories/prices-repository.js';
import type { LockHolder } from '../db/repositories/lock-repository.js';
import { ALLOCATION_TAGS_SETTING, createRunsRepository, type RunSource } from '../db/repositories/runs-repository.js';
import { DEFAULT_DB_PATH } from './default-db-path.js';
import { PriceCollector } from './price-collector.js';
import { ProgressBar } from './progress.js';
import { UsageError } from './usage-error.js';
import { parseCalendarDuration } from '../core/duration.js';
import { RetentionSettingError, retentionSettings, type RetentionSettings } from '../core/retention.js';
import type { RetentionRunRecord } from '../db/repositories/retention-store-repository.js';
import { resolveRetentionSettings, retentionSummary, runRetentionPass, upgradeToIncrementalVacuum } from './retention-stage.js';
import { DAY_MS, HOUR_MS } from '../core/time.js';

export const COLLECT_HELP = `Usage: nodepool-ledger collect --cluster NAME [--region R] [--since 90d] [--watch] [--interval 5m]
                                [--kubeconfig PATH] [--context NAME] [--db .ledger/ledger.db] [--billing-profile P]
                                [--karpenter-version V] [--alert-webhook URL] [--alert-slack-webhook URL]
                                [--dashboard-url URL] [--quiet]

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
  --usage-retention 3d
                    how long per-container usage samples (metrics.k8s.io, read with every snapshot) are kept; hourly
                    rollups per workload are kept for good (at least 2h: an hour is rolled up when it is over)
  --raw-retention 14d
                    how long 5-minute snapshots (per node, per NodePool and namespace, usage) are kept; older ones
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
  --context C       kubeconfig context
  --db PATH         the database (created if missing)

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
  retention: { type: 'string' },
  prometheus: { type: 'string' },
  'prometheus-since': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  db: { type: 'string' },
  'billing-profile': { type: 'string' },
  'karpenter-version': { type: 'string' },
  'alert-webhook': { type: 'string' },
  'alert-slack-webhook': { type: 'string' },
  'dashboard-url': { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

export { DEFAULT_DB_PATH };
/** Cost Explorer refreshes the bill a few times a day: asking more often only costs requests. */
const CE_REFRESH_MS = 8 * HOUR_MS;
/** Karpenter refreshes on-demand prices every 12 h. */
const ON_DEMAND_REFRESH_MS = 12 * HOUR_MS;
/** The most a retention pass takes at once (a backlog, e.g. after an upgrade, is folded over several passes). */
const RETENTION_BUDGET_MS = 60_000;
/** An account that refused HOURLY or per-instance data is asked again after this long (it may have opted in). */
const OPT_IN_RETRY_MS = DAY_MS;
export const USD_PER_COST_EXPLORER_REQUEST = 0.01;

export interface CollectOptions {
  cluster: string;
  region?: string;
  sinceMs: number;
  watch: boolean;
  intervalMs: number;
  /** How long per-container usage samples are kept behind the newest snapshot (default 3 days). */
  usageRetentionMs?: number;
  /** --raw-retention and --retention as given (absent: the stored settings, else 14d and 13mo). */
  rawRetention?: string;
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

export interface CollectSummary {
  /** True when every stage of every cycle succeeded. */
  ok: boolean;
  /** `stage: message` for each failure. */
  failures: string[];
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

type Values = Record<string, string | boolean | undefined>;

/** CollectOptions from parsed flags; a missing or malformed flag is a UsageError. */
export function collectOptionsFrom(v: Values): CollectOptions {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const cluster = str('cluster');
  if (!cluster) throw new UsageError('collect needs --cluster NAME (the EKS cluster name)');
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
  const usageRetentionMs = duration('usage-retention', '3d');
  if (usageRetentionMs < 2 * HOUR_MS)
    throw new UsageError(
      `--usage-retention must be at least 2h (an hour's samples are rolled up once it is over), got "${str('usage-retention')}"`,
    );
  const rawRetention = str('raw-retention');
  const retention = str('retention');
  // Checked here against each other (or the default); against the stored settings when the run opens the database.
  try {
    retentionSettings(rawRetention, retention);
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
    region,
    alertTargets,
    ...(dashboardUrl === undefined ? {} : { dashboardUrl }),
    sinceMs: duration('since', '90d'),
    watch: v.watch === true,
    intervalMs: duration('interval', '5m'),
    usageRetentionMs,
    rawRetention,
    retention,
    prometheusUrl,
    prometheusSinceMs: duration('prometheus-since', '14d'),
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    dbPath: resolve(str('db') ?? DEFAULT_DB_PATH),
    quiet: v.quiet === true,
    billingProfile: str('billing-profile'),
    ...(karpenterVersion === undefined ? {} : { karpenterVersion: karpenterVersion.replace(/^v/, '') }),
  };
}

/** 'sandbox' when the AWS endpoints were pointed at this machine (the sandbox or a test endpoint), else 'aws'. */
export function dataSourceOf(env: NodeJS.ProcessEnv): RunSource {
  const local = Object.entries(env).some(
    ([k, val]) => k.startsWith('AWS_ENDPOINT_URL') && /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(val ?? ''),
  );
  return local ? 'sandbox' : 'aws';
}

const errorText = (err: unknown): string =>
  err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err);

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((done) => {
    if (signal?.aborted) return done();
    const finish = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      done();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener('abort', finish, { once: true });
  });

/** Everything one `collect` invocation shares across its stages. */
class Collection {
  readonly summary: CollectSummary = {
    ok: true,
    failures: [],
    snapshots: 0,
    snapshotNodeRows: 0,
    costLines: 0,
    priceRows: 0,
    kubeRequests: 0,
    usage: null,
    prometheusRequests: 0,
    prometheusRollups: 0,
    awsRequests: {},
    costExplorerRequests: 0,
    costExplorerUsd: 0,
    finalPeriodsSkipped: 0,
    costRuns: [],
    retention: null,
    seconds: 0,
  };
  readonly counter = new AwsRequestCounter();
  private ceClient: CostExplorerClient | null = null;
  readonly source: RunSource;
  readonly now: () => number;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  private prices: PriceCollector | null = null;
  private readonly awsClients: { destroy(): void }[] = [];
  private pricingRun: { id: number; failure: string | null } | null = null;
  private region: string | undefined;
  private lastOnDemandAt = -Infinity;
  /** Notes said once per run (why no Pricing call, why no bill). */
  private readonly said = new Set<string>();
  private lastMetricsState: MetricsState | null = null;
  /** Retention settings, resolved once the database is held (runCollect). */
  retentionSettings: RetentionSettings | null = null;

  /**
   * @param stillHeld true while the collector lock is this process's (checked before each write: a collector taken
   *   over stops rather than write alongside the one that took over).
   */
  constructor(
    readonly o: CollectOptions,
    readonly db: Db,
    readonly io: CollectIo,
    private readonly stillHeld: () => boolean = () => true,
  ) {
    this.now = io.now ?? Date.now;
    this.out = io.out ?? ((l) => console.log(l));
    this.err = io.err ?? ((l) => console.error(l));
    const env = io.env ?? process.env;
    this.source = dataSourceOf(env);
    this.region = o.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    this.alerts = createAlertStage(db, {
      targets: o.alertTargets ?? [],
      ...(o.dashboardUrl === undefined ? {} : { dashboardUrl: o.dashboardUrl }),
      snapshotIntervalMs: o.intervalMs,
      log: (line) => this.err(line),
    });
  }

  /** Alert evaluation after each snapshot and bill refresh (server/services/alert-stage.ts); delivery off this path. */
  readonly alerts: AlertStage;

  /** Says a note on stderr once per run. */
  private note(line: string): void {
    if (this.said.has(line)) return;
    this.said.add(line);
    this.err(line);
  }

  /** The partition facts of the cluster's region, once known (a malformed $AWS_REGION is a usage error). */
  private facts(): RegionFacts | null {
    if (this.region === undefined) return null;
    if (!isRegionName(this.region))
      throw new UsageError(`the cluster's region "${this.region}" is not an AWS region name: pass --region (like us-east-1)`);
    return regionFacts(this.region);
  }

  /**
   * Refuses to mix currencies in one file: a database holding USD amounts cannot take a China cluster's CNY ones
   * (nor the other way), since every sum over it would add them.
   */
  checkCurrency(facts: RegionFacts): void {
    const stored = createPricesRepository(this.db).storedCurrencies();
    const other = stored.filter((c) => c !== facts.currency);
    if (other.length > 0)
      throw new UsageError(
        `${this.o.dbPath} holds amounts in ${other.join(', ')}; cluster ${this.o.cluster} in ${facts.region} (${facts.partition}) is priced in ${facts.currency}: use another --db (amounts in two currencies are never added up)`,
      );
  }

  /**
   * The Cost Explorer client where the partition keeps the bill: us-east-1 (aws), cn-northwest-1 (aws-cn), the
   * associated standard account's us-east-1 for GovCloud (its credentials from --billing-profile). The region the
   * SDK is given picks the endpoint; AWS_ENDPOINT_URL_COST_EXPLORER still overrides it.
   */
  private ce(facts: RegionFacts | null): CostExplorerClient {
    if (this.ceClient) return this.ceClient;
    const profile = this.o.billingProfile;
    const client = createCostExplorerClient({ region: facts?.costExplorer.region, ...(profile !== undefined ? { profile } : {}) });
    this.ceClient = this.counter.attach(client, 'ce');
    return this.ceClient;
  }

  /** Records a failed stage; Kubernetes failures name the kubeconfig, context and server that were tried. */
  fail(stage: string, err: unknown, k?: KubeClients): void {
    const message = k ? `${stage}: ${kubeErrorText(err)} (${k.describe})` : `${stage}: ${errorText(err)}`;
    this.summary.ok = false;
    this.summary.failures.push(message);
    this.err(`✗ ${message}`);
  }

  /** The lock was taken over (this process silent past the stale limit, or thought gone): a failure that ends the run. */
  lockLost(by: LockHolder | null): void {
    const who = by ? `"${by.command}" (pid ${by.pid} on ${by.hostname})` : 'another collector';
    this.fail(
      'collector lock',
      new Error(
        `taken over by ${who}; stopping so that one collector writes ${this.o.dbPath} ` +
          `(this process was silent over ${DEFAULT_STALE_MS / 1000} s, e.g. suspended, or its process was thought gone)`,
      ),
    );
  }

  /** The price source, created once the region is known (from the flag, the environment or the nodes). */
  private priceCollector(nodes: KubeSnapshot['nodes']): PriceCollector {
    if (this.prices) return this.prices;
    const region = this.region ?? nodes.map((n) => n.labels['topology.kubernetes.io/region']).find((r) => r !== undefined);
    if (!region)
      throw new UsageError(
        "cannot tell the cluster's region (no --region, no $AWS_REGION, no topology.kubernetes.io/region label on the nodes): pass --region",
      );
    this.region = region;
    const facts = this.facts();
    if (facts === null) throw new Error('unreachable: the region was just set');
    this.checkCurrency(facts);
    const runs = createRunsRepository(this.db);
    const runId = runs.startRun('pricing', this.source);
    this.pricingRun = { id: runId, failure: null };
    const ec2 = this.counter.attach(createEc2Client({ region }), 'ec2');
    this.awsClients.push(ec2);
    let pricing;
    if (facts.pricing.region !== null) {
      // The Pricing API allows about 5 requests a second: adaptive retries also slow the client down after throttling.
      pricing = this.counter.attach(createPricingClient({ region: facts.pricing.region, retryMode: 'adaptive' }), 'pricing');
      this.awsClients.push(pricing);
    }
    this.prices = new PriceCollector(this.db, region, runId, { pricing, ec2 });
    const table = this.prices.staticTable;
    const tableText = table
      ? `Karpenter's static table (${table.region}, ${table.currency})`
      : 'no static table (Karpenter ships none for this partition)';
    if (facts.pricing.region === null)
      this.note(`no Pricing API call in ${region}: ${facts.pricing.why}; on-demand prices from ${tableText}`);
    return this.prices;
  }

  /**
   * Prices the snapshot's nodes and writes it, in one transaction. Price failures are reported and the snapshot
   * is still written with the last good prices (or Karpenter's static table).
   */
  async writeSnapshot(snapshot: KubeSnapshot, runId: number, usage: SnapshotUsage | null = null): Promise<void> {
    this.noteKinds(snapshot);
    const prices = this.priceCollector(snapshot.nodes);
    const before = prices.rowsWritten;
    const failed = (what: string, err: unknown): void => {
      if (this.pricingRun) this.pricingRun.failure = errorText(err);
      this.fail(what, err);
    };
    // On-demand and spot apart: a Pricing API that refuses (or is down) must not cost the spot markets their prices.
    try {
      if (snapshot.takenAt - this.lastOnDemandAt >= ON_DEMAND_REFRESH_MS) {
        await prices.loadOnDemand(snapshot.takenAt);
        this.lastOnDemandAt = snapshot.takenAt;
      }
    } catch (err) {
      const table = prices.staticTable;
      failed(`prices: on-demand (the last stored prices${table ? ` or Karpenter's static table (${table.region})` : ''} are used)`, err);
    }
    try {
      await prices.ensureSpotMarkets(snapshot, snapshot.takenAt);
    } catch (err) {
      failed('prices: spot (the last stored history, else the on-demand price, is used)', err);
    }
    this.summary.priceRows += prices.rowsWritten - before;
    // Before the rollups: it fills each pod's usage, which AWS split and OpenCost take as max(request, usage).
    const usageRows = usage === null ? null : joinSnapshotUsage(snapshot, usage);
    const rows = buildSnapshotRows(
      snapshot,
      (n, at) => prices.quote(n, at),
      (n, at) => prices.onDemandPricePerHour(n, at),
    );
    createKubeRepository(this.db).writeSnapshot({
      snapshot,
      ...rows,
      runId,
      usage:
        usage === null || usageRows === null
          ? undefined
          : { rows: usageRows, status: usage.status, retentionMs: this.o.usageRetentionMs ?? DEFAULT_USAGE_RETENTION_MS },
    });
    if (usage !== null && usageRows !== null) this.noteUsage(usage, usageRows.podsWithUsage);
    this.summary.snapshots += 1;
    this.alerts.evaluateAlerts(snapshot.takenAt);
    this.summary.snapshotNodeRows += rows.nodes.length;
  }

  /**
   * Says once per run which kinds the snapshot could not read (the CRD absent, the role lacking them), and when
   * Karpenter's version is not readable; --karpenter-version, when given, is the version stored.
   */
  private noteKinds(snapshot: KubeSnapshot): void {
    for (const state of Object.values(snapshot.kinds ?? {}))
      if (state.state !== 'ok')
        this.note(`! ${state.message} (the rest of the snapshot is kept; 'nodepool-ledger doctor' checks them all)`);
    if (this.o.karpenterVersion !== undefined) snapshot.karpenterVersion = { version: this.o.karpenterVersion, source: 'flag' };
    else if (snapshot.karpenterVersion === undefined)
      this.note(
        "! Karpenter's version: no running pod's image is a tagged karpenter/controller (Karpenter outside the cluster, or an image by digest); pass --karpenter-version",
      );
  }

  /** Says once when usage cannot be read (and once when it can again), not at every snapshot. */
  private noteUsage(usage: SnapshotUsage, pods: number): void {
    const { state, message } = usage.status;
    this.summary.usage = { state, message, pods };
    if (state !== this.lastMetricsState) {
      if (state !== 'available') this.err(`! usage: ${message}`);
      else if (this.lastMetricsState !== null) this.err(`usage: metrics-server answers again (${pods} pods)`);
    }
    this.lastMetricsState = state;
  }

  /** What pods use now (metrics.k8s.io), read right after the snapshot's lists; its requests count as Kubernetes ones. */
  private async usageAt(k: KubeClients, snapshot: KubeSnapshot): Promise<SnapshotUsage> {
    const stats: ListStats = { requests: 0, restarts: 0 };
    try {
      return await collectUsage(k, snapshot.takenAt, { namespaces: usageNamespaces(snapshot.pods) }, stats);
    } finally {
      this.summary.kubeRequests += stats.requests;
    }
  }

  /**
   * Usage history from a Prometheus-compatible API (--prometheus): the closed hours of --prometheus-since not asked
   * for before, in one transaction; a failure writes nothing, is reported, and the next run asks again.
   */
  async prometheus(): Promise<void> {
    const url = this.o.prometheusUrl;
    if (url === undefined || !this.stillHeld()) return;
    const runs = createRunsRepository(this.db);
    const runId = runs.startRun('prometheus', this.source);
    const client = createPrometheusClient({ url });
    const bar = this.o.quiet ? null : new ProgressBar('prometheus', 1);
    try {
      const result = await backfillPrometheus({
        db: this.db,
        client,
        now: this.now(),
        stepMs: this.o.intervalMs,
        sinceMs: this.o.prometheusSinceMs ?? 14 * DAY_MS,
        runId,
        onChunk: (done, total) => bar?.update(done / total, `${done}/${total} chunks of ${client.url}`),
      });
      bar?.update(1, result.upToDate ? 'up to date' : `${result.series} series, ${result.rollupsWritten} workload-hours`);
      this.summary.prometheusRollups += result.rollupsWritten;
      runs.finishRun(runId, 'ok', result.rollupsWritten);
    } catch (err) {
      runs.finishRun(runId, 'failed', 0, errorText(err));
      this.fail('prometheus (nothing written)', err);
    } finally {
      this.summary.prometheusRequests += client.attempts();
    }
  }

  /**
   * Retention (cli/retention-stage.ts): folds, deletes and vacuums for up to `budgetMs`, between snapshots, one short
   * transaction at a time; what is left is done by the next pass.
   */
  async retention(budgetMs: number): Promise<void> {
    if (this.retentionSettings === null || !this.stillHeld()) return;
    const r = await runRetentionPass(this.db, this.retentionSettings, { now: this.now(), budgetMs });
    this.summary.retention = r;
    if (r.error !== null) this.fail('retention (each step its own transaction: the file stays sound)', new Error(r.error));
  }

  /** Cost allocation tags, then the bill; HOURLY and per-instance data unless the account refused them lately. */
  async costExplorer(): Promise<void> {
    if (!this.stillHeld()) return;
    const facts = this.facts();
    if (facts?.costExplorer.otherAccount === true && this.o.billingProfile === undefined) {
      // Not a failure: the bill is in another account, which these credentials cannot read. Estimates go on.
      this.note(
        `! no bill read for ${facts.region}: ${facts.costExplorer.note}; pass --billing-profile <profile of that account> to read it (estimates are collected meanwhile)`,
      );
      return;
    }
    if (facts) this.checkCurrency(facts);
    const ce = this.ce(facts);
    const runs = createRunsRepository(this.db);
    const requests = createApiRequestsRepository(this.db);
    const runId = runs.startRun('cost-explorer', this.source);
    const now = this.now();
    try {
      const tags = await checkCostAllocationTags(ce, this.o.cluster, {
        onRequest: () => requests.recordApiRequest({ runId, at: now, service: 'ce', operation: 'ListCostAllocationTags' }),
      });
      const choice = chooseClusterTag(this.o.cluster, tags);
      // Kept for "explain this bill": a line can only be split by NodePool while the tag is active.
      runs.setSetting(ALLOCATION_TAGS_SETTING, JSON.stringify({ active: tags.active, inactive: tags.inactive, checkedAt: now }));
      if (!tags.active.includes(TAG_NODEPOOL)) {
        this.err(
          `! ${TAG_NODEPOOL} is not an active cost allocation tag: all cost shows as untagged until it is activated (run 'nodepool-ledger doctor')`,
        );
      }
      if (!choice.active) {
        this.err(
          `! neither eks:eks-cluster-name nor kubernetes.io/cluster/${this.o.cluster} is an active cost allocation tag: the bill filtered by cluster will be empty (run 'nodepool-ledger doctor')`,
        );
      }
      const refused = (key: string): boolean => {
        const at = runs.getSetting(key);
        return at !== null && now - Number(at) < OPT_IN_RETRY_MS;
      };
      const queries = 2 + (refused('ce.hourly.refusedAt') ? 0 : 1) + (refused('ce.resources.refusedAt') ? 0 : 1);
      const bar = this.o.quiet ? null : new ProgressBar('cost explorer', queries);
      const labels: string[] = [];
      const result = await collectCostExplorer(
        {
          db: this.db,
          ce,
          currency: facts?.currency ?? 'USD',
          clusterName: this.o.cluster,
          now,
          runId,
          clusterTag: choice.tag,
          hourly: !refused('ce.hourly.refusedAt'),
          resources: !refused('ce.resources.refusedAt'),
          onRequest: ({ query, page }) => {
            if (!labels.includes(query)) labels.push(query);
            bar?.update(labels.length - 1, `${query} page ${page}`);
          },
        },
        { startMs: now - this.o.sinceMs, endMs: now },
      );
      bar?.update(queries, 'done');
      for (const q of result.queries) {
        if (q.unavailable === undefined) continue;
        const what = q.granularity === 'HOURLY' ? 'hourly' : 'resources';
        runs.setSetting(`ce.${what}.refusedAt`, String(now));
        this.err(
          `! ${q.api} ${q.granularity} x ${q.groupBy} is not available to this account (${q.unavailable}); DAILY lines are kept, asked again in 24 h`,
        );
      }
      this.summary.costRuns.push(result);
      this.summary.costLines += result.linesWritten;
      this.summary.finalPeriodsSkipped += result.queries.reduce((s, q) => s + q.finalSkipped, 0);
      runs.finishRun(runId, 'ok', result.linesWritten);
      this.alerts.evaluateAlerts(this.now());
    } catch (err) {
      runs.finishRun(runId, 'failed', 0, errorText(err));
      this.fail('cost explorer', err);
    }
  }

  /** One snapshot from paged lists. */
  async kubeOnce(): Promise<void> {
    const runs = createRunsRepository(this.db);
    const runId = runs.startRun('kubernetes', this.source);
    let k: KubeClients | undefined;
    const stats: ListStats = { requests: 0, restarts: 0 };
    const bar = this.o.quiet ? null : new ProgressBar('kubernetes', 1);
    const ticker = bar ? setInterval(() => bar.update(0, `${stats.requests} list pages`), 500) : null;
    try {
      k = createKubeClients({ kubeconfig: this.o.kubeconfig, context: this.o.context, env: this.io.env });
      const snapshot = await collectKubeSnapshot(k, this.now(), { withEvents: true }, stats);
      const usage = await this.usageAt(k, snapshot);
      if (ticker) clearInterval(ticker);
      bar?.update(1, `${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods in ${stats.requests} list pages`);
      await this.writeSnapshot(snapshot, runId, usage);
      runs.finishRun(runId, 'ok', 1);
    } catch (err) {
      runs.finishRun(runId, 'failed', 0, errorText(err));
      this.fail('kubernetes', err, k);
    } finally {
      if (ticker) clearInterval(ticker);
      this.summary.kubeRequests += stats.requests;
    }
  }

  /** A watch cache and a snapshot every interval, until the signal; the bill and prices on their own schedules. */
  async watch(): Promise<void> {
    const runs = createRunsRepository(this.db);
    const runId = runs.startRun('kubernetes', this.source);
    let k: KubeClients | undefined;
    let cache: KubeWatchCache | undefined;
    let nextCostAt = -Infinity;
    let lastTakenAt = -Infinity;
    let prometheusDone = false;
    try {
      k = createKubeClients({ kubeconfig: this.o.kubeconfig, context: this.o.context, env: this.io.env });
      const describe = k.describe;
      cache = new KubeWatchCache(k, {
        onError: (resource, e) => this.err(`! watch ${resource}: ${errorText(e)} (${describe}); re-watching`),
      });
      await cache.start();
      this.err(`watching ${describe}; a snapshot every ${this.o.intervalMs / 1000} s until Ctrl-C`);
      while (!this.io.signal?.aborted) {
        const t = this.now();
        if (!this.stillHeld()) break;
        if (t > lastTakenAt) {
          try {
            const snapshot = cache.snapshot(t);
            await this.writeSnapshot(snapshot, runId, await this.usageAt(k, snapshot));
            lastTakenAt = t;
            if (!this.o.quiet)
              this.err(`snapshot ${new Date(t).toISOString()}: ${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods`);
          } catch (err) {
            this.fail(`snapshot at ${new Date(t).toISOString()} (nothing written)`, err);
            this.alerts.evaluateAlerts(t); // a collector failing snapshot after snapshot is what collector-stale is for
          }
        }
        if (!prometheusDone) {
          await this.prometheus();
          prometheusDone = true;
        }
        if (t >= nextCostAt) {
          await this.costExplorer();
          nextCostAt = t + CE_REFRESH_MS;
        }
        // Right after the snapshot, so it is done (or paused) well before the next one is due.
        await this.retention(Math.min(this.o.intervalMs / 2, RETENTION_BUDGET_MS));
        await sleep(this.o.intervalMs, this.io.signal);
      }
      runs.finishRun(runId, this.summary.ok ? 'ok' : 'failed', this.summary.snapshots, this.summary.failures.join('; ') || null);
    } catch (err) {
      runs.finishRun(runId, 'failed', this.summary.snapshots, errorText(err));
      this.fail('kubernetes', err, k);
    } finally {
      cache?.stop();
      if (cache) this.summary.kubeRequests += cache.stats.requests + cache.watchesStarted;
    }
  }

  destroy(): void {
    this.ceClient?.destroy();
    for (const client of this.awsClients) client.destroy();
  }

  finish(startedAt: number): CollectSummary {
    const s = this.summary;
    if (this.pricingRun) {
      createRunsRepository(this.db).finishRun(
        this.pricingRun.id,
        this.pricingRun.failure === null ? 'ok' : 'failed',
        s.priceRows,
        this.pricingRun.failure,
      );
    }
    s.awsRequests = Object.fromEntries(this.counter.entries());
    s.costExplorerRequests = this.counter.count('ce');
    s.costExplorerUsd = Math.round(s.costExplorerRequests * USD_PER_COST_EXPLORER_REQUEST * 100) / 100;
    s.seconds = (Date.now() - startedAt) / 1000;
    return s;
  }
}

/** Runs `collect`: one pass (or --watch until the signal), then prints and returns the summary. */
export async function runCollect(o: CollectOptions, io: CollectIo = {}): Promise<CollectSummary> {
  const startedAt = Date.now();
  mkdirSync(dirname(o.dbPath), { recursive: true });
  const db = openDb({ path: o.dbPath });
  // Ends --watch on the caller's signal, or when the lock is taken over.
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (io.signal?.aborted) stop.abort();
  io.signal?.addEventListener('abort', onSignal, { once: true });
  let c: Collection | undefined;
  let lock: HeldLock;
  try {
    // One collector per file: a second collect or demo on it is refused with a message naming this one.
    lock = acquireCollectorLock(db, {
      command: o.watch ? 'collect --watch' : 'collect',
      dbPath: o.dbPath,
      onLost: (by) => {
        c?.lockLost(by);
        stop.abort();
      },
    });
  } catch (err) {
    io.signal?.removeEventListener('abort', onSignal);
    db.close();
    throw err;
  }
  c = new Collection(o, db, { ...io, signal: stop.signal }, () => lock.confirm());
  try {
    c.retentionSettings = resolveRetentionSettings(db, o);
    upgradeToIncrementalVacuum(db, o.dbPath, c.err);
    if (o.watch) await c.watch();
    else {
      await c.kubeOnce();
      await c.prometheus();
      await c.costExplorer();
      await c.retention(RETENTION_BUDGET_MS);
    }
    return report(c, startedAt);
  } finally {
    io.signal?.removeEventListener('abort', onSignal);
    // The delivery round in flight ends within its timeout; what is still due stays queued for the next run.
    await c.alerts.stop();
    c.destroy();
    lock.release();
    db.close();
  }
}

function report(c: Collection, startedAt: number): CollectSummary {
  const summary = c.finish(startedAt);
  for (const line of formatSummary(summary, c.o.dbPath)) c.out(line);
  return summary;
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
