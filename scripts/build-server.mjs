#!/usr/bin/env node
// `npm run build:server`: compiles the server side (core, db, collectors, server, sandbox, cli) to JavaScript in
// dist/ with tsc, and copies beside it the files that code reads relative to its own module (import.meta.url), at
// the same relative paths, so `node dist/cli/run.js` runs on plain Node: no TypeScript loader, no sources.
// The dashboard is Vite's (`npm run build:web` writes dist/web, which the compiled server serves).
//
// `--no-check` emits without type-checking (tsc's --noCheck): the same JavaScript byte for byte (tsc emits whether
// or not the types check; noEmitOnError is unset), in half the CPU (11 s instead of 22.6 s). For test/e2e/
// compiled-image.test.ts, which `npm test` runs beside `npm run check`, which type-checks these same sources.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

/*
 * scripts/server-layout.json: `compiled`, the folders tsconfig.build.json compiles (mirrored under dist/);
 * `runtimeFiles`, read at run time relative to the module that reads them: data/ (core/static-prices,
 * sandbox/scenario/catalog, server/services/bill-catalog), db/migrations (db/open-db), sandbox/scenarios
 * (sandbox/scenario/scenario-file). One list for this build and the tests' compiled CLI (test/runner/
 * build-compiled-cli.mjs), which test/e2e/compiled-image.test.ts lays out as the image.
 */
const { compiled: COMPILED, runtimeFiles: RUNTIME_FILES } = JSON.parse(readFileSync(join(ROOT, 'scripts', 'server-layout.json'), 'utf8'));

// A source file deleted since the last build must not live on as JavaScript; dist/web is left to Vite.
for (const dir of [...COMPILED, 'data']) rmSync(join(DIST, dir), { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const noCheck = process.argv.includes('--no-check') ? ['--noCheck'] : [];
const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), ...noCheck], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

for (const path of RUNTIME_FILES) cpSync(join(ROOT, path), join(DIST, path), { recursive: true });
console.log(`compiled ${COMPILED.join(', ')} and copied ${RUNTIME_FILES.join(', ')} to dist/`);
