import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { primeScenario } from '../sandbox/index.js';
import type { Scenario } from '../sandbox/scenario/types.js';

/*
 * The demo's simulation off the dashboard's thread: simulating week4 is one synchronous call of 10 s of CPU (over a
 * minute at load average 12), during which a server on the same thread answers nothing. Run in a worker thread, the
 * dashboard answers meanwhile; the history it posts back is primed into the sandbox's cache, so startSandbox does
 * not simulate it again.
 */

/** tsx's `tsx/esm/api` (its `import` export), as a file path. */
function tsxEsmApiPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return join(dirname(manifest), pkg.exports['./esm/api'].import.default);
}

/** The compiled JavaScript beside this file, or the TypeScript source through tsx (a checkout), as engine-pool does. */
function startWorker(workerData: unknown): Worker {
  if (import.meta.url.endsWith('.js')) return new Worker(new URL('./demo-scenario-worker.js', import.meta.url), { workerData });
  // Worker threads do not inherit tsx's loader hooks: the worker registers them itself, importing tsx's API by its file.
  const tsx = pathToFileURL(tsxEsmApiPath()).href;
  const entry = new URL('./demo-scenario-worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then((t) => { (t.register ?? t.default.register)(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, workerData });
}

/** Simulates `name` in a worker thread and primes the sandbox's cache with it; resolves when startSandbox can use it. */
export async function simulateOffThread(name: string, seed: number, karpenterVersion: string): Promise<Scenario> {
  const worker = startWorker({ name, seed, karpenterVersion });
  const scenario = await new Promise<Scenario>((resolve, reject) => {
    worker.once('message', (s: Scenario) => resolve(s));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the simulation's worker stopped (exit code ${code}) before it answered`)));
  });
  await worker.terminate();
  primeScenario(scenario, name, seed, karpenterVersion);
  return scenario;
}
