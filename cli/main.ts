import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DbAccessError, explainDbError } from '../db/db-errors.js';
import { acquireCollectorLock, CollectorLockedError, DEFAULT_STALE_MS } from '../db/lock.js';
import { type Db, openDb } from '../db/open-db.js';
import { createResetRepository } from '../db/repositories/reset-repository.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { DEFAULT_SCENARIO, DEFAULT_SEED, startSandbox } from '../sandbox/index.js';
import { buildApp } from '../server/app.js';
import { accessFor, accessHint } from './access.js';
import { COLLECT_HELP, COLLECT_OPTIONS, collectOptionsFrom, runCollect } from './collect.js';
import { DOCTOR_HELP, DOCTOR_OPTIONS, doctorOptionsFrom, runDoctor } from './doctor.js';
import { BILL_HELP, BILL_USAGE, billWindowError, makeDemoBill, parseBillSpec } from './demo-bill.js';
import { SeedLockLostError, seedFromSandbox } from './seed-sandbox.js';
import { UsageError } from './usage-error.js';

const HELP: Record<string, string> = {
  main: `nodepool-ledger — what a Karpenter cluster costs, NodePool by NodePool, and how well its nodes are packed.

Usage: nodepool-ledger <command> [options]

Commands:
  demo      start the built-in sandbox (simulated cluster + AWS account), collect its 14 days, serve the dashboard
  serve     serve the dashboard over an existing database
  sandbox   only run the sandbox's Kubernetes and AWS endpoints (prints the kubeconfig and AWS_ENDPOINT_URL_* to use)
  collect   read a real cluster and AWS account (Cost Explorer, Pricing, spot prices, Kubernetes) into the database
  doctor    check cost allocation tags, IAM permissions and cluster access before collecting

Run 'nodepool-ledger <command> --help' for a command's options.`,
  demo: `Usage: nodepool-ledger demo [--port 5173] [--db .ledger/demo.db] [--scenario week4] [--seed 42] [--fresh] [${BILL_USAGE}]
                             [--host 127.0.0.1] [--token T]

Starts the sandbox on 127.0.0.1, walks its clock through the scenario collecting a snapshot every 5 simulated
minutes through the real Kubernetes and AWS SDK clients, pulls the Cost Explorer bill, then serves the dashboard.
A database already seeded with the same scenario and seed is reused; --fresh rebuilds it. One collector per
database: a second demo or collect on the same --db is refused, naming the first.
The dashboard binds 127.0.0.1; another --host needs an access token (see 'serve --help').

${BILL_HELP}`,
  serve: `Usage: nodepool-ledger serve --db PATH [--port 5173] [--host 127.0.0.1] [--token T]

Serves the dashboard and API over a database filled by 'collect' or 'demo', on 127.0.0.1 by default.
Binding another host (e.g. --host 0.0.0.0 in a container) requires an access token of 16+ characters, from
$LEDGER_TOKEN (better: a flag shows in 'ps') or --token. Every /api request must then send
"Authorization: Bearer <token>"; a browser opens /?token=<token> once, which sets an HttpOnly, SameSite=Strict
session cookie and drops the token from the address bar. The token is never printed or logged.`,
  sandbox: `Usage: nodepool-ledger sandbox [--port 0] [--scenario week4] [--seed 42] [--dir DIR] [--no-auth]

Serves the simulated cluster's Kubernetes API and the AWS endpoints (Cost Explorer, Pricing, EC2) on 127.0.0.1
with the clock at the end of the scenario, and prints how to point kubectl and the AWS SDK at it.

  --no-auth   the Kubernetes API asks for no token and the kubeconfig written holds none, so kubectl works
              (it sends bearer tokens only over TLS; the sandbox speaks plain HTTP). Still 127.0.0.1 only: any
              process on this machine can then read the simulated cluster.`,
  collect: COLLECT_HELP,
  doctor: DOCTOR_HELP,
};

