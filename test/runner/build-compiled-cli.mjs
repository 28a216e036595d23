// Builds the compiled CLI into the folder given (test/runner/compiled-cli.ts says why): tsc into a folder of its own,
// the data files linked beside it, then renamed into place, so a reader sees a whole build or none.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = process.argv[2];
if (!target || existsSync(target)) process.exit(0);
const staging = `${target}.${process.pid}.tmp`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck', '--outDir', staging], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (built.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  rmSync(`${target}.building`, { force: true });
  process.exit(1);
}
// The reliability tests' child processes (compiled-cli.ts, CHILD_FIXTURES) beside the CLI, so that they start compiled
// too: each transpiled on its own, as tsc would emit it (they import only the sources compiled above, by relative
// paths that hold in this tree).
const ts = createRequire(import.meta.url)('typescript');
const { CHILD_FIXTURES } = JSON.parse(readFileSync(join(ROOT, 'test', 'runner', 'child-fixtures.json'), 'utf8'));
for (const file of CHILD_FIXTURES) {
  const out = ts.transpileModule(readFileSync(join(ROOT, file), 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const js = join(staging, file.replace(/\.ts$/, '.js'));
  mkdirSync(dirname(js), { recursive: true });
  writeFileSync(js, out.outputText);
}
// As scripts/build-server.mjs lays them out (its list), and the dashboard where the compiled server looks for it (../web).
const { runtimeFiles } = JSON.parse(readFileSync(join(ROOT, 'scripts', 'server-layout.json'), 'utf8'));
for (const [link, to] of [...runtimeFiles.map((path) => [path, path]), ['web', 'dist/web']])
  symlinkSync(join(ROOT, to), join(staging, link));
writeFileSync(join(staging, '.complete'), '');
try {
  renameSync(staging, target);
} catch {
  rmSync(staging, { recursive: true, force: true }); // another build got there first
}
rmSync(`${target}.building`, { force: true }); // compiled-cli-setup.ts's mark
