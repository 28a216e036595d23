import { AwsRequestCounter } from '../../collectors/aws-request-counter.js';
import { kubeErrorText } from '../../collectors/kubernetes/api-error.js';
import type { KubeClients } from '../../collectors/kubernetes/client.js';
import { isRegionName, type RegionFacts, regionFacts } from '../../core/partitions.js';
import type { RetentionSettings } from '../../core/retention.js';
import { DEFAULT_STALE_MS } from '../../db/lock.js';
import type { Db } from '../../db/open-db.js';
import type { LockHolder } from '../../db/repositories/lock-repository.js';
import { createPricesRepository } from '../../db/repositories/prices-repository.js';
import type { RunSource } from '../../db/repositories/runs-repository.js';
import { createAlertStage, type AlertStage } from '../../server/services/alert-stage.js';
import { budgetStatusesAt } from '../../server/services/budget-service.js';
import { UsageError } from '../usage-error.js';
import type { CollectIo, CollectOptions, CollectSummary } from '../collect.js';

export const errorText = (err: unknown): string =>
  err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err);

/** 'sandbox' when the AWS endpoints were pointed at this machine (the sandbox or a test endpoint), else 'aws'. */
export function dataSourceOf(env: NodeJS.ProcessEnv): RunSource {
  const local = Object.entries(env).some(
    ([k, val]) => k.startsWith('AWS_ENDPOINT_URL') && /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(val ?? ''),
  );
  return local ? 'sandbox' : 'aws';
}

export function emptySummary(): CollectSummary {
  return {
    ok: true,
    failures: [],
    stages: {},
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
}

/**
 * What one `collect` invocation's stages share: the options, the database, the output, the summary they add to,
 * the AWS request counter and the SDK clients to close, the cluster's region (from the flag, the environment or,
 * once a snapshot has nodes, their labels), and the collector lock.
 */
export class CollectContext {
  readonly summary: CollectSummary;
  readonly counter: AwsRequestCounter = new AwsRequestCounter();
  readonly source: RunSource;
  readonly now: () => number;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** The cluster's region, once known; the prices stage sets it from the nodes' labels when no flag or env gave it. */
  region: string | undefined;
  /** Retention settings, resolved once the database is held (runCollect). */
  retentionSettings: RetentionSettings | null = null;
  private readonly awsClients: { destroy(): void }[] = [];
  /** Notes said once per run (why no Pricing call, why no bill). */
  private readonly said = new Set<string>();
  /** Alert evaluation after each snapshot and bill refresh (server/services/alert-stage.ts); delivery off this path. */
  readonly alerts: AlertStage;
  /** The cluster the snapshot stage writes (clusters.id): 1, a one-cluster ledger's, unless a clusters file said. */
  clusterId = 1;
  /** Whether snapshots carry what pods use (metrics.k8s.io), written under clusterId. */
  withUsage = true;

  /**
   * @param stillHeld true while the collector lock is this process's (checked before each write: a collector taken
   *   over stops rather than write alongside the one that took over).
   */
  constructor(
    readonly o: CollectOptions,
    readonly db: Db,
    readonly io: CollectIo,
    readonly stillHeld: () => boolean = () => true,
    /** A cluster's context of a `--clusters` run shares the run's alert stage and AWS request counter. */
    shared?: { alerts: AlertStage; counter: AwsRequestCounter },
  ) {
    this.summary = emptySummary();
    this.now = io.now ?? Date.now;
    this.out = io.out ?? ((l) => console.log(l));
    this.err = io.err ?? ((l) => console.error(l));
    const env = io.env ?? process.env;
    this.source = dataSourceOf(env);
    this.region = o.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (shared !== undefined) {
      this.alerts = shared.alerts;
      this.counter = shared.counter;
      return;
    }
    this.alerts = createAlertStage(db, {
      targets: o.alertTargets ?? [],
      ...(o.dashboardUrl === undefined ? {} : { dashboardUrl: o.dashboardUrl }),
      snapshotIntervalMs: o.intervalMs,
      budgetStatuses: budgetStatusesAt,
      log: (line) => this.err(line),
    });
  }

  /** Says a note on stderr once per run. */
  note(line: string): void {
    if (this.said.has(line)) return;
    this.said.add(line);
    this.err(line);
  }

  /** The partition facts of the cluster's region, once known (a malformed $AWS_REGION is a usage error). */
  facts(): RegionFacts | null {
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

  /** An SDK client to destroy when the run ends. */
  keep<T extends { destroy(): void }>(client: T): T {
    this.awsClients.push(client);
    return client;
  }

  /**
   * Records a failure of `stage` (its count in summary.stages) as `label: message`; Kubernetes failures name the
   * kubeconfig, context and server that were tried.
   */
  fail(stage: string, label: string, err: unknown, k?: KubeClients): void {
    const message = k ? `${label}: ${kubeErrorText(err)} (${k.describe})` : `${label}: ${errorText(err)}`;
    this.summary.ok = false;
    this.summary.failures.push(message);
    const tally = (this.summary.stages[stage] ??= { runs: 0, failures: 0 });
    tally.failures += 1;
    this.err(`✗ ${message}`);
  }

  /** The lock was taken over (this process silent past the stale limit, or thought gone): a failure that ends the run. */
  lockLost(by: LockHolder | null): void {
    const who = by ? `"${by.command}" (pid ${by.pid} on ${by.hostname})` : 'another collector';
    this.fail(
      'collector-lock',
      'collector lock',
      new Error(
        `taken over by ${who}; stopping so that one collector writes ${this.o.dbPath} ` +
          `(this process was silent over ${DEFAULT_STALE_MS / 1000} s, e.g. suspended, or its process was thought gone)`,
      ),
    );
  }

  destroy(): void {
    for (const client of this.awsClients) client.destroy();
  }
}
