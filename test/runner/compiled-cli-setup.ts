import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
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
  // Both integration projects run this setup: the first to mark the build starts it (a mark older than ten minutes
  // is a build that died, and is taken over).
  const mark = `${compiledCliDir()}.building`;
  try {
    writeFileSync(mark, String(process.pid), { flag: 'wx' });
  } catch {
    if (Date.now() - statSync(mark).mtimeMs < 600_000) return;
    writeFileSync(mark, String(process.pid));
  }
  spawn(process.execPath, [join(ROOT, 'test', 'runner', 'build-compiled-cli.mjs'), compiledCliDir()], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  }).unref();
}
