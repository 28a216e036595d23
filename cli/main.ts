import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DbAccessError, explainDbError } from '../db/db-errors.js';
import { CollectorLockedError } from '../db/lock.js';
import { openDb } from '../db/open-db.js';
import { accessFor, accessHint } from './access.js';
import { ListenError, listenAddress, listenOn } from './listen-address.js';
import { SeedLockLostError } from './seed-lock-lost.js';
import { UsageError } from './usage-error.js';
import { BUDGETS_FLAG_HELP, readBudgetsFlag } from './budgets-flag.js';

/*
 * Each command's modules are imported when that command runs, not at start: the AWS SDK's EC2 client and
 * client-node take about a second each to load, and `serve`, `--help` or a refused flag need neither.
 * collect's and doctor's --help and flags live beside their code and come with it.
 */
/** The simulator's commands, loaded only when one of them runs: `serve` on a real account loads no sandbox code. */
const simulator = () => import('./demo.js');

/** Each command's --help; demo's is in cli/demo.ts (it lists what the simulator can perturb). */
const HELP: Record<string, string> = {
  main: `nodepool-ledger — what a Karpenter cluster costs, NodePool by NodePool, and how well its nodes are packed.

Usage: nodepool-ledger <command> [options]

Commands:
  demo      start the built-in sandbox (simulated cluster + AWS account), collect its 14 days, serve the dashboard
  serve     serve the dashboard over an existing database
  sandbox   only run the sandbox's Kubernetes and AWS endpoints (prints the kubeconfig and AWS_ENDPOINT_URL_* to use)
  collect   read a real cluster and AWS account (Cost Explorer, Pricing, spot prices, Kubernetes) into the database
  doctor    check cost allocation tags, IAM permissions and cluster access before collecting
  simulate  what Karpenter would do with a set of objects (kubectl get -o yaml): NodeClaims, consolidation, cost
  cur       import a Cost and Usage Report 2.0 export (AWS Data Exports): 'cur import PATH'
  export    write the ledger's rollups to S3 as Parquet for Athena (the organisation's view: 'serve --org')

Run 'nodepool-ledger <command> --help' for a command's options.`,
  serve: `Usage: nodepool-ledger serve --db PATH [--port 5173] [--host 127.0.0.1] [--token T] [--budgets FILE]
                            [--org athena://WORKGROUP/DATABASE [--org-output s3://BUCKET/PREFIX/]]

Serves the dashboard and API over a database filled by 'collect' or 'demo', on 127.0.0.1:5173 by default. It opens
the file read-only and no page view writes to it (a read-only file serves as well); importing a bill CSV does write,
so it takes the collector lock for that moment and is refused while 'collect' or 'demo' holds the file. A file
written by an older nodepool-ledger is upgraded by running 'collect' (or 'demo') on it once.
--port and --host default to $PORT and $HOST when set (a flag wins); a port asked for that way is used or
refused, only the default one moves on to the next free port when busy.
Binding another host (e.g. --host 0.0.0.0 in a container) requires an access token of 16+ characters, from
$LEDGER_TOKEN (better: a flag shows in 'ps') or --token. Every /api request must then send
"Authorization: Bearer <token>"; a browser opens /?token=<token> once, which sets an HttpOnly, SameSite=Strict
session cookie and drops the token from the address bar. The token is never printed or logged.
The what-ifs and the Workloads recommendations run the scheduling engine in worker threads that read the same file:
$LEDGER_ENGINE_WORKERS of them (default one fewer than the cores, 1 to 2; 0 runs it on the server's thread), each
request bounded by $LEDGER_ENGINE_TIMEOUT seconds (default 60), after which it is answered 503 with Retry-After
while the simulation goes on.

${BUDGETS_FLAG_HELP}
                    (applied under the collector lock: while a collector holds the file, give it the flag too)

  --org athena://WORKGROUP/DATABASE
                    also answer the organisation's Overview and Teams, every cluster 'export' wrote, from Athena
                    (GET /api/org/overview, /api/org/teams): one query per view and range, kept once its days are
                    over, each answer with the bytes its query scanned and what that cost (USD 5/TB); the tables are
                    deploy/athena/tables.sql, the role deploy/athena/org-read-role-policy.json
  --org-output URI  where Athena writes the results (s3://…), unless the workgroup sets it`,
  sandbox: `Usage: nodepool-ledger sandbox [--port 0] [--scenario week4] [--seed 42] [--karpenter-version V] [--dir DIR] [--no-auth] [--cur]
                                [--second-cluster staging]

Serves the simulated cluster's Kubernetes API and the AWS endpoints (Cost Explorer, Pricing, EC2, S3, Athena) on
127.0.0.1 with the clock at the end of the scenario, and prints how to point kubectl and the AWS SDK at it. The port speaks
HTTP and TLS: the kubeconfig written to --dir (default a new temp folder) names https://127.0.0.1:<port> with a
bearer token and the certificate-authority-data of a CA made at start (also written there as ca.crt), so kubectl,
curl --cacert and @kubernetes/client-node verify the server; the AWS endpoints are plain http on loopback.

  --karpenter-version V  the Karpenter v1 release imitated: its NodePools, events and NodeClaim conditions (default the
                         scenario's karpenterVersion, else the newest the sandbox knows; see 'demo --help')

  --second-cluster S
              also serve scenario S (e.g. staging: two NodePools, Karpenter 1.3.1, one day) as a second cluster on its
              own port, a second context (sandbox-<its cluster name>) in the same kubeconfig: 'collect --clusters FILE'
              or 'collect --context A --context B' reads both into one ledger. Default: the one cluster

  --cur       also write the history's Cost and Usage Report 2.0 export under --dir (kept while the history is the
              same), served over S3 (s3://ledger-sandbox-cur/cur/ledger-cur2) and Athena (cid_data_export.cur2), and
              print the 'cur import' and 'cur athena' commands that read it (a few seconds more at start)

  --no-auth   the Kubernetes API asks for no token, and the kubeconfig written holds none and names the plain
              http:// address, for clients that cannot send a token. Still 127.0.0.1 only: any process on this
              machine can then read the simulated cluster.`,
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
    'karpenter-version': { type: 'string' },
    budgets: { type: 'string' },
  },
  serve: {
    help: { type: 'boolean', short: 'h' },
    ...ACCESS,
    db: { type: 'string' },
    budgets: { type: 'string' },
    org: { type: 'string' },
    'org-output': { type: 'string' },
  },
  sandbox: {
    help: { type: 'boolean', short: 'h' },
    port: { type: 'string' },
    scenario: { type: 'string' },
    seed: { type: 'string' },
    'karpenter-version': { type: 'string' },
    dir: { type: 'string' },
    'no-auth': { type: 'boolean' },
    cur: { type: 'boolean' },
    'second-cluster': { type: 'string' },
  },
} as const;

