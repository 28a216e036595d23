import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { awsHandlers, loadScenario } from '../../sandbox/index.js';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import { SandboxClock, type SandboxContext } from '../../sandbox/serve/context.js';
import { createKubeHandler } from '../../sandbox/serve/kube.js';
import { startSandboxServer } from '../../sandbox/serve/server.js';
import { buildApp } from '../../server/app.js';
import { runCli, startCli, waitForOutput } from '../reliability/fixtures/cli.js';

/*
 * No credential is ever written to the output or the database. The collector runs as a process with recognisable
 * dummy secrets: AWS keys and a session token in its environment, a bearer token in its kubeconfig (the sandbox
 * accepts exactly that token), and the dashboard's access token. Runs that succeed, fail (throttling past the
 * retries, a 5xx storm on the pods list, a refused kubeconfig token, doctor) and the server's request log are all
 * captured; their output, and the SQLite file with its -wal and -shm taken while the collector is writing, must
 * not hold any of them, in plain, base64 or URL-encoded form. (That `serve` never prints its token is checked in
 * serve-exposure.test.ts.)
 */
const CANARY = {
  accessKeyId: 'AKIACANARYLEAK7Q3X9Z',
  secretAccessKey: 'canaryLeakSecret/Do+Not+Print0123456789ab',
  sessionToken: 'canaryLeakSessionToken-FQoGZXIvYXdzEJr-0123456789',
  kubeToken: 'canary-leak-kube-token-5f1e2d3c4b5a69788796a5b4',
  wrongKubeToken: 'canary-leak-wrong-kube-token-0a1b2c3d4e5f6a7b8c',
  ledgerToken: 'canary-leak-ledger-token-9c8b7a6f5e4d',
};
const needles = Object.entries(CANARY).flatMap(([name, value]) => [
  [name, value],
  [`${name} (base64)`, Buffer.from(value).toString('base64')],
  [`${name} (url-encoded)`, encodeURIComponent(value)],
]);

const dir = mkdtempSync(join(tmpdir(), 'ledger-no-leak-'));
let ctx: SandboxContext;
let server: { url: string; close: () => Promise<void> };
let kubeconfig: string;
let wrongKubeconfig: string;
const captured: { what: string; text: string }[] = [];
const files: { what: string; bytes: Buffer }[] = [];

function leaksIn(text: string | Buffer): string[] {
  const haystack = typeof text === 'string' ? text : text.toString('latin1');
  return needles.filter(([, v]) => haystack.includes(v)).map(([name]) => name);
}

beforeAll(async () => {
  const scenario = loadScenario();
  // A process reads the wall clock: stand the sandbox there (the cluster as at the scenario's end).
  ctx = { scenario, clock: new SandboxClock(Date.now()), requestLog: [], faults: [] };
  server = await startSandboxServer(ctx, [createKubeHandler(scenario, CANARY.kubeToken), ...awsHandlers()]);
  kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, server.url, CANARY.kubeToken, scenario.clusterName);
  wrongKubeconfig = join(dir, 'wrong-kubeconfig');
  writeKubeconfig(wrongKubeconfig, server.url, CANARY.wrongKubeToken, scenario.clusterName);
});
afterAll(async () => {
  await server?.close();
});

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: dir,
  AWS_ENDPOINT_URL_COST_EXPLORER: server.url,
  AWS_ENDPOINT_URL_PRICING: server.url,
  AWS_ENDPOINT_URL_EC2: server.url,
  AWS_REGION: ctx.scenario.region,
  AWS_ACCESS_KEY_ID: CANARY.accessKeyId,
  AWS_SECRET_ACCESS_KEY: CANARY.secretAccessKey,
  AWS_SESSION_TOKEN: CANARY.sessionToken,
  AWS_MAX_ATTEMPTS: '2',
  LEDGER_TOKEN: CANARY.ledgerToken,
});
const collectArgs = (db: string, kc = kubeconfig): string[] => [
  'collect',
  '--cluster',
  ctx.scenario.clusterName,
  '--region',
  ctx.scenario.region,
  '--since',
  '20d',
  '--kubeconfig',
  kc,
  '--db',
  join(dir, db),
];

