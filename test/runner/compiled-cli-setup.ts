import { startCompiledCliBuild } from './compiled-cli.js';

/*
 * Global setup of the integration projects: starts building the compiled CLI (test/runner/compiled-cli.ts) in the
 * background when it is not built for the current sources, and lets the tests start meanwhile (they use tsx until
 * it is there; test/e2e/compiled-image.test.ts waits for it). A build outlives a short run (one file) and serves the
 * next; a failed one is left out (tsx goes on).
 */
export function setup(): void {
  if (process.env.LEDGER_COMPILED_CLI === 'off') return;
  // Both integration projects run this setup: the first to mark the build starts it.
  startCompiledCliBuild()?.unref();
}
