// `npm run check`: Prettier's check, the type check (the Node tree, then web/) and ESLint, side by side. Each is one
// single-threaded process, so on two cores running them together takes the time of the longest (ESLint's) instead of
// the sum. Their outputs are held and printed whole, in that order, under the npm-style `> command` line each would
// print on its own; the exit code is 1 when any of them failed, and the summary names which.
import { spawn } from 'node:child_process';

const CHECKS = [
  { name: 'format:check', command: 'prettier --check .' },
  { name: 'typecheck', command: 'tsc -p . --noEmit && tsc -p web --noEmit' },
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
console.log(`\ncheck passed (${times})`);
