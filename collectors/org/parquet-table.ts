import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, timestampValue } from '@duckdb/node-api';

/**
 * One exported table's rows as Parquet bytes, written by the DuckDB already used for the CUR (no Parquet library of
 * our own). Columns are declared once per table with Athena-readable types (varchar, double, bigint, boolean,
 * timestamp); rows go in through DuckDB's appender in the order given and out through `COPY … (FORMAT parquet)` on one
 * thread, so the same rows in give the same bytes out (the re-export of a day replaces its object with an equal one).
 */

export type ParquetColumnType = 'varchar' | 'double' | 'bigint' | 'boolean' | 'timestamp';

export interface ParquetColumn<Row> {
  /** snake_case, as Athena names columns. */
  name: string;
  type: ParquetColumnType;
  /** Timestamps as epoch ms UTC; null is a Parquet null. */
  value: (row: Row) => string | number | boolean | null;
}

const DUCK_TYPES: Readonly<Record<ParquetColumnType, string>> = {
  varchar: 'VARCHAR',
  double: 'DOUBLE',
  bigint: 'BIGINT',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP',
};

const NAME = /^[a-z][a-z0-9_]*$/;

export async function parquetBytes<Row>(columns: readonly ParquetColumn<Row>[], rows: readonly Row[]): Promise<Buffer> {
  for (const c of columns) if (!NAME.test(c.name)) throw new Error(`column name ${c.name} is not a plain lower-case name`);
  const dir = mkdtempSync(join(tmpdir(), 'ledger-parquet-'));
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE t (${columns.map((c) => `"${c.name}" ${DUCK_TYPES[c.type]}`).join(', ')})`);
    const appender = await connection.createAppender('t');
    for (const row of rows) {
      for (const c of columns) {
        const v = c.value(row);
        if (v === null || (typeof v === 'number' && !Number.isFinite(v))) appender.appendNull();
        else if (c.type === 'varchar') appender.appendVarchar(String(v));
        else if (c.type === 'double') appender.appendDouble(Number(v));
        else if (c.type === 'bigint') appender.appendBigInt(BigInt(Math.round(Number(v))));
        else if (c.type === 'boolean') appender.appendBoolean(Boolean(v));
        else appender.appendTimestamp(timestampValue(BigInt(Math.round(Number(v))) * 1000n));
      }
      appender.endRow();
    }
    appender.closeSync();
    const path = join(dir, 'part-0.parquet');
    await connection.run(`COPY t TO '${path.replace(/'/g, "''")}' (FORMAT parquet, COMPRESSION zstd)`);
    return readFileSync(path);
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}
