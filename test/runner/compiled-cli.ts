import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashTree } from '../../bench/cache.js';

/*
 * The command line compiled to JavaScript once per change of its sources, for the tests that run it as a process
 * (test/reliability/fixtures/cli.ts): `node <dir>/cli/run.js` instead of `node --import tsx cli/run.ts` saves about
 * 2 CPU s a start (importing the collectors and the server: 4.2 CPU s through tsx's loader, 2.1 compiled), and the
 * suite starts the CLI a few dozen times. What it runs is what the image runs: tsc over tsconfig.build.json (with
 * --noCheck: `npm run check` type-checks the sources, and tsc emits the same JavaScript either way), the data files
 * beside it as scripts/build-server.mjs lays them out (links here), the built dashboard as its web/.
 *
 * test/runner/compiled-cli-setup.ts starts the build in the background when the integration tests start; until it is
 * done (or if it failed), the tests run the CLI through tsx as before. Folder: node_modules/.cache/nodepool-ledger/
 * compiled-cli/<hash of the sources and tsconfigs>. LEDGER_COMPILED_CLI=off runs every start through tsx.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const COMPILED_CLI_CACHE = join(ROOT, 'node_modules', '.cache', 'nodepool-ledger', 'compiled-cli');
/** What tsconfig.build.json compiles, and what the compiled code reads. */
const SOURCES = [
  'core',
  'db',
  'collectors',
  'sandbox',
  'cli',
  'server',
  'data',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
];

let dir: string | null = null;

/** The folder of the compiled CLI for the sources as they are now (computed once per process; may not exist yet). */
export function compiledCliDir(): string {
  if (dir === null) {
    const hash = createHash('sha256');
    for (const s of SOURCES) hashTree(hash, join(ROOT, s));
    dir = join(COMPILED_CLI_CACHE, hash.digest('hex').slice(0, 32));
  }
  return dir;
}

/** `<dir>/cli/run.js` when the compiled CLI for the current sources is built, else null (run it through tsx). */
export function compiledCliEntry(): string | null {
  if (process.env.LEDGER_COMPILED_CLI === 'off') return null; // tsx, as before (to compare, or to rule it out)
  const entry = join(compiledCliDir(), 'cli', 'run.js');
  return existsSync(join(compiledCliDir(), '.complete')) ? entry : null;
}
