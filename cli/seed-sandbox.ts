import { createCostExplorerClient } from '../collectors/cost-explorer/client.js';
import { collectCostExplorer } from '../collectors/cost-explorer/collect.js';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { collectUsage, usageNamespaces } from '../collectors/kubernetes/metrics.js';
import { KubeWatchCache } from '../collectors/kubernetes/watch-cache.js';
import { buildSnapshotRows } from '../core/rollup.js';
import { joinSnapshotUsage } from '../core/usage-snapshot.js';
import { DEFAULT_USAGE_RETENTION_MS } from '../db/repositories/usage-repository.js';
import type { Db } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { PriceCollector } from './price-collector.js';
import { ProgressBar } from './progress.js';

export interface SeedOptions {
  db: Db;
  /** Base URL of the sandbox (for its clock endpoint). */
  sandboxUrl: string;
  kubeconfigPath: string;
  clusterName: string;
  region: string;
  startMs: number;
  endMs: number;
  stepMs: number;
  /** The kubeconfig context of the cluster to seed (default: the kubeconfig's current one). */
  context?: string;
  /** The ledger's cluster the snapshots are written as (clusters.id; default 1, the one cluster). */
  clusterId?: number;
  /** false: pull no Cost Explorer bill after the snapshots (a second cluster's: its lines need the cluster key). */
  bill?: boolean;
  /** Silence the progress bar (tests). */
  quiet?: boolean;
  /**
   * Asked before each write: false when this process no longer holds the file's collector lock (it was silent
   * long enough for another collector to take it over); the seeding then stops rather than write beside it.
   */
  confirm?: () => boolean;
  /** How long per-container usage samples are kept (default 2 h behind the newest snapshot). */
  usageRetentionMs?: number;
  /**
   * false: read no metrics.k8s.io usage (snapshots as from a cluster without metrics-server, no status row). Default
   * true, as collect does; tests that never look at usage turn it off, since reading and storing it with every
   * snapshot made seeding about 2x slower (288 snapshots: 14 s without, 30 s with, at load average 11).
   */
  usage?: boolean;
  /** After each snapshot written: how many of this run's snapshots are written, of how many (the demo's banner). */
  onSnapshot?: (written: number, total: number) => void;
  /** Each snapshot's write: how long it took, and how much of it keeping the disruptions current took (npm run bench). */
  onWrite?: (w: { writeMs: number; disruptionsMs: number }) => void;
}

/** The seeding stopped because another collector took the file over. */
import { SeedLockLostError } from './seed-lock-lost.js';

export { SeedLockLostError };

export interface SeedSummary {
  snapshots: number;
  kubeRequests: number;
  costExplorerRequests: number;
  costLines: number;
  priceRows: number;
  seconds: number;
}

/**
 * Moves the sandbox clock; returns the resourceVersion the Kubernetes API is at then. Setting the clock is
 * idempotent, so a connection reset (a kept-alive socket closed by the server as it was reused) is retried.
 */
async function setClock(sandboxUrl: string, t: number, attempt = 1): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${sandboxUrl}/_sandbox/clock`, { method: 'POST', body: JSON.stringify({ time: new Date(t).toISOString() }) });
  } catch (err) {
    if (attempt >= 3) throw err;
    return setClock(sandboxUrl, t, attempt + 1);
  }
  if (!res.ok)
    throw new Error(`the sandbox refused to move its clock to ${new Date(t).toISOString()}: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { resourceVersion: string }).resourceVersion;
}

/**
 * The seeding driver: walks the sandbox clock through the scenario and, at each step, reads the cluster the way
 * `collect --watch` does (a cache kept by Kubernetes watches, caught up to the clock's resourceVersion), prices the
 * markets in use, and writes one snapshot; then pulls the Cost Explorer bill. Resumes after the last stored
 * snapshot if a previous run stopped part way.
 */
