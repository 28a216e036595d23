import { eachBounded } from '../collectors/each-bounded.js';
import { moduleWorker } from '../server/module-worker.js';
import { bundleBench } from './bundle-bench.js';
import { prepareClusters } from './clusters-bench.js';
import type { BenchContext, BenchResult } from './context.js';
import { prepareEngine } from './engine-bench.js';
import { keepEnvelopeLedger } from './envelope-ledger-file.js';
import { prepareFirstRender } from './first-render-bench.js';
import { retentionKept } from './retention-bench.js';
import { QUICK_SANDBOX, scaleSandbox } from './shared-sandbox.js';
import { storeKept } from './store-bench.js';
import { prepareWatch } from './watch-bench.js';

/**
 * A quick run's preparation (bench/run.ts): what its benches would otherwise prepare one after another, each while
 * one core idles — the shared sandbox started and the watch's one-shot collect made, the clusters' sandbox started,
 * the stores, ledger, engine input and dashboard build written into their cache entries (bench/cache.ts; with
 * --no-cache the run's own folder), week4 simulated when the cache is off — done first, two tasks at a time on the
 * machine's two cores, while nothing is measured. Each bench then finds its part ready. Beside them run the benches
 * whose figures do not depend on the machine's load (request counts, bytes): cost-explorer, bundle and --quick's
 * store-year; their rows are the same as when run alone.
 */

/** The benches run during the preparation: their figures are counts and bytes, not times. */
export const LOAD_FREE_BENCHES = ['cost-explorer', 'bundle', 'store-year'] as const;

export interface EarlyResult {
  result: BenchResult | null;
  error: string | null;
  /** The bench's own wall time (it shared the machine with the preparation: its CPU is not told apart). */
  seconds: number;
}

interface Task {
  name: string;
  run: () => Promise<BenchResult | null | void>;
}

/** `task` of bench/prepare-worker.ts in a worker thread (tsx's loader registered there: workers do not inherit it). */
function inWorker(task: string, ctx: BenchContext): Promise<BenchResult | null> {
  const worker = moduleWorker(import.meta.url, 'prepare-worker', { workerData: { task, quick: ctx.quick, tmp: ctx.tmp } });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: { log?: string; result?: BenchResult | null }) => {
      if (m.log !== undefined) ctx.log(m.log);
      else {
        resolve(m.result ?? null);
        // Done: whatever it left open (a keep-alive socket) does not hold the run.
        void worker.terminate();
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the worker of ${task} stopped (exit code ${code}) before it answered`)));
  });
}

/**
 * Prepares what the benches in `only` need, and runs those of LOAD_FREE_BENCHES among them: their results by name.
 * A preparation that fails is logged and left to its bench, which prepares again (and fails there, in its row).
 */
export async function prepareQuickRun(ctx: BenchContext, only: readonly string[]): Promise<Map<string, EarlyResult>> {
  const wants = (...names: string[]) => names.some((n) => only.includes(n));
  const cacheOff = process.env.LEDGER_BENCH_CACHE === 'off';
  // Longest first (cold), so the two slots end near together.
  const tasks: Task[] = [
    ...(wants('seed') && cacheOff ? [{ name: 'seed: week4 simulated', run: () => inWorker('seed', ctx) }] : []),
    ...(wants('watch')
      ? [{ name: 'the shared sandbox and the watch one-shot collect', run: () => prepareWatch(ctx) }]
      : wants('snapshot')
        ? [{ name: 'the shared sandbox', run: async () => void (await scaleSandbox(QUICK_SANDBOX, 180_000, true)) }]
        : []),
    // Checked here first: a worker only to find the entry kept would cost a second of CPU to start.
    ...(wants('store') && !storeKept(ctx.quick) ? [{ name: 'store: the month kept', run: () => inWorker('store', ctx) }] : []),
    ...(wants('retention') && !retentionKept(ctx.quick)
      ? [{ name: 'retention: the stores kept', run: () => inWorker('retention', ctx) }]
      : []),
    ...(wants('cost-explorer') ? [{ name: 'cost-explorer', run: () => inWorker('cost-explorer', ctx) }] : []),
    ...(wants('clusters') ? [{ name: 'clusters: the sandbox', run: () => prepareClusters(ctx) }] : []),
    ...(wants('store-year') ? [{ name: 'store-year', run: () => inWorker('store-year', ctx) }] : []),
    ...(wants('api-engine', 'first-render') ? [{ name: 'the envelope ledger', run: () => keepEnvelopeLedger(500, ctx.tmp) }] : []),
    ...(wants('first-render') ? [{ name: 'first-render: the dashboard built', run: () => prepareFirstRender(ctx) }] : []),
    ...(wants('engine') ? [{ name: 'engine: the envelope input', run: () => prepareEngine(ctx) }] : []),
    ...(wants('bundle') ? [{ name: 'bundle', run: () => bundleBench(ctx) }] : []),
  ];
  const early = new Map<string, EarlyResult>();
  // Each task's failure is caught and logged below: eachBounded never rejects here.
  await eachBounded(tasks, 2, async (task) => {
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    const isBench = (LOAD_FREE_BENCHES as readonly string[]).includes(task.name);
    try {
      const result = await task.run();
      if (isBench) early.set(task.name, { result: result ?? null, error: null, seconds: seconds() });
      else ctx.log(`prepare: ${task.name} in ${seconds().toFixed(1)} s`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isBench) early.set(task.name, { result: null, error: message, seconds: seconds() });
      else ctx.log(`prepare: ${task.name} failed (its bench prepares again): ${message.slice(0, 300)}`);
    }
  });
  return early;
}
