import type { Cluster } from '../../db/repositories/clusters-repository.js';
import type { CollectSummary } from '../collect.js';
import { CollectContext } from './context.js';
import { costExplorerStages } from './cost-explorer-account.js';
import { KubeWatchStage, kubeListStage } from './kube-snapshot.js';
import { PricesStage } from './prices.js';
import { prometheusStage } from './prometheus.js';
import { retentionStage } from './retention.js';
import { runDueStages, runDueStagesBounded, sleep, type Stage } from './stage.js';

/*
 * `collect --clusters FILE` (or a repeated --context): one stage set per cluster, each with its own context (its
 * kubeconfig context, region, summary: its own error budget) writing its own cluster_id; prices once per region
 * (one PricesStage shared by the region's clusters); Cost Explorer once per account (cost-explorer-account.ts);
 * the ledger's retention once. Each cluster's snapshot carries its pods' usage (metrics.k8s.io), its hours rolled up
 * on their own, and its entry's `prometheus` backfills that cluster's usage history. A cluster whose API server
 * fails records its failure in its own summary; the others' stages still run.
 */

const RETENTION_BUDGET_MS = 60_000;

/**
 * Accounts whose Cost Explorer is read at once. Each account's requests are a few paged sequences, each a round trip
 * to us-east-1 per page: one after another, ten accounts wait ten times as long. A few at once, not all: Cost
 * Explorer throttles per account, but one run's requests are counted and logged together.
 */
export const ACCOUNTS_AT_ONCE = 3;

/** One cluster's context: the run's options with that cluster's name, context and region; the run's alerts and counter. */
export function clusterContext(run: CollectContext, c: Cluster, kubeconfig: string | undefined): CollectContext {
  const o = {
    ...run.o,
    cluster: c.name,
    context: c.kubeContext ?? undefined,
    kubeconfig: c.inCluster ? undefined : kubeconfig,
    region: c.region ?? run.o.region,
    // The entry's own Prometheus (a repeated --context has none: one --prometheus cannot be several clusters').
    prometheusUrl: c.prometheusUrl ?? undefined,
  };
  const ctx = new CollectContext(o, run.db, run.io, run.stillHeld, { alerts: run.alerts, counter: run.counter });
  ctx.clusterId = c.id;
  ctx.retentionSettings = run.retentionSettings;
  return ctx;
}

/** Adds each cluster's summary into the run's: stages as `cluster/stage`, failures as `cluster: failure`. */
export function mergeClusterSummaries(into: CollectSummary, parts: readonly { name: string; summary: CollectSummary }[]): void {
  for (const { name, summary: s } of parts) {
    if (!s.ok) into.ok = false;
    for (const f of s.failures) into.failures.push(`${name}: ${f}`);
    for (const [stage, tally] of Object.entries(s.stages)) into.stages[`${name}/${stage}`] = tally;
    into.snapshots += s.snapshots;
    into.snapshotNodeRows += s.snapshotNodeRows;
    into.priceRows += s.priceRows;
    into.kubeRequests += s.kubeRequests;
    into.costLines += s.costLines;
    into.costRuns.push(...s.costRuns);
    into.prometheusRequests += s.prometheusRequests;
    into.prometheusRollups += s.prometheusRollups;
    // The run's usage line: the last cluster whose metrics-server did not answer, else the last that did.
    if (s.usage !== null && (into.usage === null || into.usage.state === 'available')) into.usage = s.usage;
  }
}

interface ClusterSet {
  cluster: Cluster;
  ctx: CollectContext;
  prices: PricesStage;
}

/**
 * Each cluster's context, and its region's PricesStage: the price book is per region, so the clusters of a region
 * share one (created with the region's first cluster, whose summary counts its runs and failures). A cluster whose
 * region is not known yet (no entry, no flag) has its own until its nodes tell.
 */
function clusterSets(run: CollectContext, clusters: readonly Cluster[]): ClusterSet[] {
  const byRegion = new Map<string, PricesStage>();
  return clusters.map((cluster) => {
    const ctx = clusterContext(run, cluster, run.o.kubeconfig);
    const region = ctx.region;
    let prices = region === undefined ? undefined : byRegion.get(region);
    if (prices === undefined) {
      prices = new PricesStage(ctx);
      if (region !== undefined) byRegion.set(region, prices);
    }
    return { cluster, ctx, prices };
  });
}

function finishSets(run: CollectContext, sets: readonly ClusterSet[]): void {
  for (const p of new Set(sets.map((s) => s.prices))) p.finish();
  for (const s of sets) s.ctx.destroy();
  mergeClusterSummaries(
    run.summary,
    sets.map((s) => ({ name: s.cluster.name, summary: s.ctx.summary })),
  );
}

/** collect --clusters without --watch: each cluster's snapshot once, then the ledger's retention. */
export async function collectClustersOnce(run: CollectContext, clusters: readonly Cluster[]): Promise<void> {
  const sets = clusterSets(run, clusters);
  try {
    for (const s of sets) await runDueStages(s.ctx, [kubeListStage(s.ctx, s.prices), prometheusStage(s.ctx)], run.now());
    await runDueStagesBounded(run, costExplorerStages(run, sets), run.now(), ACCOUNTS_AT_ONCE);
    await runDueStages(run, [retentionStage(run, RETENTION_BUDGET_MS)], run.now());
  } finally {
    finishSets(run, sets);
  }
}

/**
 * collect --clusters --watch: a watch cache per cluster (one that cannot start is recorded as its failure and left
 * out; the others go on), a snapshot of each every --interval, the ledger's retention after them.
 */
export async function collectClustersWatch(run: CollectContext, clusters: readonly Cluster[]): Promise<void> {
  const sets = clusterSets(run, clusters);
  const watching: { set: ClusterSet; kube: KubeWatchStage }[] = [];
  try {
    for (const set of sets) {
      const kube = new KubeWatchStage(set.ctx, set.prices);
      try {
        await kube.start();
        watching.push({ set, kube });
      } catch (err) {
        kube.failed(err);
        kube.stop();
      }
    }
    const bill = costExplorerStages(run, sets);
    // Each cluster's Prometheus backfill (once a run, as with one cluster), a cluster whose watch failed included.
    const backfills = sets.map((set) => ({ set, stage: prometheusStage(set.ctx) }));
    const retention: Stage = retentionStage(run, Math.min(run.o.intervalMs / 2, RETENTION_BUDGET_MS));
    while (!run.io.signal?.aborted && run.stillHeld()) {
      const t = run.now();
      for (const w of watching) await runDueStages(w.set.ctx, [w.kube], t);
      for (const b of backfills) await runDueStages(b.set.ctx, [b.stage], t);
      await runDueStagesBounded(run, bill, t, ACCOUNTS_AT_ONCE);
      await runDueStages(run, [retention], t);
      await sleep(run.o.intervalMs, run.io.signal);
    }
    for (const w of watching) w.kube.finished();
  } finally {
    for (const w of watching) w.kube.stop();
    finishSets(run, sets);
  }
}
