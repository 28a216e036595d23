import type { Db } from '../db/open-db.js';
import { createCostExplorerClient } from '../collectors/cost-explorer/client.js';
import { collectCostExplorer } from '../collectors/cost-explorer/collect.js';
import { buildSnapshotRows } from '../core/rollup.js';
import { DAY_MS } from '../core/time.js';
import { createClusterSnapshotRepository } from '../db/repositories/cluster-snapshot-repository.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { fillEnvelopeStore } from '../db/repositories/retention-envelope-store.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import { SandboxClock } from '../sandbox/serve/context.js';
import { createCostExplorerHandler } from '../sandbox/serve/cost-explorer.js';
import { startSandboxServer } from '../sandbox/serve/server.js';
import type { BenchContext } from './context.js';
import { scaleHistory, scenarioPrices } from './scale-history.js';

/**
 * The store bench's data: a month of 5-minute snapshots of `nodes` nodes. All but its last day are generated in bulk
 * SQL (db/repositories/retention-envelope-store.ts, every row at 5 minutes, nodes replaced every 5 days, their events,
 * disruptions and Cost Explorer bill), usage left out as the collector without --usage leaves it; the last day is a
 * scale scenario's, written snapshot by snapshot through the kube repository (writeSnapshot, rollups and disruptions
 * included) and its bill through the real Cost Explorer collector against the sandbox. Prepared, not measured (apart
 * from what keeping the disruptions costs each of the last day's writes), and kept between quick runs (bench/cache.ts).
 * Simulating and writing the whole month took 66 s of a cold --quick run at 40 nodes (and most of the full run at 1,000).
 */

export const STEP_MS = 5 * 60_000;
/** The days written through the repository, at the end of the month. */
const WRITTEN_DAYS = 1;
const DUMMY_AWS = {
  AWS_ACCESS_KEY_ID: 'AKIABENCHEXAMPLE0000',
  AWS_SECRET_ACCESS_KEY: 'bench-secret-not-a-real-key',
  AWS_REGION: 'us-east-1',
};

/** A month of 5-minute snapshots and its bill, the last day written through the repositories and the real collector; the end, epoch ms. */
export async function fillStore(
  ctx: BenchContext,
  db: Db,
  size: { nodes: number; podsPerNode: number; days: number },
  details: Record<string, unknown>,
): Promise<number> {
  const { nodes, podsPerNode, days } = size;
  const sc = scaleScenario({ nodes, podsPerNode, days: WRITTEN_DAYS, seed: 30, meanNodeLifetimeDays: 5 });
  // A month written in seconds: no fsync per snapshot (the file is scratch until the fill is done).
  db.pragma('synchronous = OFF');
  const generatedDays = days - WRITTEN_DAYS;
  ctx.log(
    `store: generating ${generatedDays} days of 5-minute snapshots of ${nodes} nodes (${(nodes * podsPerNode).toLocaleString('en-US')} pods) in bulk…`,
  );
  const generated = fillEnvelopeStore(db, {
    nodes,
    podsPerNode,
    endMs: sc.start,
    days: generatedDays,
    rawDays: generatedDays,
    sampleHours: 0,
    // The store bench's month is one collected without usage: no usage rows written (they were written, then deleted).
    usage: false,
    workloads: Math.max(12, Math.round((nodes * 240) / 5000)),
    namespaces: 42,
  });
  ctx.log(
    `store: ${generatedDays} days generated in ${generated.seconds.toFixed(1)} s; writing the last ${WRITTEN_DAYS} through the repository…`,
  );
  // What keeping the disruptions current costs the writer, snapshot by snapshot (it used to be the first reader's).
  const refreshMs: number[] = [];
  const kube = createKubeRepository(db, { onDisruptionsRefreshed: (r) => refreshMs.push(r.ms) });
  const runs = createRunsRepository(db);
  let writeMsTotal = 0;
  const runId = runs.startRun('kubernetes', 'sandbox', sc.start);
  const prices = scenarioPrices(sc);
  const fillStarted = performance.now();
  let snapshots = 0;
  let snapshotNodeRows = 0;
  for (const step of scaleHistory(sc, STEP_MS)) {
    const rows = buildSnapshotRows(step.snapshot, prices.price, prices.onDemand);
    // Every pod alive, as the collector lists them: a pod seen again as it was is not rewritten (pod-rows.ts), and one
    // no longer listed is closed. Writing only the new pods (as this did) closed each pod at the next snapshot: the last
    // snapshot, the one the what-if routes are timed on, held the last 5 minutes' new pods, not its 1,000 nodes' 30,000.
    const w0 = performance.now();
    kube.writeSnapshot({ snapshot: step.snapshot, ...rows, runId });
    writeMsTotal += performance.now() - w0;
    snapshots += 1;
    snapshotNodeRows += rows.nodes.length;
  }
  runs.finishRun(runId, 'ok', snapshots, null, sc.end);
  // What the engine reads at the last snapshot (the what-if routes are timed there): its nodes and its pods.
  const last = createClusterSnapshotRepository(db).clusterObjectsAt(sc.end, { nodeLabels: false, nodeVersions: false, kinds: [] });
  const atEnd = { nodes: last?.objects.nodes.length ?? 0, pods: last?.objects.pods.length ?? 0 };
  ctx.log(`store: the last snapshot holds ${atEnd.nodes} nodes and ${atEnd.pods.toLocaleString('en-US')} pods`);
  const sortedRefresh = [...refreshMs].sort((a, b) => a - b);
  const refreshTotalMs = refreshMs.reduce((a, b) => a + b, 0);
  details.fill = {
    generated: {
      days: generatedDays,
      seconds: generated.seconds,
      snapshots: generated.rows.snapshots,
      nodeRows: generated.rows.snapshot_node_rows,
    },
    snapshots,
    snapshotNodeRows,
    atEnd,
    seconds: (performance.now() - fillStarted) / 1000,
    writeMsTotal,
    disruptions: {
      refreshes: refreshMs.length,
      msTotal: refreshTotalMs,
      msPerSnapshot: refreshTotalMs / Math.max(1, snapshots),
      p50Ms: sortedRefresh[Math.floor(sortedRefresh.length / 2)] ?? 0,
      maxMs: sortedRefresh[sortedRefresh.length - 1] ?? 0,
    },
    note: `the last ${WRITTEN_DAYS} day(s) written through writeSnapshot (every pod alive, each snapshot, as the collector lists them), the ${generatedDays} before generated in bulk SQL`,
  };

  // The last day's bill, through the real collector against the sandbox's Cost Explorer.
  const clock = new SandboxClock(sc.end);
  const ce = await startSandboxServer({ scenario: sc, clock, requestLog: [], faults: [] }, [createCostExplorerHandler()]);
  Object.assign(process.env, DUMMY_AWS);
  const client = createCostExplorerClient({ endpoint: ce.url });
  try {
    const bill = await collectCostExplorer(
      { db, ce: client, clusterName: sc.clusterName, now: sc.end },
      { startMs: sc.end - WRITTEN_DAYS * DAY_MS, endMs: sc.end },
    );
    details.bill = { requests: bill.requests, lines: bill.linesWritten };
  } finally {
    client.destroy();
    await ce.close();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('synchronous = FULL');
  ctx.log(
    `store: ${generatedDays} days generated in ${generated.seconds.toFixed(1)} s, ${snapshots} snapshots and the bill written in ${(details.fill as { seconds: number }).seconds.toFixed(1)} s; timing the API…`,
  );
  return sc.end;
}
