import { parseArgs } from 'node:util';
import { createKubeClients } from '../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../collectors/kubernetes/collect.js';
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
  options: { kubeconfig: { type: 'string' }, db: { type: 'string' }, region: { type: 'string', default: 'us-east-1' } },
});

async function main(): Promise<void> {
  if (!values.kubeconfig || !values.db) throw new Error('usage: collect-process --kubeconfig PATH --db PATH');
  const t0 = performance.now();
  const k = createKubeClients({ kubeconfig: values.kubeconfig });
  const db = openDb({ path: values.db });
  const prices = PriceBook.fromDb(db, values.region ?? 'us-east-1', staticTableFor(values.region ?? 'us-east-1'));
  const stats = { requests: 0, restarts: 0 };
  const takenAt = Date.now();
  const snapshot = await collectKubeSnapshot(k, takenAt, { withEvents: true }, stats);
  const t1 = performance.now();
  const rows = buildSnapshotRows(snapshot, (n, at) => prices.price(n, at) ?? { pricePerHour: 0, currency: 'USD', source: 'unknown' });
  const t2 = performance.now();
  createKubeRepository(db).writeSnapshot({ snapshot, ...rows, runId: null });
  db.close();
  const t3 = performance.now();
  console.log(
    JSON.stringify({
      totalMs: t3 - t0,
      listMs: t1 - t0,
      rollupMs: t2 - t1,
      writeMs: t3 - t2,
      nodes: snapshot.nodes.length,
      pods: snapshot.pods.length,
      requests: stats.requests,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
