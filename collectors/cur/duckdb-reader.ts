import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DuckDBInstance,
  DuckDBListVector,
  DuckDBStructVector,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBResult,
} from '@duckdb/node-api';
import { CUR_COLUMNS, type CurColumnType } from '../../core/cur/columns.js';
import type { CurFileFormat } from '../../db/repositories/cur-repository.js';
import {
  CUR_AGGREGATE_COLUMNS,
  CUR_NESTED_COLUMNS,
  CUR_NESTED_DAY_FIELDS,
  curAggregateParts,
  rowFromValues,
  SPLIT_HASH_COLLISION,
  type CurAggregateRow,
  type CurStatementOptions,
  type CurTagKeyOptions,
} from './aggregate-statement.js';

/**
 * The local engine for CUR files: DuckDB in this process (no server), reading Parquet and gzip CSV with SQL. Each
 * period becomes a view with every column we read at its documented type, so the shared statement runs on it as it
 * would on Athena's table, and its rows are streamed out a chunk (2,048 rows) at a time, read column by column.
 * DuckDB's own memory is bounded (memory_limit; what does not fit spills to a temporary folder of its own, removed at
 * close) and it may return rows in any order where the statement does not fix one (preserve_insertion_order=false:
 * the statement's ORDER BY does). Errors come back as CurFileError naming the file (or the period's files).
 */

/** DuckDB's memory for the import (its hash tables and sort; beyond it, it spills to disk). */
export const DEFAULT_CUR_MEMORY_LIMIT = '512MB';

export class CurFileError extends Error {}

const DUCK_TYPES: Readonly<Record<CurColumnType, string>> = {
  string: 'VARCHAR',
  double: 'DOUBLE',
  timestamp: 'TIMESTAMP',
  map: 'MAP(VARCHAR, VARCHAR)',
};

/** Columns without which a file is not a CUR 2.0 export we can read. */
const REQUIRED = ['bill_billing_period_start_date', 'line_item_usage_start_date', 'line_item_line_item_type', 'line_item_unblended_cost'];

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const fileList = (paths: readonly string[]): string => `[${paths.map(quote).join(', ')}]`;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
const fileError = (path: string, format: CurFileFormat, err: unknown): CurFileError =>
  new CurFileError(`${path}: cannot be read as ${format === 'parquet' ? 'Parquet' : 'gzip CSV'} CUR 2.0 (${message(err)})`);

function source(format: CurFileFormat, paths: readonly string[]): string {
  return format === 'parquet'
    ? `read_parquet(${fileList(paths)}, union_by_name = true)`
    : // AWS writes CUR 2.0 CSV with a header row; every field is read as text and cast below, so a value that is not
      // its documented type fails loudly instead of being sniffed into another type.
      `read_csv(${fileList(paths)}, header = true, all_varchar = true, union_by_name = true, compression = 'gzip', strict_mode = true)`;
}

/** One column of the typed view: CSV text cast to its type (maps are JSON objects in CSV), Parquet cast as is. */
function typedColumn(name: string, type: CurColumnType, format: CurFileFormat, present: boolean): string {
  const target = DUCK_TYPES[type];
  if (!present) return `CAST(NULL AS ${target}) AS ${name}`;
  if (format === 'parquet') return `CAST(${name} AS ${target}) AS ${name}`;
  if (type === 'map') return `CAST(CAST(NULLIF(${name}, '') AS JSON) AS ${target}) AS ${name}`;
  return `CAST(NULLIF(${name}, '') AS ${target}) AS ${name}`;
}

/**
 * A chunk of the statement's result as typed rows, read column by column from DuckDB's vectors (strings, doubles and
 * bigints as they are) rather than through a converted object per row, then a typed one.
 */
function rowsOfChunk(chunk: DuckDBDataChunk): CurAggregateRow[] {
  const vectors = CUR_AGGREGATE_COLUMNS.map((_, i) => chunk.getColumnVector(i));
  const rows: CurAggregateRow[] = new Array<CurAggregateRow>(chunk.rowCount);
  const values: unknown[] = new Array<unknown>(vectors.length);
  for (let row = 0; row < chunk.rowCount; row++) {
    for (let column = 0; column < vectors.length; column++) values[column] = vectors[column]?.getItem(row);
    rows[row] = rowFromValues(values);
  }
  return rows;
}

/** A day number (days since 1970-01-01) as DuckDB writes the DATE (YYYY-MM-DD), each made once. */
const dayTexts = new Map<number, string>();
function dayText(day: number): string {
  let text = dayTexts.get(day);
  if (text === undefined) {
    text = new Date(day * 86_400_000).toISOString().slice(0, 10);
    dayTexts.set(day, text);
  }
  return text;
}