const ACCESS = { port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' } } as const;
/** Each command's own flags: one of another command (serve --scenario, demo --no-auth) is refused, not ignored. */
const OPTIONS = {
  demo: {
    help: { type: 'boolean', short: 'h' },
    ...ACCESS,
    db: { type: 'string' },
    scenario: { type: 'string' },
    seed: { type: 'string' },
    fresh: { type: 'boolean' },
    bill: { type: 'string' },
  },
  serve: { help: { type: 'boolean', short: 'h' }, ...ACCESS, db: { type: 'string' } },
  sandbox: {
    help: { type: 'boolean', short: 'h' },
    port: { type: 'string' },
    scenario: { type: 'string' },
    seed: { type: 'string' },
    dir: { type: 'string' },
    'no-auth': { type: 'boolean' },
  },
  collect: COLLECT_OPTIONS,
  doctor: DOCTOR_OPTIONS,
} as const;

function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** Listens on the port asked for, or the next free ones, and says where. */
async function listen(app: ReturnType<typeof buildApp>, host: string, port: number): Promise<string> {
  for (let p = port; p < port + 20; p++) {
    try {
      return await app.listen({ host, port: p });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
    }
  }
  throw new Error(`ports ${port}..${port + 19} on ${host} are all in use: pass --port`);
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

async function demo(v: Record<string, string | boolean | undefined>): Promise<void> {
  const scenarioName = (v.scenario as string | undefined) ?? DEFAULT_SCENARIO;
  const seed = intOption(v.seed as string | undefined, 'seed', DEFAULT_SEED);
  const dbPath = resolve((v.db as string | undefined) ?? join('.ledger', 'demo.db'));
  mkdirSync(resolve(dbPath, '..'), { recursive: true });
  const stamp = `${scenarioName}|${seed}|v1`;
  const billSpec = v.bill === undefined ? null : parseBillSpec(String(v.bill));
  if (billSpec !== null && 'error' in billSpec) throw new UsageError(billSpec.error);
  const access = accessFor((v.host as string | undefined) ?? '127.0.0.1', v.token as string | undefined);
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
  console.error(`simulating scenario "${scenarioName}" with seed ${seed}…`);
  const sandbox = await startSandbox({ scenario: scenarioName, seed, dir: resolve(dbPath, '..') });
  const sc = sandbox.scenario;
  const billProblem = billSpec === null ? null : billWindowError(sc, billSpec);
  if (billProblem !== null) {
    await sandbox.close();
    throw new UsageError(billProblem);
  }
  Object.assign(process.env, sandbox.awsEnv, { KUBECONFIG: sandbox.kubeconfigPath });
  console.error(`sandbox: ${sandbox.url} (Kubernetes API and AWS endpoints; kubeconfig ${sandbox.kubeconfigPath})`);
  if (createRunsRepository(db).getSetting('demo.seeded') === stamp) {
    console.error(`reusing ${dbPath} (already seeded; --fresh to rebuild)`);
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
    });
    createRunsRepository(db).setSetting('demo.seeded', stamp);
    console.error(
      `collected ${s.snapshots} snapshots (${s.kubeRequests} Kubernetes requests), ${s.costLines} Cost Explorer lines in ${s.costExplorerRequests} requests (USD ${(s.costExplorerRequests * 0.01).toFixed(2)} on a real account), ${s.priceRows} price rows in ${s.seconds.toFixed(1)} s`,
    );
  }
  let billSource: string | null = null;
  if (billSpec !== null) {
    const b = makeDemoBill(db, sc, billSpec, resolve(dbPath, '..'));
    billSource = b.source;
    console.error(
      `hypothetical bill (${billSpec.perturbation}): ${b.lines} lines, USD ${b.totalUsd.toFixed(2)}, written to ${b.file} and imported as ${b.source}`,
    );
  }
  const app = buildApp({ db, now: () => sc.end, accessToken: access.token });
  const address = await listen(app, access.host, intOption(v.port as string | undefined, 'port', 5173));
  console.log(
    `NodePool Ledger dashboard: ${address}  (sandbox data, ${new Date(sc.start).toISOString().slice(0, 10)} .. ${new Date(sc.end).toISOString().slice(0, 10)})`,
  );
  const hint = accessHint(address, access.token);
  if (hint !== null) console.log(hint);
  if (billSource !== null)
    console.log(`hypothetical bill: ${address}/api/bill/lines?source=${billSource}&from=${new Date(sc.start).toISOString().slice(0, 10)}`);
  const stop = async () => {
    await app.close();
    await sandbox.close();
    lock.release();
    db.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function serve(v: Record<string, string | boolean | undefined>): Promise<void> {
  const dbPath = v.db as string | undefined;
  if (!dbPath) throw new UsageError('serve needs --db PATH (a database filled by collect or demo)');
  if (!existsSync(dbPath)) throw new UsageError(`no database at ${dbPath}: run 'nodepool-ledger demo' or 'collect' first`);
  const { host, token } = accessFor((v.host as string | undefined) ?? '127.0.0.1', v.token as string | undefined);
  const db = openDb({ path: dbPath });
  const app = buildApp({ db, accessToken: token });
  const address = await listen(app, host, intOption(v.port as string | undefined, 'port', 5173));
  console.log(`NodePool Ledger dashboard: ${address}`);
  const hint = accessHint(address, token);
  if (hint !== null) console.log(hint);
}

async function sandboxOnly(v: Record<string, string | boolean | undefined>): Promise<void> {
  const sb = await startSandbox({
    scenario: v.scenario as string | undefined,
    seed: intOption(v.seed as string | undefined, 'seed', DEFAULT_SEED),
    port: intOption(v.port as string | undefined, 'port', 0),
    dir: v.dir as string | undefined,
    auth: v['no-auth'] !== true,
  });
  console.log(
    `sandbox ${sb.scenario.name} (seed ${sb.scenario.seed}) on ${sb.url}, clock at ${new Date(sb.ctx.clock.now()).toISOString()}`,
  );
  console.log(`export KUBECONFIG=${sb.kubeconfigPath}`);
  console.log(
    v['no-auth'] === true
      ? '# no token (--no-auth): kubectl get nodes works'
      : "# kubectl sends the kubeconfig's token only over TLS, so it gets 401 here: restart with --no-auth for kubectl",
  );
  for (const [k, val] of Object.entries(sb.awsEnv))
    if (k.startsWith('AWS_ENDPOINT_URL') || k === 'AWS_REGION') console.log(`export ${k}=${val}`);
  console.log('export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… (any dummy values: the sandbox does not check them)');
}

/** `collect`: one pass, or --watch until SIGINT/SIGTERM (the snapshot being written is finished first). */
async function collect(v: Record<string, string | boolean | undefined>): Promise<number> {
  const options = collectOptionsFrom(v);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const summary = await runCollect(options, { signal: stop.signal });
    return summary.ok ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function doctor(v: Record<string, string | boolean | undefined>): Promise<number> {
  const report = await runDoctor(doctorOptionsFrom(v));
  return report.problems === 0 ? 0 : 1;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main);
    return command ? 0 : 1;
  }
  const handlers: Record<string, (v: Record<string, string | boolean | undefined>) => Promise<void | number>> = {
    demo,
    serve,
    sandbox: sandboxOnly,
    collect,
    doctor,
  };
  const handler = handlers[command];
  if (!handler) {
    console.error(`unknown command "${command}"\n\n${HELP.main}`);
    return 2;
  }
  try {
    const values: Record<string, string | boolean | undefined> = parseArgs({
      args: rest,
      options: OPTIONS[command as keyof typeof OPTIONS] as ParseArgsConfig['options'],
      strict: true,
      allowPositionals: false,
    }).values;
    if (values.help) {
      console.log(HELP[command]);
      return 0;
    }
    return (await handler(values)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n\n${HELP[command]}`);
      return 2;
    }
    // Another collector on the file, or a file that cannot be written: the message says what to do, no stack.
    const explained = explainDbError(err);
    if (explained instanceof CollectorLockedError || explained instanceof DbAccessError || explained instanceof SeedLockLostError) {
      console.error(explained.message);
      return 1;
    }
    throw err;
  }
}
