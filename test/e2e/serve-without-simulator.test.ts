import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { PRACTICE_NOT_SERVED } from '../../server/services/bill-practice.js';
import { ROOT, runCli, startCli, waitForOutput, type RunningCli } from '../reliability/fixtures/cli.js';

/*
 * `serve` on a real account carries no simulator: the process, started as a user starts it, is watched by a module
 * hook that records every module it resolves; none may be under sandbox/. Practice bills, which only the sandbox
 * makes, answer 501 saying they need the demo. A control run (`demo --help`, which loads the simulator's commands)
 * shows the same hook does see sandbox/ modules when they load.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-serve-loads-'));
const RECORDER = pathToFileURL(join(ROOT, 'test', 'fixtures', 'record-loads.mjs')).href;
const under = (folder: string) => pathToFileURL(join(ROOT, folder)).href + '/';
let served: RunningCli | undefined;

afterAll(async () => {
  if (served && served.child.exitCode === null) {
    served.child.kill('SIGTERM');
    await served.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The project's own modules a log lists (node_modules left out), as paths from the repository root. */
function ownModules(log: string): string[] {
  const root = pathToFileURL(ROOT).href + '/';
  return [...new Set(readFileSync(log, 'utf8').split('\n'))]
    .filter((u) => u.startsWith(root) && !u.includes('/node_modules/'))
    .map((u) => u.slice(root.length));
}

describe('serve without the simulator', () => {
  it('loads no module under sandbox/, and answers practice bills with 501 naming the demo', async () => {
    const dbPath = join(dir, 'ledger.db');
    openDb({ path: dbPath }).close(); // a database `collect` made: no scenario behind it
    const log = join(dir, 'serve.loads');
    writeFileSync(log, '');
    served = startCli(['serve', '--db', dbPath, '--port', '0'], { env: { ...process.env, LEDGER_RECORD_LOADS: log } }, [RECORDER]);
    await waitForOutput(served, (o) => /dashboard: http:\/\/127\.0\.0\.1:\d+/.test(o.stdout));
    const url = /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(served.output().stdout)?.[1] ?? '';

    expect((await fetch(`${url}/api/status`)).status).toBe(200);
    for (const path of ['/api/bill/practice?seed=1', '/api/bill/practice/answers?seed=1']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status, path).toBe(501);
      expect(await res.json()).toEqual({ statusCode: 501, error: 'Not Implemented', message: PRACTICE_NOT_SERVED });
    }
    served.child.kill('SIGTERM');
    await served.exited;

    const loaded = ownModules(log);
    // The recorder saw the server being loaded (so an empty list below means something).
    expect(loaded).toEqual(expect.arrayContaining(['cli/main.ts', 'server/app.ts', 'server/services/bill-practice.ts']));
    expect(loaded.filter((m) => m.startsWith('sandbox/'))).toEqual([]);
    expect(loaded.filter((m) => m === 'cli/demo.ts' || m === 'cli/demo-bill.ts')).toEqual([]);
    expect(readFileSync(log, 'utf8')).not.toContain(under('sandbox'));
  }, 90_000);

  it('control: the same recorder sees sandbox/ modules load for demo', async () => {
    const log = join(dir, 'demo-help.loads');
    writeFileSync(log, '');
    const r = await runCli(['demo', '--help'], { env: { ...process.env, LEDGER_RECORD_LOADS: log } }, [RECORDER]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: nodepool-ledger demo');
    expect(ownModules(log)).toEqual(expect.arrayContaining(['cli/demo.ts', 'sandbox/index.ts', 'sandbox/practice-bills.ts']));
  }, 90_000);
});