async function serve(v: Record<string, string | boolean | undefined>): Promise<void> {
  const dbPath = v.db as string | undefined;
  if (!dbPath) throw new UsageError('serve needs --db PATH (a database filled by collect or demo)');
  if (!existsSync(dbPath)) throw new UsageError(`no database at ${dbPath}: run 'nodepool-ledger demo' or 'collect' first`);
  const address = listenAddress({ host: v.host as string | undefined, port: v.port as string | undefined });
  const { token } = accessFor(address.host, v.token as string | undefined, process.env, address.hostFrom);
  // Read-only: no page view writes (the collector keeps the disruptions); an import writes under the collector lock.
  const db = openDb({ path: dbPath, readonly: true });
  const { buildApp } = await import('../server/app.js');
  const { DatabaseWriteError, lockingWriter } = await import('../server/database-writer.js');
  const { engineOptionsFromEnv } = await import('../server/engine-pool/engine-options.js');
  // The what-ifs and the Workloads re-packs in worker threads over the same file (LEDGER_ENGINE_WORKERS, LEDGER_ENGINE_TIMEOUT).
  const writer = lockingWriter(resolve(dbPath));
  const budgets = readBudgetsFlag(v.budgets as string | undefined);
  if (budgets !== null) {
    const { applyBudgetsFile, checkBudgetsFile } = await import('./budgets-option.js');
    try {
      checkBudgetsFile(db, budgets);
    } catch (err) {
      db.close();
      throw err;
    }
    try {
      console.log(writer.write(`Applying ${budgets.path}`, (wdb) => applyBudgetsFile(wdb, budgets, Date.now())));
    } catch (err) {
      // A collector holds the file: it applies the same --budgets itself (pass it there); serve shows what is stored.
      if (!(err instanceof DatabaseWriteError)) throw err;
      console.error(`${err.message}; the budgets stay as stored: pass --budgets ${budgets.path} to the collector as well`);
    }
  }
  const org = await orgEngineOf(v);
  const app = buildApp({ db, accessToken: token, writer, engine: engineOptionsFromEnv(), ...(org !== undefined ? { org } : {}) });
  const url = await listenOn(app, address);
  console.log(`NodePool Ledger dashboard: ${url}`);
  const hint = accessHint(url, token);
  if (hint !== null) console.log(hint);
}

