import { startAlertSink } from './demo-alert-sink.js';
import { demoAlerts } from './demo-alerts.js';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DbAccessError } from '../db/db-errors.js';
import { acquireCollectorLock, DEFAULT_STALE_MS } from '../db/lock.js';
import { type Db, openDb } from '../db/open-db.js';
import { createResetRepository } from '../db/repositories/reset-repository.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { DEFAULT_SCENARIO, DEFAULT_SEED, startSandbox } from '../sandbox/index.js';
import { sandboxPracticeBills } from '../sandbox/practice-bills.js';
import { CURRENT_KARPENTER_VERSION, KarpenterVersionError, karpenterProfile } from '../sandbox/scenario/karpenter-profile.js';
import { loadScenarioFile, ScenarioFileError } from '../sandbox/scenario/scenario-file.js';
import { buildApp } from '../server/app.js';
import { engineOptionsFromEnv } from '../server/engine-pool/engine-options.js';
import { heldLockWriter } from '../server/database-writer.js';
import { accessFor, accessHint } from './access.js';
import { BILL_HELP, BILL_USAGE, billWindowError, parseBillSpec } from './demo-bill.js';
import { DemoFill } from './demo-fill-status.js';
import { intOption } from './listen.js';
import { listenAddress, listenOn } from './listen-address.js';
import { UsageError } from './usage-error.js';
import { BUDGETS_FLAG_HELP, readBudgetsFlag } from './budgets-flag.js';
import { applyBudgetsFile } from './budgets-option.js';

/*
 * `demo` and `sandbox`: the commands that run the simulator. cli/main.ts loads this module only for them, so
 * `serve`, `collect` and `doctor` never load sandbox/ code.
 */

export const DEMO_HELP = `Usage: nodepool-ledger demo [--port 5173] [--db .ledger/demo.db] [--scenario week4] [--seed 42] [--fresh] [${BILL_USAGE}]
                             [--karpenter-version ${CURRENT_KARPENTER_VERSION}] [--host 127.0.0.1] [--token T] [--budgets FILE]

Starts the sandbox on 127.0.0.1 and serves the dashboard, then fills it in behind a progress banner: walks the
sandbox's clock through the scenario collecting a snapshot every 5 simulated minutes through the real Kubernetes and
AWS SDK clients (oldest day first; the dashboard shows the days written so far), pulls the Cost Explorer bill, writes
the sandbox's Cost and Usage Report 2.0 export (beside the database, under s3/) and imports it from its S3 endpoint.
A database already seeded with the same scenario, seed and Karpenter release is reused; --fresh rebuilds it. One
collector per database: a second demo or collect on the same --db is refused, naming the first.
The dashboard binds 127.0.0.1; another --host needs an access token (see 'serve --help'). --port and --host
default to $PORT and $HOST when set (a flag wins), else 5173 and 127.0.0.1; only the default port moves on to the
next free one when busy.

  --karpenter-version V  the Karpenter v1 release the sandbox imitates (its NodePools, events and NodeClaim conditions):
                         default the scenario's karpenterVersion, else ${CURRENT_KARPENTER_VERSION}; e.g. 1.5.0 writes
                         "Disrupting Node: Underutilized/Replace", 1.6.0 and later "Disrupting Node: Underutilized"

${BILL_HELP}

${BUDGETS_FLAG_HELP}
                    (applied at start, and again once the fill is done: the NodePools, teams and namespaces it names are
                    checked against the data then; npm start passes cli/demo-budgets.yaml, sized so week4's November
                    crosses general's budget)`;

/** The release to imitate: the flag, else the scenario file's, else the current one; a bad one is a UsageError. */
function karpenterVersionOption(flag: string | undefined, scenario: string): string {
  try {
    return karpenterProfile(flag ?? loadScenarioFile(scenario).karpenterVersion).version;
  } catch (err) {
    if (err instanceof KarpenterVersionError) throw new UsageError(`--karpenter-version: ${err.message}`);
    if (err instanceof ScenarioFileError) throw new UsageError(err.message);
    throw err;
  }
}

/** The demo database; with --fresh, a file that is not a ledger database (or is damaged) is replaced. */
function openDemoDb(path: string, fresh: boolean): Db {
  try {
    return openDb({ path });
  } catch (err) {
    if (!fresh || !(err instanceof DbAccessError) || !/^SQLITE_(NOTADB|CORRUPT)/.test(err.sqliteCode)) throw err;
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
    return openDb({ path });
  }
}

