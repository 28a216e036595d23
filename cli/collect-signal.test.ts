import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../sandbox/index.js';
import { cliProcess } from '../test/reliability/fixtures/cli.js';

/**
 * `nodepool-ledger collect --watch` as a process, against the running sandbox: SIGTERM ends it after the snapshot
 * in hand, with the summary printed and exit code 0. (A process reads the wall clock, so the sandbox's clock is set
 * to it: the cluster then stands as it was at the scenario's end.)
 */
let sb: RunningSandbox;
let dir: string;
let child: ChildProcess | null = null;

beforeAll(async () => {
  sb = await startSandbox({});
  dir = mkdtempSync(join(tmpdir(), 'ledger-collect-signal-'));
});
afterAll(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('ends on SIGTERM as a process: the summary printed, exit code 0', async () => {
  sb.ctx.clock.set(Date.now());
  const dbPath = join(dir, 'signal.db');
  // The command line as the other process tests start it (compiled when the integration run has built it).
  const cli = cliProcess([], { ...process.env, ...sb.awsEnv, KUBECONFIG: '' });
  child = spawn(
    process.execPath,
    [
      ...cli.argv,
      'collect',
      '--cluster',
      sb.scenario.clusterName,
      '--since',
      '2d',
      '--watch',
      '--interval',
      '200ms',
      '--kubeconfig',
      sb.kubeconfigPath,
      '--db',
      dbPath,
    ],
    {
      env: cli.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  const proc = child;
  proc.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  await until('a snapshot line', () => /^snapshot \S+: \d+ nodes/m.test(stderr), 75_000);
  proc.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(stdout).toMatch(/^collected into .*signal\.db in [\d.]+ s$/m);
  expect(stdout).toMatch(/^rows written: [1-9]\d* snapshots? /m);
  expect(stdout).toMatch(/^Cost Explorer: \d+ requests x USD 0\.01 = USD \d+\.\d\d; \d+ final periods skipped$/m);
}, 90_000);
