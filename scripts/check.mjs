// `npm run check`: Prettier's check, the type check (the Node tree, then web/) and ESLint. Prettier runs in one process,
// the type check and ESLint in another (scripts/typecheck-lint.mjs: ESLint's type-aware rules reuse the programs the
// type check built and checked, instead of building and checking them again), side by side: on two cores that takes
// about the time of the longer one instead of the sum. Their outputs are held and printed whole, in that order, under
// the npm-style `> command` line each would print on its own; the exit code is 1 when any of them failed, and the
// summary names which.
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
// the checks start, so both processes inherit it: they get a core when the tests leave one idle.
import { createHash } from 'node:crypto';
import { fork, spawn } from 'node:child_process';
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

const PRETTIER = {
  name: 'format:check',
  command: `prettier --check .${useCache ? ` --cache --cache-strategy content --cache-location ${quoted(join(cacheDir, 'prettier.json'))}` : ''}`,
};
/** What scripts/typecheck-lint.mjs does, as the commands that would do it on their own (`npm run typecheck`, `npm run lint`). */
const IN_ONE = 'in one process (scripts/typecheck-lint.mjs)';
const TYPECHECK = `tsc -p . --noEmit && tsc -p web --noEmit, ${IN_ONE}${useCache ? ', build info in the cache' : ''}`;
const LINT = `eslint . --max-warnings 0, ${IN_ONE}: the typed rules on the type check's programs`;

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

/**
 * Runs scripts/typecheck-lint.mjs: the type check's result, then the lint's, each as it is sent. Output it prints
 * besides (a warning, a crash) goes with the lint's; a part it never sent (it died) fails, with that output.
 */
function typecheckAndLint() {
  const started = Date.now();
  const args = useCache ? [`--cache-dir=${cacheDir}`] : [];
  const child = fork(join(root, 'scripts', 'typecheck-lint.mjs'), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stray = '';
  child.stdout.on('data', (c) => (stray += c));
  child.stderr.on('data', (c) => (stray += c));
  const sent = new Map();
  child.on('message', (m) => sent.set(m.name, m));
  const ended = new Promise((done) => {
    child.on('error', (e) => (stray += `${e.message}\n`));
    child.on('close', (code, signal) => done({ code, signal }));
  });
  const part = (name, command) =>
    ended.then(({ code, signal }) => {
      const m = sent.get(name);
      const seconds = m?.seconds ?? (Date.now() - started) / 1000;
      const last = name === 'lint' || m === undefined;
      let output = `${m?.output ?? ''}${last ? stray : ''}`;
      if (m === undefined) output += `scripts/typecheck-lint.mjs ended (${signal ?? `exit ${code}`}) before the ${name} result.\n`;
      return { name, command, code: m?.code ?? 1, output, seconds };
    });
  return [part('typecheck', TYPECHECK), part('lint', LINT)];
}

const results = await Promise.all([run(PRETTIER), ...typecheckAndLint()]);
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