describe('credentials in output and storage', () => {
  it('runs the collector through success and failure with dummy secrets, capturing everything', async () => {
    // 1. --watch: a snapshot, then the file and its WAL are read while the collector still has them open.
    const watch = startCli([...collectArgs('watch.db'), '--watch', '--interval', '300ms'], { env: env() });
    await waitForOutput(watch, (o) => /^snapshot \S+: \d+ nodes/m.test(o.stderr), 90_000);
    for (const suffix of ['', '-wal', '-shm']) {
      const path = join(dir, `watch.db${suffix}`);
      if (existsSync(path)) files.push({ what: `watch.db${suffix} (open)`, bytes: readFileSync(path) });
    }
    expect(files.some((f) => f.what.startsWith('watch.db-wal'))).toBe(true);
    watch.child.kill('SIGTERM');
    const watched = await watch.exited;
    captured.push({ what: 'collect --watch', text: watched.stdout + watched.stderr });

    // 2. Failures, at once: Cost Explorer throttling past the retries and the pods list failing past its retries;
    // a kubeconfig token the API refuses (401); doctor with that kubeconfig.
    ctx.faults.push({ match: 'GetCostAndUsage', status: 400, remaining: 1_000 }, { match: '/api/v1/pods', status: 500, remaining: 6 });
    const [failed, refused, doctor] = await Promise.all([
      runCli(collectArgs('failed.db'), { env: env() }),
      runCli(collectArgs('refused.db', wrongKubeconfig), { env: env() }),
      runCli(['doctor', '--cluster', ctx.scenario.clusterName, '--region', ctx.scenario.region, '--kubeconfig', wrongKubeconfig], {
        env: env(),
      }),
    ]);
    ctx.faults.length = 0;
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).toMatch(/ThrottlingException|Rate exceeded/);
    expect(failed.stdout + failed.stderr).toMatch(/listing pods failed with HTTP 500/);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/401|Unauthorized/);
    captured.push(
      { what: 'collect (failing)', text: failed.stdout + failed.stderr },
      { what: 'collect (401)', text: refused.stdout + refused.stderr },
      { what: 'doctor (401)', text: doctor.stdout + doctor.stderr },
    );

    for (const name of ['watch.db', 'failed.db', 'refused.db']) {
      for (const suffix of ['', '-wal', '-shm']) {
        const path = join(dir, `${name}${suffix}`);
        if (existsSync(path)) files.push({ what: `${name}${suffix}`, bytes: readFileSync(path) });
      }
    }
    expect(captured).toHaveLength(4);
  }, 240_000);

  it("logs no token in the server's request log", async () => {
    // The request log (logger on) of a server taking the token as a link, a header, a cookie and a wrong one.
    const logged: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ..._rest: unknown[]) => {
      logged.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return true;
    }) as typeof process.stdout.write;
    const db = openDb({ path: join(dir, 'watch.db'), readonly: true });
    try {
      const app = buildApp({ db, logger: true, accessToken: CANARY.ledgerToken, webRoot: dir });
      await app.inject({ url: `/?token=${CANARY.ledgerToken}` });
      await app.inject({ url: `/?token=${encodeURIComponent(CANARY.ledgerToken)}&x=1` });
      await app.inject({ url: '/api/status', headers: { authorization: `Bearer ${CANARY.ledgerToken}` } });
      await app.inject({ url: '/api/status', headers: { authorization: `Bearer ${CANARY.ledgerToken}x` } });
      await app.inject({ url: `/api/nope?token=${CANARY.ledgerToken}` });
      await app.close();
    } finally {
      process.stdout.write = write;
      db.close();
    }
    const log = logged.join('');
    expect(log).toContain('"url":"/?token=[redacted]"'); // the request was logged, its token was not
    captured.push({ what: 'server request log', text: log });
  });

  it('finds no credential in any output, database file, WAL or shared-memory file', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
    const found = [
      ...captured.map((c) => ({ where: c.what, leaks: leaksIn(c.text) })),
      ...files.map((f) => ({ where: f.what, leaks: leaksIn(f.bytes) })),
    ].filter((x) => x.leaks.length > 0);
    expect(found).toEqual([]);
    // The search itself works: the canaries are findable where they do belong.
    expect(leaksIn(readFileSync(kubeconfig))).toContain('kubeToken');
  });
});
