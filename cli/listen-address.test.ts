import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../db/open-db.js';
import { runCli, startCli, type RunningCli } from '../test/reliability/fixtures/cli.js';
import { listenAddress } from './listen-address.js';

describe('listenAddress: flags, then $HOST / $PORT, then 127.0.0.1:5173', () => {
  it.each([
    ['nothing set', {}, {}, { host: '127.0.0.1', hostFrom: 'default', port: 5173, portFrom: 'default' }],
    ['PORT and HOST', {}, { PORT: '8080', HOST: '127.0.0.2' }, { host: '127.0.0.2', hostFrom: '$HOST', port: 8080, portFrom: '$PORT' }],
    [
      'flags win',
      { port: '9000', host: '127.0.0.1' },
      { PORT: '8080', HOST: '127.0.0.2' },
      { host: '127.0.0.1', hostFrom: '--host', port: 9000, portFrom: '--port' },
    ],
    ['--port 0 wins over PORT', { port: '0' }, { PORT: '8080' }, { host: '127.0.0.1', hostFrom: 'default', port: 0, portFrom: '--port' }],
    ['empty variables are unset', {}, { PORT: '', HOST: '' }, { host: '127.0.0.1', hostFrom: 'default', port: 5173, portFrom: 'default' }],
    ['PORT=65535', {}, { PORT: '65535' }, { host: '127.0.0.1', hostFrom: 'default', port: 65535, portFrom: '$PORT' }],
  ])('%s', (_what, flags, env, expected) => {
    expect(listenAddress(flags, env)).toEqual(expected);
  });

  it.each([
    [{}, { PORT: 'http' }, 'the PORT environment variable must be a port number 0-65535, got "http"'],
    [{}, { PORT: '65536' }, 'the PORT environment variable must be a port number 0-65535, got "65536"'],
    [{}, { PORT: '-1' }, 'got "-1"'],
    [{ port: '8O80' }, {}, '--port must be a port number 0-65535, got "8O80"'],
  ])('refuses %j %j', (flags, env, message) => {
    expect(() => listenAddress(flags, env)).toThrow(message);
  });
});

/*
 * Through the command line, as `npm start` (demo) and `serve` run: real processes, real HTTP on loopback. No test
 * binds beyond loopback (127.0.0.2 is loopback too); $HOST=0.0.0.0 is refused before anything listens.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-listen-env-'));
const dbPath = join(dir, 'ledger.db');
const started: RunningCli[] = [];
let holder: Server;

/** The environment without any PORT, HOST or LEDGER_TOKEN of the shell running the tests, plus `extra`. */
const envWith = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const k of ['PORT', 'HOST', 'LEDGER_TOKEN']) delete env[k];
  return { ...env, ...extra };
};

/** A port free a moment ago (the OS hands out a fresh one each time). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts `serve` and returns the address it printed. */
async function serveAddress(args: string[], env: Record<string, string>): Promise<string> {
  const cli = startCli(['serve', '--db', dbPath, ...args], { env: envWith(env) });
  started.push(cli);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const m = /dashboard: (http:\/\/\S+)/.exec(cli.output().stdout);
    if (m) return m[1];
    if (Date.now() > deadline || cli.child.exitCode !== null) throw new Error(`serve did not start: ${JSON.stringify(cli.output())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  openDb({ path: dbPath }).close();
  holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  for (const c of started) if (c.child.exitCode === null) c.child.kill('SIGTERM');
  await Promise.all(started.map((c) => c.exited));
  await new Promise((r) => holder.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('serve and demo honour $PORT and $HOST; flags win', () => {
  it('serve listens on $PORT and $HOST, and --port / --host win over them', async () => {
    const [p1, p2, p3] = await Promise.all([freePort(), freePort(), freePort()]);
    const [fromEnv, flagsWin] = await Promise.all([
      serveAddress([], { PORT: String(p1), HOST: '127.0.0.2' }),
      serveAddress(['--port', String(p3), '--host', '127.0.0.1'], { PORT: String(p2), HOST: '127.0.0.2' }),
    ]);
    expect(fromEnv).toBe(`http://127.0.0.2:${p1}`);
    expect(flagsWin).toBe(`http://127.0.0.1:${p3}`);
    for (const url of [fromEnv, flagsWin]) expect((await fetch(`${url}/api/status`)).status).toBe(200);
  }, 120_000);

  it('a port asked for in $PORT that is in use is an error naming it, not another port', async () => {
    const busy = (holder.address() as { port: number }).port;
    const r = await runCli(['serve', '--db', dbPath], { env: envWith({ PORT: String(busy) }) });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `port ${busy} on 127.0.0.1 (from $PORT) is in use: stop what holds it, or choose another port`,
    );
  }, 90_000);

  it.each([
    ['serve', ['serve', '--db', dbPath]],
    ['demo (npm start)', ['demo', '--db', join(dir, 'demo.db')]],
  ])(
    '%s refuses a bad $PORT, and $HOST=0.0.0.0 without a token, before doing anything',
    async (_what, args) => {
      const [badPort, exposed] = await Promise.all([
        runCli(args, { env: envWith({ PORT: 'eighty' }) }),
        runCli(args, { env: envWith({ HOST: '0.0.0.0' }) }),
      ]);
      expect(badPort.code).toBe(2);
      expect(badPort.stderr).toContain('the PORT environment variable must be a port number 0-65535, got "eighty"');
      expect(exposed.code).toBe(2);
      expect(exposed.stderr).toContain('binding to 0.0.0.0 (from $HOST) exposes cost data beyond this machine: set LEDGER_TOKEN');
      // demo stopped before seeding: nothing simulated, no database written.
      expect(badPort.stderr + exposed.stderr).not.toContain('simulating scenario');
    },
    120_000,
  );
});