const finite = (v: unknown, column: string): number => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  throw new Error(`CUR aggregate column ${column}: "${String(v)}" is not a number`);
};

/**
 * A chunk of the nested resource part (curAggregateParts' `notSplitNested`), or its groups `from` to `to`, as the typed
 * rows of the flat part, in its order: each group's texts read once (rowFromValues checks its row kind and category) and shared by its days' rows,
 * which are read from the list's struct fields and put in day order (a group's days are distinct: its key is the flat
 * part's row key without the day). The flat part's split columns are zero for these rows, so they do not cross.
 */
export function rowsOfNestedChunk(chunk: DuckDBDataChunk, from = 0, to = chunk.rowCount): CurAggregateRow[] {
  const columns = CUR_NESTED_COLUMNS.length;
  const texts = Array.from({ length: columns - 1 }, (_, i) => chunk.getColumnVector(i));
  const days = chunk.getColumnVector(columns - 1);
  if (!(days instanceof DuckDBListVector)) throw new Error('CUR nested column days is not a list');
  const entries = days.childVector;
  if (!(entries instanceof DuckDBStructVector)) throw new Error('CUR nested column days is not a list of structs');
  const [day, unblended, amortized, netUnblended, netAmortized, usage, publicOnDemand, lineCount] = CUR_NESTED_DAY_FIELDS.map((_, i) =>
    entries.entryVectorAt(i),
  );
  if (
    day === undefined ||
    unblended === undefined ||
    amortized === undefined ||
    netUnblended === undefined ||
    netAmortized === undefined ||
    usage === undefined ||
    publicOnDemand === undefined ||
    lineCount === undefined
  )
    throw new Error(`CUR nested column days has not the fields ${CUR_NESTED_DAY_FIELDS.join(', ')}`);
  // The flat row's values (CUR_AGGREGATE_COLUMNS order) of a group, its numbers left 0 and its day ''.
  const values: unknown[] = new Array<unknown>(CUR_AGGREGATE_COLUMNS.length).fill(0);
  values[CUR_AGGREGATE_COLUMNS.indexOf('usage_day')] = '';
  values[CUR_AGGREGATE_COLUMNS.indexOf('namespace')] = '';
  const rows: CurAggregateRow[] = [];
  const order: number[] = [];
  const dayOf: number[] = [];
  for (let g = from; g < to; g++) {
    for (let c = 0; c < texts.length; c++) values[NESTED_TO_FLAT[c] ?? 0] = texts[c]?.getItem(g);
    const t = rowFromValues(values);
    const offset = days.getEntryOffset(g);
    const length = days.getEntryLength(g);
    // The group's entries by day: insertion sort of a month's few days at most.
    order.length = 0;
    for (let e = offset; e < offset + length; e++) {
      const d = finite(day.getItem(e), 'day');
      dayOf[e - offset] = d;
      let i = order.length;
      while (i > 0 && (dayOf[(order[i - 1] ?? 0) - offset] ?? 0) > d) {
        order[i] = order[i - 1] ?? 0;
        i--;
      }
      order[i] = e;
    }
    for (const e of order) {
      rows.push({
        rowKind: t.rowKind,
        usageDay: dayText(dayOf[e - offset] ?? 0),
        resourceId: t.resourceId,
        lineItemType: t.lineItemType,
        usageType: t.usageType,
        productCode: t.productCode,
        operation: t.operation,
        category: t.category,
        cluster: t.cluster,
        nodePool: t.nodePool,
        nodeClaim: t.nodeClaim,
        namespace: t.namespace,
        commitmentArn: t.commitmentArn,
        unblendedUsd: finite(unblended.getItem(e), 'unblended_usd'),
        amortizedUsd: finite(amortized.getItem(e), 'amortized_usd'),
        netUnblendedUsd: finite(netUnblended.getItem(e), 'net_unblended_usd'),
        netAmortizedUsd: finite(netAmortized.getItem(e), 'net_amortized_usd'),
        usageAmount: finite(usage.getItem(e), 'usage_amount'),
        publicOnDemandUsd: finite(publicOnDemand.getItem(e), 'public_on_demand_usd'),
        splitCostUsd: 0,
        unusedCostUsd: 0,
        netSplitCostUsd: 0,
        netUnusedCostUsd: 0,
        publicOnDemandSplitCostUsd: 0,
        publicOnDemandUnusedCostUsd: 0,
        vcpuHours: 0,
        memoryGbHours: 0,
        podCount: 0,
        lineCount: finite(lineCount.getItem(e), 'line_count'),
      });
    }
  }
  return rows;
}

