import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { COMPILED_CLI_CACHE, compiledCliDir, ROOT } from './compiled-cli.js';

/*
 * Global setup of the integration projects: starts building the compiled CLI (test/runner/compiled-cli.ts) in the
 * background when it is not built for the current sources, and lets the tests start meanwhile (they use tsx until
 * it is there). A build outlives a short run (one file) and serves the next; a failed one is left out (tsx goes on).
 */
export function setup(): void {
  if (process.env.LEDGER_COMPILED_CLI === 'off' || existsSync(compiledCliDir())) return;
  mkdirSync(COMPILED_CLI_CACHE, { recursive: true });
  spawn(process.execPath, [join(ROOT, 'test', 'runner', 'build-compiled-cli.mjs'), compiledCliDir()], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  }).unref();
}
