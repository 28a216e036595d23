// `npm run check`: Prettier's check, the type check (the Node tree, then web/) and ESLint, side by side. Each is one
// single-threaded process, so on two cores running them together takes the time of the longest (ESLint's) instead of
// the sum. Their outputs are held and printed whole, in that order, under the npm-style `> command` line each would
// print on its own; the exit code is 1 when any of them failed, and the summary names which.
//
// Prettier and tsc keep what they learnt about unchanged files between runs, in a folder of node_modules/.cache per
// checkout (a clean clone starts without it and checks everything; `--no-cache` or LEDGER_CHECK_CACHE=off ignores
// it). Both caches only skip work whose inputs are unchanged: Prettier's entry for a file is keyed by its content,
// Prettier's version and the options; tsc's build info holds a hash of every file of the program (sources, lib and
// node_modules declarations) and the compiler options, and re-checks a file when it or anything it depends on
// changed. ESLint runs without its cache: its type-aware rules (no-floating-promises, …) read other files' types,
// which its per-file cache does not track, so a stale entry could hide an error.
//
// `--nice=N` (scripts/test.mjs, which runs the checks beside the tests) raises this process's nice value by N before
// the checks start, so the three inherit it: they get a core when the tests leave one idle.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { basename, join } from 'node:path';

const useCache = !process.argv.includes('--no-cache') && process.env.LEDGER_CHECK_CACHE !== 'off';
const nice = Number(process.argv.find((a) => a.startsWith('--nice='))?.slice('--nice='.length) ?? 0);
if (Number.isInteger(nice) && nice > 0) {
  try {
    setPriority(Math.min(19, getPriority() + nice));
  } catch {
    // Not supported here: the checks run at the priority they were given.
  }
}
// One folder per checkout (worktrees and scratch copies may share node_modules through a link): the folder's name,
// then a hash of its full path.
const root = process.cwd();
const cacheDir = join(
  root,
  'node_modules/.cache/nodepool-ledger/check',
  `${basename(root)}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`,
);
/** A path as one word for the shell. */
const quoted = (path) => `'${path.replaceAll("'", "'\\''")}'`;
const tscCache = (name) => (useCache ? ` --incremental --tsBuildInfoFile ${quoted(join(cacheDir, `${name}.tsbuildinfo`))}` : '');

const CHECKS = [
  {
    name: 'format:check',
    command: `prettier --check .${useCache ? ` --cache --cache-strategy content --cache-location ${quoted(join(cacheDir, 'prettier.json'))}` : ''}`,
  },
  { name: 'typecheck', command: `tsc -p . --noEmit${tscCache('node')} && tsc -p web --noEmit${tscCache('web')}` },
  { name: 'lint', command: 'eslint . --max-warnings 0' },
];

/** Runs a shell command with node_modules/.bin on PATH (as npm does), its stdout and stderr in one buffer. */
function run({ name, command }) {
  const started = Date.now();
  return new Promise((done) => {
    const env = { ...process.env, PATH: `${process.cwd()}/node_modules/.bin:${process.env.PATH ?? ''}` };
    const child = spawn(command, { shell: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (code) => done({ name, command, code, output, seconds: (Date.now() - started) / 1000 }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const r of results) {
  process.stdout.write(`\n> ${r.name}\n> ${r.command}\n\n${r.output}`);
  if (r.output !== '' && !r.output.endsWith('\n')) process.stdout.write('\n');
}
const failed = results.filter((r) => r.code !== 0);
const times = results.map((r) => `${r.name} ${r.seconds.toFixed(0)} s`).join(', ');
if (failed.length > 0) {
  console.error(`\ncheck failed: ${failed.map((r) => r.name).join(', ')} (${times})`);
  process.exit(1);
}
console.log(`\ncheck passed (${times}${useCache ? '; caches in ' + cacheDir.slice(root.length + 1) : ''})`);
