import { parseArgs } from 'node:util';
import { runCollect } from '../cli/collect.js';
import type { ClusterEntry } from '../cli/clusters-file.js';
import { HOUR_MS } from '../core/time.js';

/**
 * One `collect` (no --watch) as the CLI runs it (runCollect: snapshot, prices, the bill, retention), of one cluster
 * (`--contexts` of one) or of several into one ledger (two or more: --clusters), against
 * bench/clusters-sandbox-process.ts. Its own process, so its peak RSS is its own; prints one JSON line.
 */

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    db: { type: 'string' },
    // name=context,name=context…
    clusters: { type: 'string' },
    region: { type: 'string', default: 'us-east-1' },
    'clock-ms': { type: 'string' },
  },
});

async function main(): Promise<void> {
  if (!values.kubeconfig || !values.db || !values.clusters || !values['clock-ms'])
    throw new Error('usage: clusters-collect-process --kubeconfig P --db P --clusters name=context,… --clock-ms T');
  const clockMs = Number(values['clock-ms']);
  const pairs = values.clusters.split(',').map((p) => p.split('='));
  const entries: ClusterEntry[] = pairs.map(([name, context]) => ({
    name,
    context,
    inCluster: false,
    region: values.region ?? null,
    account: null,
    profile: null,
    roleArn: null,
    prometheusUrl: null,
  }));
  const t0 = performance.now();
  const summary = await runCollect(
    {
      cluster: entries.length === 1 ? entries[0].name : entries.map((e) => e.name).join(','),
      ...(entries.length === 1
        ? { context: entries[0].context ?? undefined }
        : { clusters: entries, clustersFrom: 'clusters-file' as const }),
      region: values.region,
      sinceMs: 2 * 24 * HOUR_MS,
      watch: false,
      intervalMs: 300_000,
      kubeconfig: values.kubeconfig,
      dbPath: values.db,
      quiet: true,
    },
    { now: () => clockMs, out: () => {}, err: () => {} },
  );
  const totalMs = performance.now() - t0;
  const aws = Object.values(summary.awsRequests).reduce((s, v) => s + v, 0);
  console.log(
    JSON.stringify({
      totalMs,
      ok: summary.ok,
      failures: summary.failures,
      snapshots: summary.snapshots,
      snapshotNodeRows: summary.snapshotNodeRows,
      kubeRequests: summary.kubeRequests,
      awsRequests: aws,
      awsByOperation: summary.awsRequests,
      costExplorerRequests: summary.costExplorerRequests,
      costLines: summary.costLines,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
