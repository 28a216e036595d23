import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCache } from './cache.js';
import { lastJsonLine, measure } from './child.js';
import { type BenchContext, type BenchResult, MB } from './context.js';
import { type BenchRow, figure } from './report.js';

/**
 * CUR import (issues 16, 24): a month of CUR 2.0 for the 5,000-node envelope with split cost allocation lines for
 * 150,000 pods (about 7 million rows of Parquet, bench/cur-generator.ts, generated beforehand in its own process and
 * not measured), imported by `cur import` (importCurFolder into a fresh SQLite file) beside DuckDB reading the same
 * file with one bare query (every row, two sums), each in its own process: wall time and peak RSS, side by side.
 * Bounds: the import within 10x the bare query's time, and 1 GB peak RSS.
 */

const TIME_BOUND_X = 10;
const RSS_BOUND_MB = 1024;

const PROCESS = fileURLToPath(new URL('./cur-process.ts', import.meta.url));

interface Generated {
  dataFile: string;
  rows: number;
  sizeBytes: number;
  ms: number;
}

interface Bare {
  rows: number;
  ms: number;
}

interface Imported {
  rows: number;
  keptRows: number;
  periods: number;
  ms: number;
}

export async function curBench(ctx: BenchContext): Promise<BenchResult> {
  const nodes = ctx.quick ? 500 : 5000;
  const pods = ctx.quick ? 15_000 : 150_000;
  const run = (args: string[], timeoutMs: number) => measure(process.execPath, ['--import', 'tsx', PROCESS, ...args], { timeoutMs });
  // The month is made once per generator and size, and kept (bench/cache.ts): it is not what is measured. One entry
  // per size, so a quick run and a full one do not replace each other's.
  const cache = benchCache<Generated>(`cur-month-${nodes}`, { nodes, pods }, [
    'bench/cur-generator.ts',
    'bench/cur-process.ts',
    'core/cur',
    'sandbox/cur',
  ]);
  let generated: Generated;
  if (cache?.kept) {
    generated = cache.kept;
    ctx.log(
      `cur: ${generated.rows.toLocaleString('en-US')} rows of CUR 2.0 (${nodes} nodes, ${pods.toLocaleString('en-US')} pods, a month, daily), ${Math.round(generated.sizeBytes / MB)} MB of Parquet, kept from ${cache.kept.keptAt}`,
    );
  } else {
    const made = await run(
      ['--mode', 'generate', '--out', cache?.dir ?? join(ctx.tmp, 'cur'), '--nodes', String(nodes), '--pods', String(pods)],
      1_200_000,
    );
    if (made.code !== 0) throw new Error(`generating the CUR month failed (${made.code}): ${made.stderr.slice(-800)}`);
    generated = lastJsonLine<Generated>(made.stdout);
    cache?.keep(generated);
    ctx.log(
      `cur: ${generated.rows.toLocaleString('en-US')} rows of CUR 2.0 (${nodes} nodes, ${pods.toLocaleString('en-US')} pods, a month, daily), ${Math.round(generated.sizeBytes / MB)} MB of Parquet, generated in ${(generated.ms / 1000).toFixed(1)} s`,
    );
  }

  const bareRun = await run(['--mode', 'bare', '--file', generated.dataFile], 600_000);
  if (bareRun.code !== 0) throw new Error(`the bare DuckDB query failed (${bareRun.code}): ${bareRun.stderr.slice(-800)}`);
  const bare = lastJsonLine<Bare>(bareRun.stdout);
  if (bare.rows !== generated.rows) throw new Error(`the bare query read ${bare.rows} rows of ${generated.rows}`);
  ctx.log(
    `cur: DuckDB bare query over ${bare.rows.toLocaleString('en-US')} rows in ${(bare.ms / 1000).toFixed(1)} s (process ${(bareRun.wallMs / 1000).toFixed(1)} s), peak RSS ${bareRun.maxRssBytes === null ? '?' : Math.round(bareRun.maxRssBytes / MB)} MB`,
  );

  const importRun = await run(['--mode', 'import', '--file', generated.dataFile, '--db', join(ctx.tmp, 'cur-import.db')], 1_800_000);
  if (importRun.code !== 0) throw new Error(`cur import failed (${importRun.code}): ${importRun.stderr.slice(-800)}`);
  const imported = lastJsonLine<Imported>(importRun.stdout);
  if (imported.rows !== generated.rows) throw new Error(`cur import read ${imported.rows} rows of ${generated.rows}`);
  ctx.log(
    `cur: import of ${imported.rows.toLocaleString('en-US')} rows into ${imported.keptRows.toLocaleString('en-US')} SQLite rows in ${(imported.ms / 1000).toFixed(1)} s (process ${(importRun.wallMs / 1000).toFixed(1)} s), peak RSS ${importRun.maxRssBytes === null ? '?' : Math.round(importRun.maxRssBytes / MB)} MB`,
  );

  const scale = `${(generated.rows / 1e6).toFixed(1)}M CUR rows (${nodes} nodes, ${pods.toLocaleString('en-US')} pods, Parquet)`;
  const noTime = importRun.maxRssBytes === null || bareRun.maxRssBytes === null;
  const rows: BenchRow[] = [
    figure({
      bench: 'cur',
      figure: `cur import of ${scale}: wall time`,
      unit: 'ms',
      ours: importRun.wallMs,
      peerLabel: 'DuckDB, one bare query',
      peer: bareRun.wallMs,
      target: { kind: 'at-most', max: TIME_BOUND_X },
      note: `each a fresh process, startup included; the import also fingerprints (sha256) and checks every file, runs the shared statement (DuckDB's dialect, streamed) and writes ${imported.keptRows.toLocaleString('en-US')} SQLite rows`,
    }),
    figure({
      bench: 'cur',
      figure: `cur import of ${scale}: peak RSS`,
      unit: 'MB',
      ours: importRun.maxRssBytes === null ? null : importRun.maxRssBytes / MB,
      peerLabel: 'bound',
      peer: RSS_BOUND_MB,
      target: { kind: 'at-most', max: 1 },
      skipped: noTime,
      note: noTime
        ? 'no /usr/bin/time on this machine'
        : `the bare query's process: ${Math.round((bareRun.maxRssBytes ?? 0) / MB)} MB (${((importRun.maxRssBytes ?? 0) / (bareRun.maxRssBytes ?? 1)).toFixed(1)}x)`,
    }),
  ];
  return {
    rows,
    details: {
      nodes,
      pods,
      rows: generated.rows,
      parquetBytes: generated.sizeBytes,
      generateMs: generated.ms,
      bare: { ...bare, wallMs: bareRun.wallMs, maxRssBytes: bareRun.maxRssBytes },
    },
  };
}
