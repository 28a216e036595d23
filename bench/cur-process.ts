import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeCurMonth } from './cur-generator.js';

/**
 * The CUR bench's steps, each in its own process so time and peak RSS are that step's alone:
 *   --mode generate --out DIR --nodes N --pods P   a month of CUR 2.0 for the envelope (cur-generator.ts), not measured;
 *   --mode bare --file F                           DuckDB reading the same file with one bare query (every row, two
 *                                                  sums): the floor any import of it stands on.
 * Prints one JSON line with its own figures.
 */

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'bare' },
    out: { type: 'string' },
    file: { type: 'string' },
    nodes: { type: 'string', default: '5000' },
    pods: { type: 'string', default: '150000' },
  },
});

async function bare(file: string): Promise<void> {
  const t0 = performance.now();
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT COUNT(*) AS n, SUM(line_item_unblended_cost) AS unblended, SUM(split_line_item_split_cost) AS split
       FROM read_parquet('${file.replace(/'/g, "''")}', hive_partitioning = false)`,
    );
    const row = reader.getRowObjectsJS()[0] ?? {};
    console.log(
      JSON.stringify({
        rows: Number(row.n ?? 0),
        unblendedUsd: Number(row.unblended ?? 0),
        splitUsd: Number(row.split ?? 0),
        ms: performance.now() - t0,
      }),
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function main(): Promise<void> {
  if (values.mode === 'generate') {
    if (values.out === undefined) throw new Error('--out DIR is required');
    const t0 = performance.now();
    const written = await writeCurMonth(values.out, { nodes: Number(values.nodes), pods: Number(values.pods) });
    console.log(JSON.stringify({ ...written, ms: performance.now() - t0 }));
  } else if (values.mode === 'bare') {
    if (values.file === undefined) throw new Error('--file F is required');
    await bare(values.file);
  } else throw new Error(`unknown --mode ${values.mode}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
