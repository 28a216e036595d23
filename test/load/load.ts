/**
 * `npm run load -- [--db PATH] [--clients 200] [--seconds 30] [--json]`
 *
 * The API under load on loopback, as a user runs it: `nodepool-ledger serve` in its own process over a database
 * seeded from the sandbox (the given --db, or 14 simulated days seeded into a temp dir first, about a minute),
 * then --clients concurrent keep-alive clients cycling through the dashboard's reads for --seconds. Prints
 * requests, errors and latency percentiles; exits 1 if any request failed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { openDb } from '../../db/open-db.js';
import { startSandbox } from '../../sandbox/index.js';
import { dashboardPaths, runLoad, type LoadReport } from './load-client.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function seedDatabase(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-load-')), 'ledger.db');
  const sb = await startSandbox({});
  const saved = { ...process.env };
  Object.assign(process.env, sb.awsEnv);
  const db = openDb({ path });
  try {
    const sc = sb.scenario;
    console.error(`seeding ${path} from the sandbox (14 simulated days)…`);
    await seedFromSandbox({
      db,
      sandboxUrl: sb.url,
      kubeconfigPath: sb.kubeconfigPath,
      clusterName: sc.clusterName,
      region: sc.region,
      startMs: sc.start,
      endMs: sc.end,
      stepMs: sc.stepMs,
    });
  } finally {
    db.close();
    await sb.close();
    process.env = saved;
  }
  return path;
}

/** `serve` in its own process; resolves with its URL and a stop function. */
async function startServer(dbPath: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli', 'run.ts'), 'serve', '--db', dbPath, '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) done(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`serve exited (${code}) before listening: ${out}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function print(r: LoadReport): void {
  console.log(`${r.clients} clients for ${r.seconds} s: ${r.requests} requests (${r.requestsPerSecond}/s), ${r.errors} errors`);
  console.log(`latency ms: p50 ${r.latencyMs.p50}  p90 ${r.latencyMs.p90}  p99 ${r.latencyMs.p99}  max ${r.latencyMs.max}`);
  console.log('slowest routes (p99):');
  for (const p of r.byPath.slice(0, 6))
    console.log(`  ${p.path.padEnd(32)} ${String(p.requests).padStart(6)} requests  p50 ${p.p50}  p99 ${p.p99}  max ${p.max}`);
  for (const e of r.errorExamples) console.log(`  error: ${e}`);
}

const { values } = parseArgs({
  options: { db: { type: 'string' }, clients: { type: 'string' }, seconds: { type: 'string' }, json: { type: 'boolean' } },
});
const clients = Number(values.clients ?? 200);
const seconds = Number(values.seconds ?? 30);
if (!(Number.isInteger(clients) && clients > 0 && clients <= 2000 && seconds > 0 && seconds <= 600)) {
  console.error('--clients must be 1..2000 and --seconds 0..600');
  process.exit(2);
}
const dbPath = values.db === undefined ? await seedDatabase() : resolve(values.db);
const server = await startServer(dbPath);
try {
  const paths = dashboardPaths('2026-11-01', '2026-11-15', 'general');
  // Every path must answer before the run: a 4xx here is a broken list, not load.
  for (const p of paths) {
    const res = await fetch(`${server.url}${p}`);
    if (!res.ok) throw new Error(`${p} answers HTTP ${res.status} before any load: ${await res.text()}`);
  }
  const report = await runLoad({ baseUrl: server.url, paths, clients, seconds });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else print(report);
  process.exitCode = report.errors === 0 ? 0 : 1;
} finally {
  await server.stop();
}
