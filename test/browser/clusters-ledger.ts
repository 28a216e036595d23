import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { DAY_MS } from '../../core/time.js';
import { openDb, type Db } from '../../db/open-db.js';
import { type ClusterDeclaration, createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { startSandbox } from '../../sandbox/index.js';
import { copySeededDb, keepSeededDb, seededDbCachePath, underSeedLock } from '../fixtures/seeded-db-cache.js';

/*
 * A two-cluster ledger for the browser (issue 25 item 2): the sandbox's week4 and staging clusters, one simulated day
 * each, an hourly snapshot through the real collectors (the demo's seeding, each cluster under its own id), week4's
 * Cost Explorer bill. Kept in the seeded-db cache like the other browser ledgers, so a second run copies it.
 */

export interface TwoClusterLedger {
  db: Db;
  /** week4's cluster name, then staging's. */
  names: [string, string];
  startMs: number;
  endMs: number;
  close: () => Promise<void>;
}

const OPTIONS = { kind: 'two-clusters', days: 1, stepFactor: 12, v: 1 } as const;

const declaration = (name: string, region: string, context: string): ClusterDeclaration => ({
  name,
  namedFrom: 'context',
  account: null,
  region,
  kubeContext: context,
  inCluster: false,
  awsProfile: null,
  roleArn: null,
  prometheusUrl: null,
});

async function seed(path: string): Promise<Db> {
  const savedEnv = { ...process.env };
  const dir = mkdtempSync(join(tmpdir(), 'ledger-two-seed-'));
  const sandbox = await startSandbox({ dir, days: OPTIONS.days, secondCluster: { scenario: 'staging', days: OPTIONS.days } });
  Object.assign(process.env, sandbox.awsEnv);
  const db = openDb({ path });
  try {
    const sc = sandbox.scenario;
    const second = sandbox.second;
    if (second === null) throw new Error('the sandbox started without its second cluster');
    const common = { db, kubeconfigPath: sandbox.kubeconfigPath, quiet: true, usage: false } as const;
    await seedFromSandbox({
      ...common,
      sandboxUrl: sandbox.url,
      context: sandbox.context,
      clusterName: sc.clusterName,
      region: sc.region,
      startMs: sc.start,
      endMs: sc.start + OPTIONS.days * DAY_MS,
      stepMs: OPTIONS.stepFactor * sc.stepMs,
    });
    const clusters = createClustersRepository(db);
    const s2 = second.scenario;
    clusters.nameCollected(declaration(sc.clusterName, sc.region, sandbox.context), sc.start);
    const [, staging] = clusters.declare(
      [declaration(sc.clusterName, sc.region, sandbox.context), declaration(s2.clusterName, s2.region, second.context)],
      sc.start,
    );
    if (staging === undefined) throw new Error('staging was not declared');
    await seedFromSandbox({
      ...common,
      sandboxUrl: second.url,
      context: second.context,
      clusterId: staging.id,
      clusterName: s2.clusterName,
      region: s2.region,
      startMs: s2.start,
      endMs: s2.start + OPTIONS.days * DAY_MS,
      stepMs: OPTIONS.stepFactor * s2.stepMs,
      bill: false,
    });
    return db;
  } finally {
    await sandbox.close();
    process.env = savedEnv;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ledger (a copy of the kept one when there is one), in a folder of its own removed by close. */
export async function twoClusterLedger(): Promise<TwoClusterLedger> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-two-browser-'));
  const path = join(dir, 'ledger.db');
  const cachePath = seededDbCachePath(OPTIONS);
  let db: Db | null = null;
  if (cachePath === null) db = await seed(path);
  else if (!copySeededDb(cachePath, path)) {
    const seeded = await underSeedLock(cachePath, async () => {
      const d = await seed(path);
      await keepSeededDb(d, cachePath);
      return d;
    });
    if (seeded === 'kept') copySeededDb(cachePath, path);
    else db = seeded;
  }
  db ??= openDb({ path });
  const names = createClustersRepository(db)
    .list()
    .map((c) => c.name);
  const range = db.prepare('SELECT MIN(taken_at) AS lo, MAX(taken_at) AS hi FROM snapshots').get() as { lo: number; hi: number };
  const open = db;
  return {
    db: open,
    names: [names[0] ?? '', names[1] ?? ''],
    startMs: range.lo,
    endMs: range.hi,
    close: async () => {
      open.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
