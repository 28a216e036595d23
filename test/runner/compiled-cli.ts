import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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
/** The reliability tests' child processes, compiled beside the CLI (childProcessArgs). */
const { CHILD_FIXTURES } = JSON.parse(readFileSync(join(ROOT, 'test', 'runner', 'child-fixtures.json'), 'utf8')) as {
  CHILD_FIXTURES: string[];
};

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
  // how it is built and laid out
  'scripts/server-layout.json',
  'test/runner/build-compiled-cli.mjs',
  'test/runner/child-fixtures.json',
  ...CHILD_FIXTURES,
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

/**
 * node's arguments to run one of the tests' child processes (`fixture`: its path in the checkout, one of
 * CHILD_FIXTURES): its compiled JavaScript beside the compiled CLI when that is built (about 1–2 CPU s less a start
 * than through tsx, as for the CLI), else the TypeScript through tsx. Throws for a file not in the list.
 */
export function childProcessArgs(fixture: string): string[] {
  const file = relative(ROOT, fixture);
  if (!CHILD_FIXTURES.includes(file))
    throw new Error(`${file} is not one of the compiled child processes (test/runner/child-fixtures.json)`);
  const compiled = compiledCliEntry() === null ? null : join(compiledCliDir(), file.replace(/\.ts$/, '.js'));
  return compiled !== null ? [compiled] : ['--import', 'tsx', join(ROOT, file)];
}

/** A build of the compiled CLI marked as under way (`<dir>.building`) less than this long ago is waited for. */
const BUILD_MARK_MS = 600_000;

/**
 * Starts building the compiled CLI for the current sources in a process of its own (build-compiled-cli.mjs) unless it
 * is built, or a build is under way (marked `<dir>.building` less than ten minutes ago; an older mark is a build that
 * died, and is taken over). Returns the build's process, or null when none was started.
 */
export function startCompiledCliBuild(): ReturnType<typeof spawn> | null {
  if (existsSync(compiledCliDir())) return null;
  mkdirSync(COMPILED_CLI_CACHE, { recursive: true });
  const mark = `${compiledCliDir()}.building`;
  try {
    writeFileSync(mark, String(process.pid), { flag: 'wx' });
  } catch {
    if (Date.now() - statSync(mark).mtimeMs < BUILD_MARK_MS) return null;
    writeFileSync(mark, String(process.pid));
  }
  return spawn(process.execPath, [join(ROOT, 'test', 'runner', 'build-compiled-cli.mjs'), compiledCliDir()], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  });
}

/**
 * The folder of the compiled CLI for the current sources, built: the one the integration projects' setup is building
 * is waited for (the same tsc run, not a second one beside it), else it is built now. Whatever LEDGER_COMPILED_CLI
 * says (for test/e2e/compiled-image.test.ts, which lays out the image from it). Throws, naming the folder, when no
 * build completes within `timeoutMs`.
 */
export async function builtCompiledCli(timeoutMs = 300_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(join(compiledCliDir(), '.complete'))) {
    if (Date.now() > deadline) throw new Error(`the compiled CLI was not built in ${compiledCliDir()} within ${timeoutMs / 1000} s`);
    const build = startCompiledCliBuild();
    if (build !== null) {
      const code = await new Promise<number | null>((done) => build.on('exit', done));
      if (code !== 0) throw new Error(`building the compiled CLI into ${compiledCliDir()} failed (exit code ${code})`);
    } else await new Promise((r) => setTimeout(r, 250));
  }
  return compiledCliDir();
}
