import { parseArgs } from 'node:util';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../collectors/kubernetes/collect.js';
import { collectUsage, usageNamespaces } from '../collectors/kubernetes/metrics.js';
import { joinSnapshotUsage } from '../core/usage-snapshot.js';
import { DEFAULT_USAGE_RETENTION_MS } from '../db/repositories/usage-repository.js';
import { buildSnapshotRows } from '../core/rollup.js';
import { staticTableFor } from '../core/static-prices.js';
import { openDb } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { PriceBook } from '../db/repositories/price-book.js';

/**
 * One full collector snapshot into SQLite, as `collect` takes it: list nodes, pods, NodeClaims, NodePools,
 * namespaces and events through @kubernetes/client-node, build the rollups, write it in one transaction.
 * Run as its own process so its peak RSS is its own; prints one JSON line with the phases' times.
 */

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    db: { type: 'string' },
    region: { type: 'string', default: 'us-east-1' },
    // Also read PodMetrics and NodeMetrics (metrics.k8s.io) and store the usage, as collect does.
    usage: { type: 'boolean', default: false },
    // List only nodes, pods, NodeClaims, NodePools, namespaces and events: none of the extra kinds (kinds.ts).
    'no-extra-kinds': { type: 'boolean', default: false },
  },
});

async function main(): Promise<void> {
  if (!values.kubeconfig || !values.db) throw new Error('usage: collect-process --kubeconfig PATH --db PATH');
  const t0 = performance.now();
  const k = createKubeClients({ kubeconfig: values.kubeconfig });
  const db = openDb({ path: values.db });
  const prices = PriceBook.fromDb(db, values.region ?? 'us-east-1', staticTableFor(values.region ?? 'us-east-1'));
  const stats = { requests: 0, restarts: 0 };
  const takenAt = Date.now();
  const snapshot = await collectKubeSnapshot(k, takenAt, { withEvents: true, extraKinds: !values['no-extra-kinds'] }, stats);
  const usage = values.usage ? await collectUsage(k, takenAt, { namespaces: usageNamespaces(snapshot.pods) }, stats) : null;
  if (usage !== null && usage.status.state !== 'available') throw new Error(`metrics.k8s.io: ${usage.status.message}`);
  const t1 = performance.now();
  const usageRows = usage === null ? null : joinSnapshotUsage(snapshot, usage);
  const rows = buildSnapshotRows(snapshot, (n, at) => prices.price(n, at) ?? { pricePerHour: 0, currency: 'USD', source: 'unknown' });
  const t2 = performance.now();
  createKubeRepository(db).writeSnapshot({
    snapshot,
    ...rows,
    runId: null,
    usage:
      usage === null || usageRows === null ? undefined : { rows: usageRows, status: usage.status, retentionMs: DEFAULT_USAGE_RETENTION_MS },
  });
  db.close();
  const t3 = performance.now();
  console.log(
    JSON.stringify({
      totalMs: t3 - t0,
      listMs: t1 - t0,
      rollupMs: t2 - t1,
      writeMs: t3 - t2,
      nodes: snapshot.nodes.length,
      objects: snapshot.objects?.length ?? 0,
      pods: snapshot.pods.length,
      podMetrics: usage?.pods.length ?? 0,
      usageSamples: usageRows?.sampleCount ?? 0,
      requests: stats.requests,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