/** Groups of a nested chunk handed over at once (a resource has a month's days at most: ~2,000 rows). */
const NESTED_GROUPS_A_HANDOVER = 64;

/** Each text column of the nested part: its index among CUR_AGGREGATE_COLUMNS. */
const NESTED_TO_FLAT = CUR_NESTED_COLUMNS.slice(0, -1).map((c) => (CUR_AGGREGATE_COLUMNS as readonly string[]).indexOf(c));

export class CurEngine {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    /** A second connection, for the statement's split part while the rest's rows are read on the first. */
    private readonly side: DuckDBConnection,
    private readonly spillDir: string,
    /** The split part's key hash (CurStatementOptions.keyHash): DuckDB's own unless a test forces collisions. */
    private readonly keyHash: CurStatementOptions['keyHash'],
  ) {}

  static async open(options: { memoryLimit?: string; keyHash?: CurStatementOptions['keyHash'] } = {}): Promise<CurEngine> {
    const spill = mkdtempSync(join(tmpdir(), 'ledger-duckdb-'));
    try {
      const instance = await DuckDBInstance.create(':memory:', {
        memory_limit: options.memoryLimit ?? DEFAULT_CUR_MEMORY_LIMIT,
        preserve_insertion_order: 'false',
        temp_directory: spill,
      });
      const connection = await instance.connect();
      const side = await instance.connect();
      // CUR timestamps are UTC; a TIMESTAMPTZ column must not be shifted into this machine's zone.
      for (const c of [connection, side]) await c.run("SET TimeZone = 'UTC'");
      return new CurEngine(instance, connection, side, spill, options.keyHash);
    } catch (err) {
      rmSync(spill, { recursive: true, force: true });
      throw err;
    }
  }

  private async columnsOf(format: CurFileFormat, paths: readonly string[]): Promise<Set<string>> {
    const reader = await this.connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source(format, paths)}`);
    return new Set(reader.getRowObjectsJS().map((r) => String(r.column_name)));
  }

  private typedSelect(format: CurFileFormat, paths: readonly string[], present: Set<string>): string {
    const columns = Object.entries(CUR_COLUMNS).map(([name, type]) => typedColumn(name, type, format, present.has(name)));
    return `SELECT ${columns.join(', ')} FROM ${source(format, paths)}`;
  }

  /**
   * One file's schema and row count, so a file that is not a CUR 2.0 export, or is cut short, is refused by name before
   * anything of its period is written. A gzip CSV is read whole (its rows are counted, each cast to its type); of a
   * Parquet file only the footer (schema, row count) and the typed view's casts are checked: its pages are read once,
   * by the statement, and when that fails with several files each is then read whole to name the one at fault
   * (fileAtFault), before anything is committed.
   */
  async checkFile(path: string, format: CurFileFormat): Promise<number> {
    try {
      const present = await this.columnsOf(format, [path]);
      const missing = REQUIRED.filter((c) => !present.has(c));
      if (missing.length > 0) throw new Error(`no ${missing.join(', ')} column: not a CUR 2.0 export`);
      if (format === 'parquet') {
        const reader = await this.connection.runAndReadAll(`SELECT COUNT(*) AS n FROM (${this.typedSelect(format, [path], present)})`);
        return Number(reader.getRowObjectsJS()[0]?.n ?? 0);
      }
      return await this.readWhole(path, format, present);
    } catch (err) {
      throw fileError(path, format, err);
    }
  }

  /** Every column of the file through the typed view (each value read and cast); its row count. */
  private async readWhole(path: string, format: CurFileFormat, present: Set<string>): Promise<number> {
    const counts = Object.keys(CUR_COLUMNS).map((c, i) => `COUNT(${c}) AS c${i}`);
    const reader = await this.connection.runAndReadAll(
      `SELECT COUNT(*) AS n, ${counts.join(', ')} FROM (${this.typedSelect(format, [path], present)})`,
    );
    return Number(reader.getRowObjectsJS()[0]?.n ?? 0);
  }

  /** The one of a period's files that cannot be read alone, as its CurFileError; null when each can. */
  private async fileAtFault(paths: readonly string[], format: CurFileFormat): Promise<CurFileError | null> {
    for (const path of paths) {
      try {
        await this.readWhole(path, format, await this.columnsOf(format, [path]));
      } catch (err) {
        return fileError(path, format, err);
      }
    }
    return null;
  }

  /**
   * The shared statement over a period's files, in DuckDB's dialect, its typed rows handed to `onRows` a chunk at a
   * time as DuckDB produces them (the next chunk is fetched once `onRows` returns): first the resource and unresourced
   * rows, then the split rows (curAggregateParts; each part in the statement's order). The split part, most of DuckDB's
   * work and few rows, runs on the second connection while the first part's rows are handed over, so DuckDB's threads
   * aggregate pod lines while this thread stores resource days. The split part counts pods by hashed keys and fails,
   * before returning any row, when two of them collide (SPLIT_HASH_COLLISION): its exact form is then run instead.
   * Resolves with the number of rows.
   */
  async aggregate(
    billingPeriod: string,
    format: CurFileFormat,
    paths: readonly string[],
    onRows: (rows: CurAggregateRow[]) => void,
    tagKeys?: CurTagKeyOptions,
  ): Promise<number> {
    // A view of the database, not a temporary one: both connections read it.
    const view = 'cur_period';
    const names = paths.length === 1 ? (paths[0] ?? '') : `${paths.length} files (${paths.join(', ')})`;
    let rows = 0;
    let ours: unknown = null;
    let split: Promise<DuckDBResult> | null = null;
    const drain = async (result: DuckDBResult, nested = false): Promise<void> => {
      const columns = result.columnNames();
      const expected: readonly string[] = nested ? CUR_NESTED_COLUMNS : CUR_AGGREGATE_COLUMNS;
      if (columns.join(',') !== expected.join(','))
        throw new Error(`the statement returned columns ${columns.join(', ')}, not ${expected.join(', ')}`);
      for await (const chunk of result) {
        // A nested chunk's groups are handed over a few at a time (about 2,000 rows), each piece's rows dropped once
        // written: a whole chunk's (~60,000 rows at the envelope) outgrew the young generation, and the collector
        // copied them on.
        const step = nested ? NESTED_GROUPS_A_HANDOVER : chunk.rowCount;
        for (let from = 0; from < chunk.rowCount; from += step) {
          let typed: CurAggregateRow[];
          try {
            typed = nested ? rowsOfNestedChunk(chunk, from, Math.min(from + step, chunk.rowCount)) : rowsOfChunk(chunk);
          } catch (err) {
            throw new CurFileError(`billing period ${billingPeriod}, ${names}: ${message(err)}`);
          }
          try {
            onRows(typed);
          } catch (err) {
            // Our own failure (the SQLite write, a stop) is passed on as it is, not as the files' fault.
            ours = err;
            throw err;
          }
          rows += typed.length;
        }
      }
    };
    try {
      const present = await this.columnsOf(format, paths);
      await this.connection.run(`CREATE OR REPLACE VIEW ${view} AS ${this.typedSelect(format, paths, present)}`);
      const parts = curAggregateParts({ table: view, billingPeriod, tagKeys, dialect: 'duckdb', keyHash: this.keyHash });
      split = this.side.stream(parts.split);
      // Settled below; until then a failure of it must not surface as an unhandled rejection.
      split.catch(() => undefined);
      await drain(await this.connection.stream(parts.notSplitNested), true);
      const hashed = split;
      split = null;
      const before = rows;
      try {
        await drain(await hashed);
      } catch (err) {
        // Hashed keys collided: nothing of the split part was handed over (the statement fails below its ORDER BY, so
        // before its first row); its exact form gives the rows.
        if (err === ours || rows > before || !message(err).includes(SPLIT_HASH_COLLISION)) throw err;
        await drain(await this.side.stream(parts.splitExact));
      }
      return rows;
    } catch (err) {
      if (split !== null) {
        this.side.interrupt();
        await split.catch(() => undefined);
      }
      if (ours !== null && err === ours) throw err;
      // The files' fault: with several files, the one that cannot be read alone is named.
      const atFault = paths.length > 1 ? await this.fileAtFault(paths, format) : null;
      if (atFault !== null) throw atFault;
      if (err instanceof CurFileError) throw err;
      throw new CurFileError(`billing period ${billingPeriod}, ${names}: ${message(err)}`);
    } finally {
      await this.connection.run(`DROP VIEW IF EXISTS ${view}`).catch(() => undefined);
    }
  }

  close(): void {
    this.side.closeSync();
    this.connection.closeSync();
    this.instance.closeSync();
    rmSync(this.spillDir, { recursive: true, force: true });
  }
}
