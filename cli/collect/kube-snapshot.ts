import type { KubeClients } from '../../collectors/kubernetes/client.js';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import type { ListStats } from '../../collectors/kubernetes/list-all.js';
import { collectUsage, usageNamespaces } from '../../collectors/kubernetes/metrics.js';
import { KubeWatchCache } from '../../collectors/kubernetes/watch-cache.js';
import type { KubeSnapshot } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import type { MetricsState, SnapshotUsage } from '../../core/usage.js';
import { joinSnapshotUsage } from '../../core/usage-snapshot.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { DEFAULT_USAGE_RETENTION_MS } from '../../db/repositories/usage-repository.js';
import { ProgressBar } from '../progress.js';
import { type CollectContext, errorText } from './context.js';
import type { PricesStage } from './prices.js';
import type { Stage } from './stage.js';

/*
 * The Kubernetes snapshot stage: the cluster's objects (paged lists once, or a watch cache with --watch) and what
 * its pods use (metrics.k8s.io), priced by the prices stage and written in one transaction. Its cadence: once, or
 * at each new clock time with --watch.
 */
const NAME = 'kube-snapshot';

/** Writes a snapshot with its prices and usage, and says once what it could not read. */
class SnapshotWriter {
  private lastMetricsState: MetricsState | null = null;

  constructor(
    private readonly ctx: CollectContext,
    private readonly prices: PricesStage,
  ) {}

  /**
   * Prices the snapshot's nodes and writes it, in one transaction. Price failures are reported and the snapshot
   * is still written with the last good prices (or Karpenter's static table).
   */
  async write(snapshot: KubeSnapshot, runId: number, usage: SnapshotUsage | null = null): Promise<void> {
    const { ctx } = this;
    this.noteKinds(snapshot);
    const prices = await this.prices.priceSnapshot(snapshot);
    // Before the rollups: it fills each pod's usage, which AWS split and OpenCost take as max(request, usage).
    const usageRows = usage === null ? null : joinSnapshotUsage(snapshot, usage);
    const rows = buildSnapshotRows(
      snapshot,
      (n, at) => prices.quote(n, at),
      (n, at) => prices.onDemandPricePerHour(n, at),
    );
    createKubeRepository(ctx.db).writeSnapshot({
      snapshot,
      ...rows,
      runId,
      clusterId: ctx.clusterId,
      usage:
        usage === null || usageRows === null
          ? undefined
          : { rows: usageRows, status: usage.status, retentionMs: ctx.o.usageRetentionMs ?? DEFAULT_USAGE_RETENTION_MS },
    });
    if (usage !== null && usageRows !== null) this.noteUsage(usage, usageRows.podsWithUsage);
    ctx.summary.snapshots += 1;
    ctx.alerts.evaluateAlerts(snapshot.takenAt);
    ctx.summary.snapshotNodeRows += rows.nodes.length;
  }

  /** What pods use now (metrics.k8s.io), read right after the snapshot's lists; its requests count as Kubernetes ones. */
  async usageAt(k: KubeClients, snapshot: KubeSnapshot): Promise<SnapshotUsage> {
    const stats: ListStats = { requests: 0, restarts: 0 };
    try {
      return await collectUsage(k, snapshot.takenAt, { namespaces: usageNamespaces(snapshot.pods) }, stats);
    } finally {
      this.ctx.summary.kubeRequests += stats.requests;
    }
  }

  /**
   * Says once per run which kinds the snapshot could not read (the CRD absent, the role lacking them), and when
   * Karpenter's version is not readable; --karpenter-version, when given, is the version stored.
   */
  private noteKinds(snapshot: KubeSnapshot): void {
    for (const state of Object.values(snapshot.kinds ?? {}))
      if (state.state !== 'ok')
        this.ctx.note(`! ${state.message} (the rest of the snapshot is kept; 'nodepool-ledger doctor' checks them all)`);
    if (this.ctx.o.karpenterVersion !== undefined) snapshot.karpenterVersion = { version: this.ctx.o.karpenterVersion, source: 'flag' };
    else if (snapshot.karpenterVersion === undefined)
      this.ctx.note(
        "! Karpenter's version: no running pod's image is a tagged karpenter/controller (Karpenter outside the cluster, or an image by digest); pass --karpenter-version",
      );
  }

  /** Says once when usage cannot be read (and once when it can again), not at every snapshot. */
  private noteUsage(usage: SnapshotUsage, pods: number): void {
    const { state, message } = usage.status;
    this.ctx.summary.usage = { state, message, pods };
    if (state !== this.lastMetricsState) {
      if (state !== 'available') this.ctx.err(`! usage: ${message}`);
      else if (this.lastMetricsState !== null) this.ctx.err(`usage: metrics-server answers again (${pods} pods)`);
    }
    this.lastMetricsState = state;
  }
}

