import { eachBounded } from '../collectors/each-bounded.js';
import { moduleWorker } from '../server/module-worker.js';
import { bundleBench } from './bundle-bench.js';
import { prepareClusters } from './clusters-bench.js';
import type { BenchContext, BenchResult } from './context.js';
import { prepareEngine } from './engine-bench.js';
import { prepareEnginePool } from './engine-pool-bench.js';
import { keepEnvelopeLedger } from './envelope-ledger-file.js';
import { prepareFirstRender } from './first-render-bench.js';
import { retentionKept } from './retention-bench.js';
import { QUICK_SANDBOX, scaleSandbox } from './shared-sandbox.js';
import { storeKept } from './store-bench.js';
import { watchBench } from './watch-bench.js';

/**
 * A quick run's preparation (bench/run.ts): what its benches would otherwise prepare one after another, each while
 * one core idles — the snapshot rows' and the clusters' sandboxes started; api-engine's `serve` and first-render's
 * server started over the envelope ledger, their engine warm-ups answered (and Chromium started for the second); the
 * stores, ledger, engine input and dashboard build written into their cache entries (bench/cache.ts; with --no-cache
 * the run's own folder) — done first, two tasks at a time on the machine's two cores, while nothing is measured. Each
 * bench then finds its part ready. Beside them run the benches whose figures do not depend on the machine's load
 * (request counts, bytes): cost-explorer, bundle and --quick's store-year, their rows the same as when run alone; and
 * the watch rows, whose collector mostly waits for its sandbox's clock and whose figures are its CPU seconds (a busy
 * machine stretches their wall time, not the CPU they take, beyond its caches' share), peak RSS and bytes written.
 */

/** The benches run during the preparation (see above): none of their figures is a wall time. */
export const BESIDE_PREPARATION = ['cost-explorer', 'bundle', 'store-year', 'watch'] as const;

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
 * Prepares what the benches in `only` need, and runs those of BESIDE_PREPARATION among them: their results by name.
 * A preparation that fails is logged and left to its bench, which prepares again (and fails there, in its row).
 */
export async function prepareQuickRun(ctx: BenchContext, only: readonly string[]): Promise<Map<string, EarlyResult>> {
  const wants = (...names: string[]) => names.some((n) => only.includes(n));
  // The envelope ledger once, for the two servers over it (a kept entry is read, not written again).
  let ledger: Promise<void> | null = null;
  const ledgerKept = (): Promise<void> => (ledger ??= keepEnvelopeLedger(500, ctx.tmp));
  // Longest first (cold: the fills of the retention stores, the store's month and store-year's), so the two slots end
  // near together.
  const tasks: Task[] = [
    // Checked here first: a worker only to find the entry kept would cost a second of CPU to start.
    ...(wants('retention') && !retentionKept(ctx.quick)
      ? [{ name: 'retention: the stores kept', run: () => inWorker('retention', ctx) }]
      : []),
    ...(wants('store') && !storeKept(ctx.quick) ? [{ name: 'store: the month kept', run: () => inWorker('store', ctx) }] : []),
    ...(wants('store-year') ? [{ name: 'store-year', run: () => inWorker('store-year', ctx) }] : []),
    ...(wants('cost-explorer') ? [{ name: 'cost-explorer', run: () => inWorker('cost-explorer', ctx) }] : []),
    ...(wants('clusters') ? [{ name: 'clusters: the sandbox', run: () => prepareClusters(ctx) }] : []),
    ...(wants('api-engine')
      ? [{ name: 'api-engine: serve started, its engine warm-up answered', run: () => ledgerKept().then(() => prepareEnginePool(ctx)) }]
      : []),
    ...(wants('first-render')
      ? [
          {
            name: 'first-render: served, Chromium started, the engine warm-up answered',
            run: () => ledgerKept().then(() => prepareFirstRender(ctx)),
          },
        ]
      : []),
    ...(wants('snapshot')
      ? [{ name: "the snapshot rows' sandbox", run: async () => void (await scaleSandbox(QUICK_SANDBOX, 180_000, true)) }]
      : []),
    ...(wants('engine') ? [{ name: 'engine: the envelope input', run: () => prepareEngine(ctx) }] : []),
    ...(wants('bundle') ? [{ name: 'bundle', run: () => bundleBench(ctx) }] : []),
  ];
  const early = new Map<string, EarlyResult>();
  const settle = async (name: string, run: () => Promise<BenchResult | null | void>): Promise<void> => {
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    const isBench = (BESIDE_PREPARATION as readonly string[]).includes(name);
    try {
      const result = await run();
      if (isBench) early.set(name, { result: result ?? null, error: null, seconds: seconds() });
      else ctx.log(`prepare: ${name} in ${seconds().toFixed(1)} s`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isBench) early.set(name, { result: null, error: message, seconds: seconds() });
      else ctx.log(`prepare: ${name} failed (its bench prepares again): ${message.slice(0, 300)}`);
    }
  };
  // The watch rows outside the two slots, from the start: their collector mostly waits for the sandbox's clock (about
  // 15 CPU s over 40 s of wall time, its sandbox's start and the one-shot collect included), so in a slot of its own it
  // would hold one of the two cores idle most of that time.
  const watching = wants('watch') ? settle('watch', () => watchBench(ctx)) : Promise.resolve();
  // Each task's failure is caught and logged by settle: eachBounded never rejects here.
  await eachBounded(tasks, 2, (task) => settle(task.name, task.run));
  await watching;
  return early;
}