/** `--org athena://WORKGROUP/DATABASE`: the Athena engine the organisation's views run on (loaded only when asked). */
async function orgEngineOf(v: Record<string, string | boolean | undefined>) {
  const url = v.org as string | undefined;
  if (url === undefined) return undefined;
  const { createAthenaOrgEngine, parseAthenaOrgUrl } = await import('../collectors/org/athena-org.js');
  const { createAthenaClient } = await import('../collectors/cur/athena-client.js');
  let target;
  try {
    target = parseAthenaOrgUrl(url);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const output = v['org-output'] as string | undefined;
  if (output !== undefined && !/^s3:\/\/[^/]+/.test(output))
    throw new UsageError(`--org-output must be s3://BUCKET/PREFIX/, not ${output}`);
  return createAthenaOrgEngine(createAthenaClient(), { ...target, ...(output !== undefined ? { outputLocation: output } : {}) });
}

type Values = Record<string, string | boolean | undefined>;

/** What running a command takes: its --help, its flags, and what it does with them. */
interface Command {
  help: string;
  options: ParseArgsConfig['options'];
  run: (v: Values, positionals: string[]) => Promise<void | number>;
  /** Takes positional arguments (`cur import PATH`); every other command refuses them. */
  positionals?: boolean;
}

const COMMANDS: Record<string, () => Promise<Command>> = {
  demo: async () => {
    const m = await simulator();
    return { help: m.DEMO_HELP, options: OPTIONS.demo, run: m.runDemo };
  },
  serve: async () => ({ help: HELP.serve, options: OPTIONS.serve, run: serve }),
  sandbox: async () => ({ help: HELP.sandbox, options: OPTIONS.sandbox, run: async (v) => (await simulator()).runSandbox(v) }),
  /** One pass, or --watch until SIGINT/SIGTERM (the snapshot being written is finished first). */
  collect: async () => {
    const { COLLECT_HELP, COLLECT_OPTIONS, collectOptionsFrom, runCollect } = await import('./collect.js');
    const run = async (v: Values): Promise<number> => {
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
    };
    return { help: COLLECT_HELP, options: COLLECT_OPTIONS, run };
  },
  doctor: async () => {
    const { DOCTOR_HELP, DOCTOR_OPTIONS, doctorOptionsFrom, runDoctor } = await import('./doctor.js');
    const run = async (v: Values): Promise<number> => ((await runDoctor(doctorOptionsFrom(v))).problems === 0 ? 0 : 1);
    return { help: DOCTOR_HELP, options: DOCTOR_OPTIONS, run };
  },
  simulate: async () => {
    const { SIMULATE_HELP, SIMULATE_OPTIONS, simulateOptionsFrom, runSimulate } = await import('./simulate.js');
    return { help: SIMULATE_HELP, options: SIMULATE_OPTIONS, run: (v: Values) => runSimulate(simulateOptionsFrom(v)) };
  },
  /** The rollups as Parquet in S3, for Athena (cli/export.ts). */
  export: async () => {
    const { EXPORT_HELP, EXPORT_OPTIONS, runExport } = await import('./export.js');
    return { help: EXPORT_HELP, options: EXPORT_OPTIONS, run: runExport };
  },
  /** The Cost and Usage Report: `cur import PATH` (subcommands in cli/cur.ts). */
  cur: async () => {
    const { CUR_HELP, CUR_OPTIONS, runCur } = await import('./cur.js');
    return { help: CUR_HELP, options: CUR_OPTIONS, run: runCur, positionals: true };
  },
};

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main);
    return command ? 0 : 1;
  }
  const load = COMMANDS[command];
  if (!load) {
    console.error(`unknown command "${command}"\n\n${HELP.main}`);
    return 2;
  }
  const spec = await load();
  try {
    const parsed = parseArgs({
      args: rest,
      options: spec.options,
      strict: true,
      allowPositionals: spec.positionals ?? false,
    });
    const values: Record<string, string | boolean | undefined> = parsed.values;
    if (values.help) {
      console.log(spec.help);
      return 0;
    }
    return (await spec.run(values, parsed.positionals)) ?? 0;
  } catch (err) {
    // A budgets file with bad entries: each named; the help would bury them.
    if ((err as Error).name === 'BudgetFileError') {
      console.error(`--budgets ${(err as Error).message}`);
      return 2;
    }
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n\n${spec.help}`);
      return 2;
    }
    // Another collector on the file, or a file that cannot be written: the message says what to do, no stack.
    const explained = explainDbError(err);
    if (
      explained instanceof CollectorLockedError ||
      explained instanceof DbAccessError ||
      explained instanceof SeedLockLostError ||
      explained instanceof ListenError
    ) {
      console.error(explained.message);
      return 1;
    }
    throw err;
  }
}
