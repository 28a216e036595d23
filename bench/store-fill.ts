import type { Db } from '../db/open-db.js';
import { createCostExplorerClient } from '../collectors/cost-explorer/client.js';
import { collectCostExplorer } from '../collectors/cost-explorer/collect.js';
import { buildSnapshotRows } from '../core/rollup.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import { SandboxClock } from '../sandbox/serve/context.js';
import { createCostExplorerHandler } from '../sandbox/serve/cost-explorer.js';
import { startSandboxServer } from '../sandbox/serve/server.js';
import type { BenchContext } from './context.js';
import { scaleHistory, scenarioPrices } from './scale-history.js';

/**
 * The store bench's data: a month of 5-minute snapshots of a scale scenario written through the kube repository
 * (writeSnapshot, rollups included) and its Cost Explorer bill through the real collector. Prepared, not measured
 * (apart from what keeping the disruptions costs each write), and kept between quick runs (bench/cache.ts).
 */

export const STEP_MS = 5 * 60_000;
const DUMMY_AWS = {
  AWS_ACCESS_KEY_ID: 'AKIABENCHEXAMPLE0000',
  AWS_SECRET_ACCESS_KEY: 'bench-secret-not-a-real-key',
  AWS_REGION: 'us-east-1',
};

/** A month of 5-minute snapshots and its bill, written through the repositories and the real collector; the end, epoch ms. */
export async function fillStore(
  ctx: BenchContext,
  db: Db,
  size: { nodes: number; podsPerNode: number; days: number },
  details: Record<string, unknown>,
): Promise<number> {
  const { nodes, podsPerNode, days } = size;
  const sc = scaleScenario({ nodes, podsPerNode, days, seed: 30, meanNodeLifetimeDays: 5 });
  // A month of collections written in minutes: no fsync per snapshot (the file is scratch until the fill is done).
  db.pragma('synchronous = NORMAL');
  ctx.log(`store: writing ${days} days of 5-minute snapshots of ${nodes} nodes (${(nodes * podsPerNode).toLocaleString('en-US')} pods)…`);
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
    // Each pod is written once, when first seen: the pods table feeds the bill explainer, not the routes timed
    // here, and upserting 30,000 pods x 8,640 snapshots would take the bench an hour. Rollups use every pod.
    const w0 = performance.now();
    kube.writeSnapshot({ snapshot: { ...step.snapshot, pods: step.newPods }, ...rows, runId });
    writeMsTotal += performance.now() - w0;
    snapshots += 1;
    snapshotNodeRows += rows.nodes.length;
    if (snapshots % 1440 === 0) ctx.log(`store: ${snapshots} snapshots written`);
  }
  runs.finishRun(runId, 'ok', snapshots, null, sc.end);
  const sortedRefresh = [...refreshMs].sort((a, b) => a - b);
  const refreshTotalMs = refreshMs.reduce((a, b) => a + b, 0);
  details.fill = {
    snapshots,
    snapshotNodeRows,
    seconds: (performance.now() - fillStarted) / 1000,
    writeMsTotal,
    disruptions: {
      refreshes: refreshMs.length,
      msTotal: refreshTotalMs,
      msPerSnapshot: refreshTotalMs / Math.max(1, snapshots),
      p50Ms: sortedRefresh[Math.floor(sortedRefresh.length / 2)] ?? 0,
      maxMs: sortedRefresh[sortedRefresh.length - 1] ?? 0,
    },
    note: 'pods table: each pod once, at first sight',
  };

  // The bill, through the real collector against the sandbox's Cost Explorer.
  const clock = new SandboxClock(sc.end);
  const ce = await startSandboxServer({ scenario: sc, clock, requestLog: [], faults: [] }, [createCostExplorerHandler()]);
  Object.assign(process.env, DUMMY_AWS);
  const client = createCostExplorerClient({ endpoint: ce.url });
  try {
    const bill = await collectCostExplorer(
      { db, ce: client, clusterName: sc.clusterName, now: sc.end },
      { startMs: sc.start, endMs: sc.end },
    );
    details.bill = { requests: bill.requests, lines: bill.linesWritten };
  } finally {
    client.destroy();
    await ce.close();
  }
  db.pragma('synchronous = FULL');
  ctx.log(
    `store: ${snapshots} snapshots and the bill written in ${(details.fill as { seconds: number }).seconds.toFixed(0)} s; timing the API…`,
  );
  return sc.end;
}
