import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchContext, BenchResult } from './context.js';
import { describeMachine, loadSampler } from './machine.js';
import { type BenchRow, figure, formatTable } from './report.js';
import { bundleBench } from './bundle-bench.js';
import { clustersBench } from './clusters-bench.js';
import { costExplorerBench } from './cost-explorer-bench.js';
import { curBench } from './cur-bench.js';
import { engineBench } from './engine-bench.js';
import { enginePoolBench } from './engine-pool-bench.js';
import { firstRenderBench } from './first-render-bench.js';
import { ingestBench } from './ingest-bench.js';
import { retentionBench } from './retention-bench.js';
import { seedBench } from './seed-bench.js';
import { findKubectl, snapshotBench } from './snapshot-bench.js';
import { startBench } from './start-bench.js';
import { storeBench } from './store-bench.js';
import { storeYearBench } from './store-year-bench.js';
import { watchBench } from './watch-bench.js';
import { stopSharedSandboxes } from './shared-sandbox.js';
import { RUN_CACHE_ENV } from './cache.js';
import { type EarlyResult, BESIDE_PREPARATION, prepareQuickRun } from './prepare.js';

/**
 * `npm run bench [-- --quick] [-- --only snapshot,store]`: every figure beside a peer or a bound measured in the
 * same run on the same machine, printed as a table and written to bench/results.json. Performance claims come
 * from here, never from timed tests. Run it with `nice` when the machine is busy with other work.
 */

/**
 * CPU seconds of this process and of the children it has waited for (/proc/self/stat utime, stime, cutime, cstime):
 * a bench's cost measured apart from the machine's load, beside its wall time. Null off Linux.
 */
function cpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    // After "pid (comm) ": state is field 3, utime..cstime are fields 14..17 (1-based), in clock ticks of 1/100 s.
    return fields.slice(11, 15).reduce((s, f) => s + Number(f), 0) / 100;
  } catch {
    return null;
  }
}

const didNotComplete = (name: string, message: string): BenchRow =>
  figure({
    bench: name,
    figure: `${name}: did not complete`,
    unit: '',
    ours: null,
    peerLabel: '-',
    peer: null,
    target: { kind: 'info' },
    note: message.slice(0, 300),
  });

const BENCHES: Record<string, (ctx: BenchContext) => Promise<BenchResult>> = {
  snapshot: snapshotBench,
  store: storeBench,
  'store-year': storeYearBench,
  seed: seedBench,
  ingest: ingestBench,
  'cost-explorer': costExplorerBench,
  bundle: bundleBench,
  engine: engineBench,
  'api-engine': enginePoolBench,
  cur: curBench,
  retention: retentionBench,
  start: startBench,
  'first-render': firstRenderBench,
  watch: watchBench,
  clusters: clustersBench,
};

const HELP = `Usage: npm run bench [-- --quick] [-- --only ${Object.keys(BENCHES).join(',')}] [-- --no-cache]

  --quick     reduced scale, under 3 minutes in all (the full run takes about half an hour)
  --only      run only these benches (comma-separated)
  --no-cache  prepare every bench's data afresh (a generated CUR month, the quick store), not the copy kept
              under node_modules/.cache/nodepool-ledger/bench/ (bench/cache.ts); what one bench prepares is
              still shared with the others of the same run. The tests' scenario cache, where the seed bench
              reads week4's simulated history, is left as it is

  --quick prepares what its benches need first, two tasks at a time, and runs the benches whose figures are
  counts, bytes or CPU seconds, not wall times (${BESIDE_PREPARATION.join(', ')}), beside that (bench/prepare.ts)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      only: { type: 'string' },
      'no-cache': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values['no-cache']) process.env.LEDGER_BENCH_CACHE = 'off';
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(BENCHES);
  const unknown = only.filter((n) => !(n in BENCHES));
  if (unknown.length) {
    console.error(`unknown bench ${unknown.join(', ')}\n\n${HELP}`);
    return 2;
  }
  const quick = values.quick === true;
  const machine = describeMachine(findKubectl());
  const tmp = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  const started = Date.now();
  const log = (m: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`);
  log(
    `${quick ? 'quick' : 'full'} run on ${machine.cores} x ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${machine.loadAverageAtStart}`,
  );
  const rows: BenchRow[] = [];
  const details: Record<string, Record<string, unknown> & { seconds: number; cpuSeconds: number | null }> = {};
  const load = loadSampler();
  // With the cache off, what a bench prepares is kept for the other benches of this run only (bench/cache.ts).
  process.env[RUN_CACHE_ENV] = join(tmp, 'prepared');
  try {
    let early = new Map<string, EarlyResult>();
    if (quick) {
      // What the benches need, prepared first, two at a time, while nothing is measured (bench/prepare.ts).
      const t0 = Date.now();
      const cpu0 = cpuSeconds();
      early = await prepareQuickRun({ quick, tmp, log }, only);
      const cpu1 = cpuSeconds();
      details.prepare = { seconds: (Date.now() - t0) / 1000, cpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
      log(
        `prepare: done in ${details.prepare.seconds.toFixed(1)} s, ${details.prepare.cpuSeconds?.toFixed(1) ?? '?'} CPU s (its threads' and children's included; ${[...early.keys()].join(', ') || 'no bench'} run beside it)`,
      );
    }
    for (const name of only) {
      const ran = early.get(name);
      if (ran !== undefined) {
        // Run during the preparation (its figures are counts and bytes): its CPU is not told apart from it.
        if (ran.result !== null) rows.push(...ran.result.rows);
        else rows.push(didNotComplete(name, ran.error ?? 'no result'));
        details[name] = {
          ...(ran.result?.details ?? { error: ran.error }),
          seconds: ran.seconds,
          cpuSeconds: null,
          duringPreparation: true,
        };
        log(`${name}: done in ${ran.seconds.toFixed(1)} s during the preparation${ran.error === null ? '' : `, failed: ${ran.error}`}`);
        continue;
      }
      const t0 = Date.now();
      const cpu0 = cpuSeconds();
      const spent = () => {
        const cpu1 = cpuSeconds();
        return { seconds: (Date.now() - t0) / 1000, cpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
      };
      try {
        const r = await BENCHES[name]({ quick, tmp, log });
        rows.push(...r.rows);
        details[name] = { ...r.details, ...spent() };
        log(
          `${name}: done in ${details[name].seconds.toFixed(1)} s, ${details[name].cpuSeconds?.toFixed(1) ?? '?'} CPU s (its children's included)`,
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log(`${name} failed: ${message}`);
        rows.push(didNotComplete(name, message));
        details[name] = { error: message, ...spent() };
      }
    }
  } finally {
    await stopSharedSandboxes();
    load.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const loadAverage = load.summary();
  const seconds = (Date.now() - started) / 1000;
  const out = fileURLToPath(new URL('./results.json', import.meta.url));
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ mode: quick ? 'quick' : 'full', startedAt: new Date(started).toISOString(), seconds, machine, loadAverage, rows, details }, null, 2)}\n`,
  );
  console.log(
    `\n${formatTable(rows)}\n\n${quick ? 'quick' : 'full'} run, ${seconds.toFixed(0)} s, on ${machine.cores} x ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}${machine.kubectl ? `, kubectl ${machine.kubectl}` : ''}; load average ${machine.loadAverageAtStart} at the start, ${loadAverage.max} at most, ${loadAverage.end} at the end (the benches themselves use up to 2). Written to bench/results.json.`,
  );
  return rows.some((r) => r.verdict === 'FAIL' || r.verdict === 'error') ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  },
);
