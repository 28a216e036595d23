import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { importCurFolder } from '../collectors/cur/import-folder.js';
import { openDb } from '../db/open-db.js';
import { writeCurMonth } from './cur-generator.js';

/**
 * The CUR bench's steps, each in its own process so time and peak RSS are that step's alone:
 *   --mode generate --out DIR --nodes N --pods P   a month of CUR 2.0 for the envelope (cur-generator.ts), not measured;
 *   --mode bare --file F                           DuckDB reading the same file with one bare query (every row, two
 *                                                  sums): the floor any import of it stands on;
 *   --mode import --file F --db DB                 `cur import` of the export the file is in (importCurFolder: every
 *                                                  file checked, the shared statement, the SQLite rows) into a fresh
 *                                                  database.
 * Prints one JSON line with its own figures.
 */

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'bare' },
    out: { type: 'string' },
    file: { type: 'string' },
    db: { type: 'string' },
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
  } else if (values.mode === 'import') {
    if (values.file === undefined || values.db === undefined) throw new Error('--file F and --db DB are required');
    // The export's folder: <export>/data/BILLING_PERIOD=YYYY-MM/<file>.
    const exportRoot = dirname(dirname(dirname(values.file)));
    const db = openDb({ path: values.db });
    try {
      const t0 = performance.now();
      const result = await importCurFolder(db, exportRoot);
      const ms = performance.now() - t0;
      const rows = result.periods.reduce((t, p) => t + p.curRows, 0);
      const kept = result.periods.reduce((t, p) => t + p.nodePoolRows + p.namespaceRows + p.resourceRows, 0);
      console.log(JSON.stringify({ rows, keptRows: kept, periods: result.periods.length, ms }));
    } finally {
      db.close();
    }
  } else throw new Error(`unknown --mode ${values.mode}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
