import { parentPort, workerData } from 'node:worker_threads';
import type { BenchContext, BenchResult } from './context.js';

/**
 * One task of a quick run's preparation (bench/prepare.ts) in a worker thread, so that work done in this thread
 * (SQLite writes, a simulation) runs beside the preparation's other task instead of after it: a bench's data filled
 * into its cache entry, or a bench whose figures do not depend on the machine's load. Posts its log lines, then
 * `{ result }` (the bench's rows and details, or null).
 */

const { task, quick, tmp } = workerData as { task: string; quick: boolean; tmp: string };
const ctx: BenchContext = { quick, tmp, log: (message) => parentPort?.postMessage({ log: message }) };

async function run(): Promise<BenchResult | null> {
  switch (task) {
    case 'store':
      await (await import('./store-bench.js')).prepareStore(ctx);
      return null;
    case 'retention':
      await (await import('./retention-bench.js')).prepareRetention(ctx);
      return null;
    case 'cost-explorer':
      return (await import('./cost-explorer-bench.js')).costExplorerBench(ctx);
    case 'store-year':
      return (await import('./store-year-bench.js')).storeYearBench(ctx);
    default:
      throw new Error(`no preparation task ${task}`);
  }
}

parentPort?.postMessage({ result: await run() });
