import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastJsonLine, measure } from './child.js';
import { type BenchContext, type BenchResult, MB } from './context.js';
import { type BenchRow, figure } from './report.js';

/**
 * CUR import (issue 16): a month of CUR 2.0 for the 5,000-node envelope with split cost allocation lines for 150,000
 * pods (about 7 million rows of Parquet, bench/cur-generator.ts, generated beforehand in its own process and not
 * measured), read by DuckDB with one bare query (every row, two sums) in its own process: time and peak RSS.
 */

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

export async function curBench(ctx: BenchContext): Promise<BenchResult> {
  const nodes = ctx.quick ? 500 : 5000;
  const pods = ctx.quick ? 15_000 : 150_000;
  const run = (args: string[], timeoutMs: number) => measure(process.execPath, ['--import', 'tsx', PROCESS, ...args], { timeoutMs });
  const made = await run(
    ['--mode', 'generate', '--out', join(ctx.tmp, 'cur'), '--nodes', String(nodes), '--pods', String(pods)],
    1_200_000,
  );
  if (made.code !== 0) throw new Error(`generating the CUR month failed (${made.code}): ${made.stderr.slice(-800)}`);
  const generated = lastJsonLine<Generated>(made.stdout);
  ctx.log(
    `cur: ${generated.rows.toLocaleString('en-US')} rows of CUR 2.0 (${nodes} nodes, ${pods.toLocaleString('en-US')} pods, a month, daily), ${Math.round(generated.sizeBytes / MB)} MB of Parquet, generated in ${(generated.ms / 1000).toFixed(1)} s`,
  );

  const bareRun = await run(['--mode', 'bare', '--file', generated.dataFile], 600_000);
  if (bareRun.code !== 0) throw new Error(`the bare DuckDB query failed (${bareRun.code}): ${bareRun.stderr.slice(-800)}`);
  const bare = lastJsonLine<Bare>(bareRun.stdout);
  if (bare.rows !== generated.rows) throw new Error(`the bare query read ${bare.rows} rows of ${generated.rows}`);
  ctx.log(
    `cur: DuckDB bare query over ${bare.rows.toLocaleString('en-US')} rows in ${(bare.ms / 1000).toFixed(1)} s (process ${(bareRun.wallMs / 1000).toFixed(1)} s), peak RSS ${bareRun.maxRssBytes === null ? '?' : Math.round(bareRun.maxRssBytes / MB)} MB`,
  );

  const scale = `${(generated.rows / 1e6).toFixed(1)}M CUR rows`;
  const rows: BenchRow[] = [
    figure({
      bench: 'cur',
      figure: `read ${scale} (${nodes} nodes, ${pods.toLocaleString('en-US')} pods): DuckDB bare query, wall time`,
      unit: 'ms',
      ours: bareRun.wallMs,
      peerLabel: '-',
      peer: null,
      target: { kind: 'info' },
      note: 'SELECT COUNT(*), two SUMs over the Parquet file in a fresh process (startup included)',
    }),
    figure({
      bench: 'cur',
      figure: `read ${scale}: DuckDB bare query, peak RSS`,
      unit: 'MB',
      ours: bareRun.maxRssBytes === null ? null : bareRun.maxRssBytes / MB,
      peerLabel: '-',
      peer: null,
      target: { kind: 'info' },
      skipped: bareRun.maxRssBytes === null,
      note: bareRun.maxRssBytes === null ? 'no /usr/bin/time on this machine' : undefined,
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
