import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

/**
 * Every script, style sheet and page of the build written beside itself brotli- and gzip-compressed (`.br`, `.gz`),
 * which `serve` sends to a browser that accepts them (server/app.ts, @fastify/static's preCompressed): the first visit
 * of a chart page downloads about 250 KB instead of 750 KB (Recharts' chunk 391 KB -> ~100 KB), and nothing is
 * compressed per request. Built once, at the highest levels.
 */
function precompressed(): Plugin {
  return {
    name: 'nodepool-ledger:precompressed',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir;
      if (dir === undefined) return;
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|html|svg)$/.test(name)) continue;
        const file = join(dir, name);
        const body = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

/*
 * Test tiers (README, "Tests"). A file is in exactly one:
 * - browser: the dashboard in headless Chromium (needs the built dashboard: npm run test:browser builds it);
 * - integration: the sandbox, HTTP servers (buildApp, even through inject), child processes;
 * - unit: everything else — pure functions and SQLite in memory or in a file — in seconds for the edit loop. Its
 *   setup file makes starting a server or a process throw, so a test that does belongs in INTEGRATION; its files
 *   share one module cache per worker, so a unit test restores what it changes (env, spies, module state).
 */
// hostile-dashboard: every page in Chromium over hostile names (a security test, in the worker's Chromium as these).
const BROWSER = ['test/browser/**/*.test.ts', 'test/security/hostile-dashboard.test.ts'];
const INTEGRATION = [
  'test/**/*.test.ts',
  // cli/simulate*.test.ts call main() in-process on files (unit tier), except its one real-process run below
  'cli/**/!(simulate)*.test.ts',
  'cli/simulate-process.test.ts',
  'sandbox/**/*.test.ts',
  'collectors/**/{collect,collect-recent,allocation-tags,incremental,list-all,watch-cache,keep-alive,metrics}.test.ts',
  'server/{app,response-cache,status-runs,strict-query}.test.ts',
  'server/services/nodepool-limits-service.test.ts',
  // SQLite only, but two weeks of snapshots written to a file and read back every way: ~10 s on its own.
  'db/repositories/range-rollups.test.ts',
  // the what-if repository, then its routes through buildApp (inject)
  // the CUR's S3 and Athena clients against recorded answers and the sandbox's endpoints
  'collectors/cur/{athena-query,athena-statement,remote-import,s3-source}.test.ts',
];
/*
 * Integration files that get a fresh process each (project `integration-isolated`); every other integration file
 * runs in one worker process shared file after file (project `integration`: 0.85–1 CPU s a file saved, the server,
 * collectors and SDK loaded once), with test/runner/shared-worker-guard.ts putting back what a file changed (env,
 * spies, cwd, signal listeners). A file belongs here only when it needs the process to itself — say why.
 */
const INTEGRATION_ISOLATED = [
  // Wall-clock bounds on work done in the test's own process (every GET route within 15 s under a held write lock;
  // a what-if answered in under 50 ms while the engine pool works; an alert attempt given up within 300 ms): kept
  // away from a heap and event loop that earlier files have grown or left timers in. serve-readonly went over its
  // bound (17 s) in a shared worker at load 9, alert-delivery in the lead's shared run.
  'test/reliability/serve-readonly.test.ts',
  'test/e2e/engine-pool.test.ts',
  'test/e2e/alert-delivery.test.ts',
];
const ALL = ['**/*.test.ts', '**/*.test.tsx'];

// One file configures the dashboard build (root web/, output dist/web) and the test runner.
export default defineConfig({
  root: 'web',
  plugins: [react(), precompressed()],
  // web/ imports the API contract's types as @schemas/<module> (the same alias as web/tsconfig.json); types only, so
  // nothing of server/ reaches the bundle.
  resolve: { alias: { '@schemas': fileURLToPath(new URL('./server/schemas', import.meta.url)) } },
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: { host: '127.0.0.1', proxy: { '/api': 'http://127.0.0.1:5173' } },
  test: {
    root: '.',
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    // A beforeAll that seeds a shared ledger cold, or waits for another file seeding it, with three files at a time.
    hookTimeout: 240_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on this 2-core machine, where the suite then used about
    // one core on average (its tests wait on sandboxes, servers and child processes much of the time): 747 s of
    // Vitest wall time for 700 s of CPU. Two side by side still left the machine idle 22 % of the time (a cold
    // `npm test` alone: 1,138 CPU s in 726 s on two cores, the niced checks included): three files at a time fill it.
    maxWorkers: 3,
    reporters: ['default', './test/runner/skipped-tests-reporter.ts'],
    // Each test file is its own worker: a simulated history (seconds of CPU for week4) is kept on disk and read back
    // by the next worker that asks for the same one (sandbox/scenario/scenario-cache.ts; the key covers the sources).
    // Likewise a seeded ledger.db, for the test files that only read one (test/fixtures/seeded-db-cache.ts; the key
    // covers the options and every production source).
    env: {
      LEDGER_SCENARIO_CACHE: fileURLToPath(new URL('./node_modules/.cache/nodepool-ledger/scenarios', import.meta.url)),
      LEDGER_SEEDED_DB_CACHE: fileURLToPath(new URL('./node_modules/.cache/nodepool-ledger/seeded-dbs', import.meta.url)),
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL,
          exclude: [...INTEGRATION, ...BROWSER],
          setupFiles: ['./test/runner/unit-guard.ts'],
          // Worker threads sharing loaded modules between files: unit tests start nothing and leave no state behind
          // (a stubbed env or spy is restored), and the tier takes a fifth of the CPU and wall time of a fresh
          // process per file (5 s instead of 23 s of CPU).
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...BROWSER, ...INTEGRATION_ISOLATED],
          setupFiles: ['./test/runner/shared-worker-guard.ts'],
          // Builds the compiled CLI in the background for the tests that start it as a process (compiled-cli.ts).
          globalSetup: ['./test/runner/compiled-cli-setup.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'integration-isolated', include: INTEGRATION_ISOLATED, globalSetup: ['./test/runner/compiled-cli-setup.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER,
          // One worker process runs file after file without loading the server, the collectors and Playwright again
          // (2–4 s of CPU a file): each file starts its own server and closes it in afterAll, and restores what it
          // stubs, so nothing of one is left for the next (shared-worker-guard.ts makes sure). Chromium is the
          // worker's: launched by its first file, each file's pages closed by the harness as the file ends, and
          // closed by this environment as the worker ends (test/browser/worker-chromium.ts).
          setupFiles: ['./test/runner/shared-worker-guard.ts'],
          environment: './test/runner/browser-environment.ts',
          isolate: false,
        },
      },
    ],
  },
});
