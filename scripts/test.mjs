// `npm test`: the checks (scripts/check.mjs: Prettier, tsc, ESLint) side by side with the dashboard's build and the
// tests (`npm run build:web`, then `vitest run` with this script's arguments), instead of one after the other. The
// tests leave a core idle for about a quarter of their run (they wait on sandboxes, servers, Chromium and child
// processes), and the checks are about 150 CPU s of single-threaded work in two processes (cold; 234 before the type
// check and ESLint shared one, scripts/typecheck-lint.mjs): run at the lowest priority (nice +19: the
// kernel gives them a core the tests leave idle, and about 1.5 % of a busy one), they fill that idle time instead of
// holding the tests back for 96 s, and the tests' wall-clock bounds see the machine much as before.
// LEDGER_CHECK_NICE sets how much lower (0: the tests' priority; test/checks/checks-bite.test.ts runs `npm test` in a
// scratch copy from inside the suite, where the checks are the test's own work).
//
// The run fails when either fails. A failed check still stops everything: it ends the tests at once (SIGTERM to
// Vitest's process group: Vitest, its workers and what they started) and prints the checks' output, each check under its
// `> name` line and the summary naming the ones that failed, as `npm run check` does. A passed check's output is
// printed after the tests', so the Vitest report is not cut into.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const vitestArgs = process.argv.slice(2);

/** Runs a command to its end: its exit code (1 when killed by a signal). */
const ended = (child) =>
  new Promise((done) => {
    child.on('error', () => done(1));
    child.on('close', (code) => done(code ?? 1));
  });

// The checks: their output held (check.mjs prints it whole when they end), at a lower priority.
const nice = process.env.LEDGER_CHECK_NICE ?? '19';
const check = spawn(process.execPath, [join(ROOT, 'scripts', 'check.mjs'), `--nice=${nice}`], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let checkOutput = '';
check.stdout.on('data', (c) => (checkOutput += c));
check.stderr.on('data', (c) => (checkOutput += c));

// The build, then the tests, their output as it comes. Vitest leads a process group of its own (its workers, and what
// they start, are in it), so that stopping it stops them all; an interrupt of this run is passed on to it.
const ownGroup = process.platform !== 'win32';
let tests = null;
let stopped = false;
let interrupted = false;
const stopTests = (signal) => {
  if (tests === null || tests.exitCode !== null || tests.signalCode !== null) return;
  try {
    if (ownGroup) process.kill(-tests.pid, signal);
    else tests.kill(signal);
  } catch {
    // ended meanwhile
  }
};
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopped = true;
    interrupted = true;
    stopTests(signal);
    check.kill(signal);
  });
const testsDone = (async () => {
  const built = await ended(spawn('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' }));
  if (built !== 0 || stopped) return built || 1;
  const pkg = createRequire(import.meta.url).resolve('vitest/package.json');
  const vitest = join(dirname(pkg), JSON.parse(readFileSync(pkg, 'utf8')).bin.vitest);
  tests = spawn(process.execPath, [vitest, 'run', ...vitestArgs], { cwd: ROOT, stdio: 'inherit', detached: ownGroup });
  return ended(tests);
})();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);
let testsTook = '';
void testsDone.then(() => (testsTook = seconds(started)));

const checked = await ended(check);
if (checked !== 0) {
  stopped = true;
  stopTests('SIGTERM');
  await testsDone;
  process.stdout.write(checkOutput);
  console.error(interrupted ? '\nnpm test: interrupted.' : '\nnpm test: the checks failed, so the tests were stopped.');
  process.exit(1);
}
const checkTook = seconds(started);
const tested = await testsDone;
process.stdout.write(checkOutput);
console.log(`\nnpm test: the checks ended after ${checkTook} s, the build and the tests after ${testsTook} s`);
process.exit(tested === 0 ? 0 : 1);
