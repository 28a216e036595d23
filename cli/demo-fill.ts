import { resolve } from 'node:path';
import type { HeldLock } from '../db/lock.js';
import type { Db } from '../db/open-db.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { type ClusterDeclaration, createClustersRepository } from '../db/repositories/clusters-repository.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { ensureSandboxCurExport } from '../sandbox/cur-export-at-start.js';
import { type BillSpec, makeDemoBill } from './demo-bill.js';
import { importSandboxCur } from './demo-cur.js';
import { resolveRetentionSettings, retentionSummary, runRetentionPass, upgradeToIncrementalVacuum } from './retention-stage.js';
import type { DemoFill } from './demo-fill-status.js';
import { seedFromSandbox } from './seed-sandbox.js';

/*
 * What `demo` fills in behind a dashboard that already answers (issue 24 item 5): the scenario's snapshots, oldest
 * first, through the real collectors; the Cost Explorer bill; the sandbox's CUR export written and imported; the
 * retention pass; a hypothetical bill when asked for. All of it ran before the first answer (86 s on an idle machine,
 * over 10 minutes at load average 12); now the dashboard answers once its database is open (the scenario is simulated
 * in a worker thread meanwhile, cli/demo-scenario.ts), shows the days as they are written and says in its banner how
 * far the fill is (GET /api/status `fill`). cli/demo.ts loads this module once the dashboard answers: what it
 * imports (the AWS SDK clients, DuckDB, the Kubernetes client) took 18 s to load at load average 16.
 */

export interface DemoFillOptions {
  db: Db;
  dbPath: string;
  sandbox: RunningSandbox;
  lock: HeldLock;
  /** The settings value of a file seeded with this scenario, seed and release (cli/demo.ts). */
  stamp: string;
  fresh: boolean;
  billSpec: BillSpec | null;
  log: (line: string) => void;
}

const declaration = (name: string, region: string, account: string, context: string): ClusterDeclaration => ({
  name,
  namedFrom: 'context',
  account,
  region,
  kubeContext: context,
  inCluster: false,
  awsProfile: null,
  roleArn: null,
  prometheusUrl: null,
});

/**
 * The sandbox's second cluster (staging, one day) into the same ledger as its own cluster, after the first's
 * snapshots: both named in the clusters table (the first takes the placeholder's id 1, with its rows), then the
 * second's snapshots written under its id. Its Cost Explorer lines are not pulled here: the bill per cluster is the
 * collector's (`collect --clusters`), and without the cluster key they would land on the first cluster.
 */
async function seedSecondCluster(o: DemoFillOptions, fill: DemoFill): Promise<void> {
  const { db, sandbox, lock, log } = o;
  const second = sandbox.second;
  if (second === null) return;
  const sc = sandbox.scenario;
  const s2 = second.scenario;
  const clusters = createClustersRepository(db);
  const now = Date.now();
  clusters.nameCollected(declaration(sc.clusterName, sc.region, sc.accountId, sandbox.context), now);
  const [, staging] = clusters.declare(
    [
      declaration(sc.clusterName, sc.region, sc.accountId, sandbox.context),
      declaration(s2.clusterName, s2.region, s2.accountId, second.context),
    ],
    now,
  );
  if (staging === undefined) return;
  fill.begin('snapshots');
  const s = await seedFromSandbox({
    db,
    sandboxUrl: second.url,
    kubeconfigPath: sandbox.kubeconfigPath,
    context: second.context,
    clusterId: staging.id,
    clusterName: s2.clusterName,
    region: s2.region,
    startMs: s2.start,
    endMs: s2.end,
    stepMs: s2.stepMs,
    usage: false,
    bill: false,
    quiet: true,
    confirm: () => lock.confirm(),
    onSnapshot: (done, total) => fill.snapshots(done, total),
  });
  log(
    `collected ${s.snapshots} snapshots of the second cluster ${s2.clusterName} (${s.kubeRequests} Kubernetes requests) in ${s.seconds.toFixed(1)} s`,
  );
}

/** Runs the fill, reporting to `fill`; resolves with the hypothetical bill's source, if one was asked for. */
export async function fillDemo(o: DemoFillOptions, fill: DemoFill): Promise<{ billSource: string | null }> {
  const { db, sandbox, lock, log } = o;
  const sc = sandbox.scenario;
  const dataDir = resolve(o.dbPath, '..');
  const runs = createRunsRepository(db);
  fill.begin('snapshots');
  if (runs.getSetting('demo.seeded') === o.stamp) {
    log(`reusing ${o.dbPath} (already seeded; --fresh to rebuild)`);
  } else {
    const s = await seedFromSandbox({
      db,
      sandboxUrl: sandbox.url,
      kubeconfigPath: sandbox.kubeconfigPath,
      clusterName: sc.clusterName,
      region: sc.region,
      startMs: sc.start,
      endMs: sc.end,
      stepMs: sc.stepMs,
      confirm: () => lock.confirm(),
      onSnapshot: (done, total) => {
        fill.snapshots(done, total);
        // The snapshots are written; the bill is what the seeding pulls next.
        if (done === total) fill.begin('bill');
      },
    });
    if (sandbox.second !== null) await seedSecondCluster(o, fill);
    runs.setSetting('demo.seeded', o.stamp);
    log(
      `collected ${s.snapshots} snapshots (${s.kubeRequests} Kubernetes requests), ${s.costLines} Cost Explorer lines in ${s.costExplorerRequests} requests (USD ${(s.costExplorerRequests * 0.01).toFixed(2)} on a real account), ${s.priceRows} price rows in ${s.seconds.toFixed(1)} s`,
    );
  }
  // The export is written here, not before the dashboard answers (10 s of DuckDB at load 10); after the seeding, so
  // the CUR lines whose tag is missing find their NodePool through the NodeClaims collected.
  fill.begin('cur');
  const exported = await ensureSandboxCurExport(sc, sandbox.usage, sandbox.cur, { force: o.fresh });
  log(
    exported.written
      ? `wrote the sandbox's CUR 2.0 export (${exported.billingPeriods.join(', ')}) in ${exported.seconds.toFixed(1)} s: ${sandbox.cur.s3Url}`
      : `reusing the sandbox's CUR 2.0 export at ${sandbox.cur.s3Url}`,
  );
  for (const line of await importSandboxCur(db, sandbox, dataDir)) log(line);
  lock.confirm();
  // As collect does after a snapshot: the scenario's clock is "now" (its 14 days are within the raw retention).
  fill.begin('retention');
  upgradeToIncrementalVacuum(db, o.dbPath, log);
  const retention = retentionSummary(
    await runRetentionPass(db, resolveRetentionSettings(db, {}), { now: sc.end, budgetMs: Number.POSITIVE_INFINITY }),
  );
  if (retention !== null) log(retention);
  let billSource: string | null = null;
  if (o.billSpec !== null) {
    const b = makeDemoBill(db, sc, o.billSpec, dataDir);
    billSource = b.source;
    log(
      `hypothetical bill (${o.billSpec.perturbation}): ${b.lines} lines, USD ${b.totalUsd.toFixed(2)}, written to ${b.file} and imported as ${b.source}`,
    );
  }
  fill.begin('done');
  return { billSource };
}