/** One snapshot from paged lists (collect without --watch): its own 'kubernetes' run. */
export function kubeListStage(ctx: CollectContext, prices: PricesStage): Stage {
  const writer = new SnapshotWriter(ctx, prices);
  return {
    name: NAME,
    due: () => true,
    async run() {
      const runs = createRunsRepository(ctx.db);
      const runId = runs.startRun('kubernetes', ctx.source, Date.now(), ctx.clusterId);
      let k: KubeClients | undefined;
      const stats: ListStats = { requests: 0, restarts: 0 };
      const bar = ctx.o.quiet ? null : new ProgressBar('kubernetes', 1);
      const ticker = bar ? setInterval(() => bar.update(0, `${stats.requests} list pages`), 500) : null;
      try {
        k = createKubeClients({ kubeconfig: ctx.o.kubeconfig, context: ctx.o.context, env: ctx.io.env });
        const snapshot = await collectKubeSnapshot(k, ctx.now(), { withEvents: true }, stats);
        const usage = ctx.withUsage ? await writer.usageAt(k, snapshot) : null;
        if (ticker) clearInterval(ticker);
        bar?.update(1, `${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods in ${stats.requests} list pages`);
        await writer.write(snapshot, runId, usage);
        runs.finishRun(runId, 'ok', 1);
      } catch (err) {
        runs.finishRun(runId, 'failed', 0, errorText(err));
        ctx.fail(NAME, 'kubernetes', err, k);
      } finally {
        if (ticker) clearInterval(ticker);
        ctx.summary.kubeRequests += stats.requests;
      }
    },
  };
}

/**
 * The --watch variant: a watch cache started once (`start`), a snapshot from it at each new clock time (a failed
 * one is tried again at the next cycle), and one 'kubernetes' run over the whole watch (opened when the stage is made, closed by `finished` or
 * `failed`).
 */
export class KubeWatchStage implements Stage {
  readonly name = NAME;
  private readonly writer: SnapshotWriter;
  private readonly runId: number;
  private k: KubeClients | undefined;
  private cache: KubeWatchCache | undefined;
  private lastTakenAt = -Infinity;

  constructor(
    private readonly ctx: CollectContext,
    prices: PricesStage,
  ) {
    this.writer = new SnapshotWriter(ctx, prices);
    this.runId = createRunsRepository(ctx.db).startRun('kubernetes', ctx.source, Date.now(), ctx.clusterId);
  }

  /** Starts the watches; throws when the cluster cannot be watched (see `failed`). */
  async start(): Promise<void> {
    const { ctx } = this;
    this.k = createKubeClients({ kubeconfig: ctx.o.kubeconfig, context: ctx.o.context, env: ctx.io.env });
    const describe = this.k.describe;
    this.cache = new KubeWatchCache(this.k, {
      onError: (resource, e) => ctx.err(`! watch ${resource}: ${errorText(e)} (${describe}); re-watching`),
    });
    await this.cache.start();
    ctx.err(`watching ${describe}; a snapshot every ${ctx.o.intervalMs / 1000} s until Ctrl-C`);
  }

  due(t: number): boolean {
    return t > this.lastTakenAt;
  }

  async run(t: number): Promise<void> {
    const { ctx, cache, k } = this;
    if (!cache || !k) return;
    try {
      const snapshot = cache.snapshot(t);
      await this.writer.write(snapshot, this.runId, ctx.withUsage ? await this.writer.usageAt(k, snapshot) : null);
      cache.specsStored(snapshot); // in pod_specs now: the cached pods keep their specs' hashes alone
      this.lastTakenAt = t;
      if (!ctx.o.quiet) ctx.err(`snapshot ${new Date(t).toISOString()}: ${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods`);
    } catch (err) {
      ctx.fail(NAME, `snapshot at ${new Date(t).toISOString()} (nothing written)`, err);
      ctx.alerts.evaluateAlerts(t); // a collector failing snapshot after snapshot is what collector-stale is for
    }
  }

  /** The watch ended (signal or lock lost): its run closed with every stage's failures. */
  finished(): void {
    const s = this.ctx.summary;
    createRunsRepository(this.ctx.db).finishRun(this.runId, s.ok ? 'ok' : 'failed', s.snapshots, s.failures.join('; ') || null);
  }

  /** The watch could not go on (or start): recorded as a 'kubernetes' failure naming the cluster tried. */
  failed(err: unknown): void {
    createRunsRepository(this.ctx.db).finishRun(this.runId, 'failed', this.ctx.summary.snapshots, errorText(err));
    this.ctx.fail(NAME, 'kubernetes', err, this.k);
  }

  /** Stops the watches and counts their requests. */
  stop(): void {
    this.cache?.stop();
    if (this.cache) this.ctx.summary.kubeRequests += this.cache.stats.requests + this.cache.watchesStarted;
  }
}
