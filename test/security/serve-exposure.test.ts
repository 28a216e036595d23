import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessFor, isLoopback } from '../../cli/access.js';
import { openDb } from '../../db/open-db.js';
import { runCli, startCli, waitForOutput, type RunningCli } from '../reliability/fixtures/cli.js';

/*
 * The exposure rule of `serve` and `demo`, through the real command line: loopback by default; another host only
 * with an access token (16+ characters, from $LEDGER_TOKEN or --token), which the API then requires and the
 * output never shows. No test here binds beyond loopback: the refusals happen before listening, and the token is
 * checked on a loopback server given one.
 */
const TOKEN = 'b5e0c1d2f3a4b5c6d7e8f9a0';
const dir = mkdtempSync(join(tmpdir(), 'ledger-exposure-'));
const dbPath = join(dir, 'ledger.db');
const envWithout = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.LEDGER_TOKEN;
  return env;
};
let served: RunningCli | undefined;

beforeAll(() => {
  openDb({ path: dbPath }).close();
});
afterAll(async () => {
  if (served && served.child.exitCode === null) {
    served.child.kill('SIGTERM');
    await served.exited;
  }
});

describe('the exposure rule', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.7', false],
    ['192.168.1.10', false],
    ['ledger.internal', false],
    ['127.0.0.1.example.com', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
    if (loopback) expect(accessFor(host, undefined, {})).toEqual({ host, token: undefined });
    else expect(() => accessFor(host, undefined, {})).toThrow(`binding to ${host} exposes cost data beyond this machine`);
    expect(accessFor(host, undefined, { LEDGER_TOKEN: TOKEN })).toEqual({ host, token: TOKEN });
    expect(accessFor(host, TOKEN, { LEDGER_TOKEN: 'another-token-from-env' })).toEqual({ host, token: TOKEN }); // the flag wins
  });

  it('treats an empty LEDGER_TOKEN as unset and refuses short tokens', () => {
    expect(() => accessFor('0.0.0.0', undefined, { LEDGER_TOKEN: '' })).toThrow('exposes cost data');
    expect(() => accessFor('127.0.0.1', 'short', {})).toThrow('at least 16 characters');
  });
});

describe('serve and demo on the command line', () => {
  it('refuse --host 0.0.0.0 without a token, before listening or seeding', async () => {
    const [serve, demo] = await Promise.all([
      runCli(['serve', '--db', dbPath, '--host', '0.0.0.0', '--port', '0'], { env: envWithout() }),
      runCli(['demo', '--db', join(dir, 'demo.db'), '--host', '0.0.0.0', '--port', '0'], { env: envWithout() }),
    ]);
    for (const r of [serve, demo]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('binding to 0.0.0.0 exposes cost data beyond this machine: set LEDGER_TOKEN (or pass --token)');
      expect(r.stdout).not.toContain('dashboard:');
    }
  }, 60_000);

  it('serve with LEDGER_TOKEN requires it on /api, and never prints it', async () => {
    served = startCli(['serve', '--db', dbPath, '--host', '127.0.0.1', '--port', '0'], { env: { ...envWithout(), LEDGER_TOKEN: TOKEN } });
    await waitForOutput(served, (o) => /access token required/.test(o.stdout));
    const url = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(served.output().stdout)?.[1];
    expect(url).toBeDefined();
    expect((await fetch(`${url}/api/status`)).status).toBe(401);
    expect((await fetch(`${url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const link = await fetch(`${url}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(link.status).toBe(303);
    const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0];
    expect((await fetch(`${url}/api/nodepools`, { headers: { cookie } })).status).toBe(200);
    expect(served.output().stdout).toContain(`open ${url}/?token=<your token> once`);
    served.child.kill('SIGTERM');
    const out = await served.exited;
    expect(`${out.stdout}${out.stderr}`).not.toContain(TOKEN);
  }, 60_000);
});
