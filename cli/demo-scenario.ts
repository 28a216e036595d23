import { primeScenario } from '../sandbox/index.js';
import { moduleWorker } from '../server/module-worker.js';
import type { Scenario } from '../sandbox/scenario/types.js';

/*
 * The demo's simulation off the dashboard's thread: simulating week4 is one synchronous call of 10 s of CPU (over a
 * minute at load average 12), during which a server on the same thread answers nothing. Run in a worker thread, the
 * dashboard answers meanwhile; the history it posts back is primed into the sandbox's cache, so startSandbox does
 * not simulate it again.
 */

/** The compiled JavaScript beside this file, or the TypeScript source through tsx (a checkout). */
const startWorker = (workerData: unknown) => moduleWorker(import.meta.url, 'demo-scenario-worker', { workerData });

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
