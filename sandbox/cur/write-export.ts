import { closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { CUR_COLUMNS, type CurColumnName, type CurColumnType } from '../../core/cur/columns.js';
import type { CurFileFormat } from '../../db/repositories/cur-repository.js';
import type { EpochMs, Scenario } from '../scenario/types.js';
import type { UsageModel } from '../scenario/usage.js';
import type { CurLineItem, CurRow } from './cur-common.js';
import { curHistory, type CurPeriod } from './cur-history.js';
import { checkNaming, exportKey, type ExportNaming, manifestOf, periodKeys } from './export-layout.js';

/**
 * Writes the sandbox's Cost and Usage Report 2.0 export (cur-history.ts) into a folder as AWS Data Exports lays it
 * out in S3 (export-layout.ts): one data file and one manifest per billing period, Parquet (snappy) or gzip CSV,
 * written by DuckDB with every column at its documented type (core/cur/columns.ts; resource_tags and product as
 * MAP(VARCHAR, VARCHAR)). In CSV, as AWS writes it, a map is a JSON object in one field and a timestamp is ISO-8601
 * (`2026-11-01T00:00:00Z`). Everything is written aside first and moved into place period by period, so a failure
 * leaves the folder as it was.
 */

export interface CurExportOptions {
  format: CurFileFormat;
  exportName: string;
  /** The S3 prefix above the export's folder; default none. */
  prefix?: string;
  /** The bucket the manifest's s3:// URIs name; default `ledger-sandbox-cur`. */
  bucket?: string;
  /** Nothing after this is billed; default the end of the scenario. */
  asOf?: EpochMs;
  /** What containers used (the split's actual usage); default none: AWS then splits by reservations. */
  usage?: UsageModel | null;
  /**
   * The history's lines when already worked out (curHistory with the same asOf and usage): writing the Parquet and
   * the CSV export of one history then works it out once.
   */
  history?: readonly CurPeriod[];
  /** After each billing period is staged. */
  onProgress?: (done: number, total: number, billingPeriod: string) => void;
}

export interface CurExportPeriodWritten {
  billingPeriod: string;
  /** Absolute paths. */
  dataFile: string;
  manifestFile: string;
  rows: number;
}

export interface CurExportWritten {
  /** The export's folder: `<folder>/<prefix>/<export-name>`. */
  exportRoot: string;
  format: CurFileFormat;
  periods: CurExportPeriodWritten[];
}

export const DEFAULT_SANDBOX_CUR_BUCKET = 'ledger-sandbox-cur';

const DUCK_TYPES: Readonly<Record<CurColumnType, string>> = {
  string: 'VARCHAR',
  double: 'DOUBLE',
  timestamp: 'TIMESTAMP',
  map: 'MAP(VARCHAR, VARCHAR)',
};

const COLUMNS = Object.entries(CUR_COLUMNS) as [CurColumnName, CurColumnType][];
const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The JSON text of a row's fields without the braces ('' for an empty row), memoised for the shared parts. */
function fieldsJson(row: Readonly<CurRow>, memo: WeakMap<object, string>): string {
  let text = memo.get(row);
  if (text === undefined) {
    text = JSON.stringify(row).slice(1, -1);
    memo.set(row, text);
  }
  return text;
}

/** One staged line: its shared parts and its own columns as one JSON object (the parts never share a column). */
function lineJson(item: CurLineItem, memo: WeakMap<object, string>): string {
  const parts = item.shared.map((p) => fieldsJson(p, memo));
  parts.push(JSON.stringify(item.own).slice(1, -1));
  return `{${parts.filter((p) => p !== '').join(',')}}`;
}

/** Stages a period's lines as newline-delimited JSON, in chunks (tens of MB for two weeks of a small cluster). */
function stageJson(path: string, rows: readonly CurLineItem[]): void {
  const memo = new WeakMap<object, string>();
  const fd = openSync(path, 'w');
  try {
    const chunk: string[] = [];
    for (const item of rows) {
      chunk.push(lineJson(item, memo));
      if (chunk.length === 5000) {
        writeSync(fd, `${chunk.join('\n')}\n`);
        chunk.length = 0;
      }
    }
    if (chunk.length > 0) writeSync(fd, `${chunk.join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
}

/** The SELECT list of the CSV file: timestamps as AWS prints them, maps as JSON objects. */
const csvColumns = (): string =>
  COLUMNS.map(([name, type]) => {
    if (type === 'timestamp') return `strftime(${name}, '%Y-%m-%dT%H:%M:%SZ') AS ${name}`;
    if (type === 'map') return `CAST(to_json(${name}) AS VARCHAR) AS ${name}`;
    return name;
  }).join(', ');

/**
 * Writes the export of `scenario`'s history under `folder` and returns what it wrote. Throws (naming the option) on
 * an export name, prefix or bucket Data Exports would refuse; on a DuckDB failure, with the folder left unchanged.
 */
export async function writeSandboxCurExport(scenario: Scenario, folder: string, options: CurExportOptions): Promise<CurExportWritten> {
  const naming: ExportNaming = {
    bucket: options.bucket ?? DEFAULT_SANDBOX_CUR_BUCKET,
    prefix: options.prefix ?? '',
    exportName: options.exportName,
  };
  checkNaming(naming);
  const root = resolve(folder);
  const asOf = options.asOf ?? scenario.end;
  const periods = options.history ?? curHistory(scenario, { asOf, usage: options.usage ?? null });
  mkdirSync(root, { recursive: true });
  // Staged beside the export (same file system, so the final moves are renames), hidden from importers.
  const staging = mkdtempSync(join(root, '.cur-staging-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const written: CurExportPeriodWritten[] = [];
  const moves: { from: string; to: string }[] = [];
  try {
    await connection.run("SET TimeZone = 'UTC'");
    const typed = COLUMNS.map(([name, type]) => `${name}: ${quote(DUCK_TYPES[type])}`).join(', ');
    for (const [i, period] of periods.entries()) {
      const json = join(staging, `${period.billingPeriod}.jsonl`);
      stageJson(json, period.rows);
      const { dataKey, manifestKey } = periodKeys(naming, period.billingPeriod, options.format);
      const data = join(staging, ...dataKey.split('/'));
      const manifest = join(staging, ...manifestKey.split('/'));
      mkdirSync(dirname(data), { recursive: true });
      mkdirSync(dirname(manifest), { recursive: true });
      const source = `read_json(${quote(json)}, format = 'newline_delimited', columns = {${typed}})`;
      await connection.run(`CREATE OR REPLACE TABLE cur_period AS SELECT ${COLUMNS.map(([n]) => n).join(', ')} FROM ${source}`);
      if (options.format === 'parquet') {
        await connection.run(`COPY cur_period TO ${quote(data)} (FORMAT PARQUET, COMPRESSION SNAPPY)`);
      } else {
        await connection.run(`COPY (SELECT ${csvColumns()} FROM cur_period) TO ${quote(data)} (FORMAT CSV, HEADER, COMPRESSION GZIP)`);
      }
      rmSync(json);
      writeFileSync(
        manifest,
        `${JSON.stringify(manifestOf(naming, scenario.accountId, period.billingPeriod, options.format, String(asOf)), null, 2)}\n`,
      );
      const finalData = join(root, ...dataKey.split('/'));
      const finalManifest = join(root, ...manifestKey.split('/'));
      moves.push({ from: data, to: finalData }, { from: manifest, to: finalManifest });
      written.push({ billingPeriod: period.billingPeriod, dataFile: finalData, manifestFile: finalManifest, rows: period.rows.length });
      options.onProgress?.(i + 1, periods.length, period.billingPeriod);
    }
    // Every period staged: replace each period's partition (AWS's overwrite delivery), data before manifest.
    for (const { from, to } of moves) {
      rmSync(dirname(to), { recursive: true, force: true });
      mkdirSync(dirname(to), { recursive: true });
      renameSync(from, to);
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(staging, { recursive: true, force: true });
  }
  return { exportRoot: join(root, ...exportKey(naming).split('/')), format: options.format, periods: written };
}