export async function seedFromSandbox(o: SeedOptions): Promise<SeedSummary> {
  const startedAt = Date.now();
  let disruptionsMs = 0;
  const kubeRepo = createKubeRepository(o.db, { onDisruptionsRefreshed: (r) => (disruptionsMs += r.ms) });
  const runs = createRunsRepository(o.db);
  const runId = runs.startRun('demo', 'sandbox');
  const k = createKubeClients({ kubeconfig: o.kubeconfigPath, context: o.context });
  const prices = new PriceCollector(o.db, o.region, runId);
  const last = o.clusterId === undefined ? kubeRepo.latestSnapshotAt() : kubeRepo.latestSnapshotAt(o.clusterId);
  const first = last === null ? o.startMs : last + o.stepMs;
  const total = Math.max(0, Math.ceil((o.endMs - first) / o.stepMs));
  const bar = o.quiet ? null : new ProgressBar('snapshots', total);
  let written = 0;
  const cache = new KubeWatchCache(k);
  const usageStats = { requests: 0, restarts: 0 };
  try {
    await setClock(o.sandboxUrl, first);
    await prices.loadOnDemand(first);
    await cache.start();
    for (let t = first, i = 0; t < o.endMs; t += o.stepMs, i++) {
      await cache.waitFor(await setClock(o.sandboxUrl, t));
      const snapshot = cache.snapshot(t);
      // What the pods use then (the sandbox's metrics.k8s.io), as collect reads it with every snapshot.
      const usage = o.usage === false ? null : await collectUsage(k, t, { namespaces: usageNamespaces(snapshot.pods) }, usageStats);
      // Before the rollup: it fills each pod's usage, which AWS split and OpenCost read.
      const usageRows = usage === null ? null : joinSnapshotUsage(snapshot, usage);
      await prices.ensureSpotMarkets(snapshot, t);
      const rows = buildSnapshotRows(
        snapshot,
        (n, at) => prices.quote(n, at),
        (n, at) => prices.onDemandPricePerHour(n, at),
      );
      if (o.confirm?.() === false)
        throw new SeedLockLostError(`another collector took over this database after ${written} snapshots; stopped seeding`);
      disruptionsMs = 0;
      const t0 = performance.now();
      kubeRepo.writeSnapshot({
        snapshot,
        ...rows,
        runId,
        ...(o.clusterId === undefined ? {} : { clusterId: o.clusterId }),
        usage:
          usage === null || usageRows === null
            ? undefined
            : {
                rows: usageRows,
                status: usage.status,
                retentionMs: o.usageRetentionMs ?? DEFAULT_USAGE_RETENTION_MS,
              },
      });
      o.onWrite?.({ writeMs: performance.now() - t0, disruptionsMs });
      written += 1;
      o.onSnapshot?.(written, total);
      if (i % 12 === 0 || t + o.stepMs >= o.endMs) bar?.update(i + 1, `${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods`);
    }
    await setClock(o.sandboxUrl, o.endMs);
    if (o.confirm?.() === false)
      throw new SeedLockLostError(`another collector took over this database after ${written} snapshots; stopped before the bill`);
    const ce =
      o.bill === false
        ? { requests: 0, linesWritten: 0 }
        : await collectCostExplorer(
            { db: o.db, ce: createCostExplorerClient({ region: 'us-east-1' }), clusterName: o.clusterName, now: o.endMs, runId },
            { startMs: o.startMs, endMs: o.endMs },
          );
    runs.finishRun(runId, 'ok', written + ce.linesWritten + prices.rowsWritten);
    return {
      snapshots: written,
      kubeRequests: cache.stats.requests + cache.watchesStarted + usageStats.requests,
      costExplorerRequests: ce.requests,
      costLines: ce.linesWritten,
      priceRows: prices.rowsWritten,
      seconds: (Date.now() - startedAt) / 1000,
    };
  } catch (err) {
    runs.finishRun(runId, 'failed', written, (err as Error).message);
    throw err;
  } finally {
    cache.stop();
  }
}