export async function runDemo(v: Record<string, string | boolean | undefined>): Promise<void> {
  const scenarioName = (v.scenario as string | undefined) ?? DEFAULT_SCENARIO;
  const seed = intOption(v.seed as string | undefined, 'seed', DEFAULT_SEED);
  const karpenterVersion = karpenterVersionOption(v['karpenter-version'] as string | undefined, scenarioName);
  const dbPath = resolve((v.db as string | undefined) ?? join('.ledger', 'demo.db'));
  mkdirSync(resolve(dbPath, '..'), { recursive: true });
  // The sandbox's second cluster (issue 25): a smaller one beside the scenario's, in the same ledger.
  const secondCluster = { scenario: 'staging', days: 1 };
  const stamp = `${scenarioName}|${seed}|v1|second=${secondCluster.scenario}|karpenter=${karpenterVersion}`;
  const billSpec = v.bill === undefined ? null : parseBillSpec(String(v.bill));
  if (billSpec !== null && 'error' in billSpec) throw new UsageError(billSpec.error);
  const budgets = readBudgetsFlag(v.budgets as string | undefined);
  // Checked before the minute of seeding: a bad PORT or an exposed HOST without a token fails at once.
  const address = listenAddress({ host: v.host as string | undefined, port: v.port as string | undefined });
  const access = accessFor(address.host, v.token as string | undefined, process.env, address.hostFrom);
  const db = openDemoDb(dbPath, v.fresh === true);
  // Held until the demo stops: it writes the file (seed, bill) and serves it; a second demo would rebuild it.
  const lock = acquireCollectorLock(db, {
    command: 'demo',
    dbPath,
    // Seeding stops at its next write (confirm below); a dashboard already serving keeps serving what the other writes.
    onLost: (by) =>
      console.error(
        `the collector lock on ${dbPath} was taken over by ${by ? `"${by.command}" (pid ${by.pid} on ${by.hostname})` : 'another collector'} ` +
          `(this process was silent over ${DEFAULT_STALE_MS / 1000} s); this demo writes nothing more, and its dashboard shows what that one writes`,
      ),
  });
  const seeded = createRunsRepository(db).getSetting('demo.seeded');
  if (v.fresh === true || (seeded !== null && seeded !== stamp)) {
    if (v.fresh !== true) console.error(`${dbPath} holds another scenario (${seeded}); rebuilding it for ${stamp}`);
    createResetRepository(db).clearCollectedData();
  }
  // Budgets first (a bad file stops the demo before it serves); checked against the data once more after the fill.
  if (budgets !== null) {
    try {
      console.error(applyBudgetsFile(db, budgets, Date.now()));
    } catch (err) {
      lock.release();
      db.close();
      throw err;
    }
  }
  // The dashboard answers at once and shows the days as they are written; its banner says how far the fill is. Each
  // stage is recorded as it begins: a write, so the API's response cache drops what it answered before.
  const fill = new DemoFill((stage) => createRunsRepository(db).setSetting('demo.fill', stage));
  let scenarioEndMs: number | null = null;
  // The demo is the collector: a bill import writes under the lock it already holds.
  const app = buildApp({
    db,
    now: () => scenarioEndMs ?? Date.now(),
    accessToken: access.token,
    practiceBills: sandboxPracticeBills,
    writer: heldLockWriter(db, lock),
    // The what-ifs and the Workloads re-packs in worker threads reading the same file (LEDGER_ENGINE_WORKERS).
    engine: engineOptionsFromEnv(),
    fill: () => fill.status(),
  });
  const url = await listenOn(app, address);
  console.log(`NodePool Ledger dashboard: ${url}  (sandbox data, filling in behind it: the banner says how far)`);
  const hint = accessHint(url, access.token);
  if (hint !== null) console.log(hint);
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | null = null;
  // Stopped part way, the fill resumes after the last snapshot written at the next start.
  // A local webhook receiver for the built-in alerts (cli/demo-alert-sink.ts): delivery is shown working end to end.
  const sink = await startAlertSink((line) => console.error(line));
  const stop = async () => {
    await sink.close();
    await app.close();
    await sandbox?.close();
    lock.release();
    db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  console.error(`simulating scenario "${scenarioName}" with seed ${seed}, as Karpenter ${karpenterVersion} writes it…`);
  fill.begin('simulating');
  // Off this thread (the dashboard answers meanwhile); the CUR export is written later, with the rest of the fill.
  // What the fill needs is loaded now, not before the first answer (the AWS SDK clients, DuckDB: 18 s at load 16).
  const [{ simulateOffThread }, { fillDemo }] = await Promise.all([import('./demo-scenario.js'), import('./demo-fill.js')]);
  await simulateOffThread(scenarioName, seed, karpenterVersion);
  sandbox = await startSandbox({ scenario: scenarioName, seed, karpenterVersion, dir: resolve(dbPath, '..'), secondCluster });
  const sc = sandbox.scenario;
  scenarioEndMs = sc.end;
  const billProblem = billSpec === null ? null : billWindowError(sc, billSpec);
  if (billProblem !== null) {
    await app.close();
    await sandbox.close();
    throw new UsageError(billProblem);
  }
  Object.assign(process.env, sandbox.awsEnv, { KUBECONFIG: sandbox.kubeconfigPath });
  console.error(`sandbox: ${sandbox.url} (Kubernetes API and AWS endpoints; kubeconfig ${sandbox.kubeconfigPath})`);
  const range = `${new Date(sc.start).toISOString().slice(0, 10)} .. ${new Date(sc.end).toISOString().slice(0, 10)}`;
  const filled = await fillDemo(
    { db, dbPath, sandbox, lock, stamp, fresh: v.fresh === true, billSpec, log: (line) => console.error(line) },
    fill,
  ).catch((err: unknown) => {
    fill.fail(err);
    console.error(`the demo's fill stopped: ${(err as Error).message ?? String(err)}; the dashboard keeps serving what was written`);
    return null;
  });
  if (filled !== null && budgets !== null) {
    try {
      console.error(applyBudgetsFile(db, budgets, Date.now()));
    } catch (err) {
      console.error(`--budgets ${(err as Error).message}`);
    }
  }
  if (filled !== null) {
    for (const line of await demoAlerts(db, { fromMs: sc.start, toMs: sc.end, sink, dashboardUrl: url })) console.log(line);
    const seconds = (Date.parse(fill.status().finishedAt ?? '') - Date.parse(fill.status().startedAt)) / 1000;
    console.log(`filled in ${seconds.toFixed(1)} s: the dashboard shows the whole scenario, ${range}`);
    if (filled.billSource !== null)
      console.log(
        `hypothetical bill: ${url}/api/bill/lines?source=${filled.billSource}&from=${new Date(sc.start).toISOString().slice(0, 10)}`,
      );
  }
}

export async function runSandbox(v: Record<string, string | boolean | undefined>): Promise<void> {
  const scenario = v.scenario as string | undefined;
  const sb = await startSandbox({
    scenario,
    seed: intOption(v.seed as string | undefined, 'seed', DEFAULT_SEED),
    karpenterVersion: karpenterVersionOption(v['karpenter-version'] as string | undefined, scenario ?? DEFAULT_SCENARIO),
    port: intOption(v.port as string | undefined, 'port', 0),
    dir: v.dir as string | undefined,
    auth: v['no-auth'] !== true,
    curExport: v.cur === true,
    ...(typeof v['second-cluster'] === 'string' ? { secondCluster: { scenario: v['second-cluster'] } } : {}),
  });
  console.log(
    `sandbox ${sb.scenario.name} (seed ${sb.scenario.seed}, Karpenter ${sb.scenario.karpenterVersion}) on ${sb.url} (Kubernetes API over TLS: ${sb.kubeUrl}), clock at ${new Date(sb.ctx.clock.now()).toISOString()}`,
  );
  if (sb.second !== null)
    console.log(
      `second cluster ${sb.second.scenario.name} (Karpenter ${sb.second.scenario.karpenterVersion}) on ${sb.second.kubeUrl}: kubeconfig context ${sb.second.context} (the first: ${sb.context})`,
    );
  console.log(`export KUBECONFIG=${sb.kubeconfigPath}`);
  console.log(
    v['no-auth'] === true
      ? `# no token (--no-auth), plain HTTP: kubectl get nodes, or curl ${sb.kubeUrl}/api/v1/nodes`
      : `# kubectl get nodes works (TLS, the kubeconfig's token); curl needs the token and --cacert ${sb.caCertPath}`,
  );
  for (const [k, val] of Object.entries(sb.awsEnv))
    if (k.startsWith('AWS_ENDPOINT_URL') || k === 'AWS_REGION') console.log(`export ${k}=${val}`);
  console.log('export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… (any dummy values: the sandbox does not check them)');
  const a = sb.cur.athena;
  if (sb.curExport === null) console.log('# --cur also serves its Cost and Usage Report over S3 and Athena');
  else {
    console.log(`# its Cost and Usage Report: nodepool-ledger cur import ${sb.cur.s3Url}`);
    console.log(
      `#   or: nodepool-ledger cur athena --database ${a.database} --table ${a.table} --workgroup ${a.workGroup} --output ${a.outputLocation}`,
    );
  }
}
