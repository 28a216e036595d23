import type { AthenaClient } from '@aws-sdk/client-athena';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Db } from '../../db/open-db.js';
import { type CurAggregateRow, curAggregateStatement, rowFromRecord } from './aggregate-statement.js';
import { readAthenaResultPages, runAthenaQuery } from './athena-query.js';
import { readAthenaResultCsv } from './athena-result.js';
import { storeCurPeriod } from './store-period.js';

/**
 * `cur athena`: the CUR stays in S3 and Athena runs the shared aggregation, one query per billing period; only the
 * daily NodePool, namespace and resource rows come back — streamed from the result object Athena writes to S3 (or
 * GetQueryResults page by page where Athena keeps results itself) straight into one SQLite transaction per period,
 * stored exactly as a folder import stores them (same tables, a period of a source replaced whole, or left as it was
 * when anything fails part-way). The source is `athena:<database>.<table>`.
 */

export interface AthenaImportOptions {
  database: string;
  table: string;
  workGroup: string;
  /** Reads each query's result object (s3:GetObject on the output location). */
  s3: S3Client;
  /** s3://… for the query results; unset: the workgroup's own output location. */
  outputLocation?: string;
  catalog?: string;
  /**
   * The table's YYYY-MM partition column, also filtered on so each query reads (and Athena bills) one period's files;
   * default billing_period (as Data Exports' Athena tables name it), '' for a table without one.
   */
  partitionColumn?: string;
  /** Billing periods from the month holding sinceMs to the month holding nowMs. */
  sinceMs: number;
  nowMs: number;
  poll?: { firstMs: number; factor: number; maxMs: number };
  signal?: AbortSignal;
  onPeriod?: (p: AthenaPeriodProgress) => void;
}

export interface AthenaPeriodProgress {
  billingPeriod: string;
  /** 1-based position among `total` periods. */
  index: number;
  total: number;
  state: 'querying' | 'stored' | 'empty';
  queryExecutionId?: string;
  resultRows?: number;
  curLines?: number;
  dataScannedBytes?: number;
}

export interface AthenaImportSummary {
  source: string;
  periods: {
    billingPeriod: string;
    queryExecutionId: string;
    resultRows: number;
    curLines: number;
    stored: boolean;
    /** Where the rows were read: the result object in S3, or GetQueryResults pages. */
    readFrom: 's3' | 'pages';
  }[];
  dataScannedBytes: number;
  requests: number;
}

/** The partition column of a Data Export's Athena table (and of a Glue crawler over its BILLING_PERIOD= folders). */
export const DEFAULT_PARTITION_COLUMN = 'billing_period';

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** YYYY-MM of every month from the one holding fromMs to the one holding toMs (UTC). */
export function billingPeriodsBetween(fromMs: number, toMs: number): string[] {
  if (!(fromMs <= toMs)) throw new Error('the start of the window must not be after its end');
  const out: string[] = [];
  const from = new Date(fromMs);
  let year = from.getUTCFullYear();
  let month = from.getUTCMonth();
  const last = new Date(toMs);
  while (year < last.getUTCFullYear() || (year === last.getUTCFullYear() && month <= last.getUTCMonth())) {
    out.push(`${year}-${String(month + 1).padStart(2, '0')}`);
    month += 1;
    if (month === 12) {
      month = 0;
      year += 1;
    }
  }
  return out;
}

export async function importCurFromAthena(db: Db, client: AthenaClient, options: AthenaImportOptions): Promise<AthenaImportSummary> {
  for (const [what, name] of [
    ['--database', options.database],
    ['--table', options.table],
  ] as const)
    if (!PLAIN_NAME.test(name)) throw new Error(`${what} "${name}" is not a plain Athena name (letters, digits, _)`);
  const source = `athena:${options.database}.${options.table}`;
  const partitionColumn = options.partitionColumn ?? DEFAULT_PARTITION_COLUMN;
  const periods = billingPeriodsBetween(options.sinceMs, options.nowMs);
  const summary: AthenaImportSummary = { source, periods: [], dataScannedBytes: 0, requests: 0 };
  for (const [i, billingPeriod] of periods.entries()) {
    const progress = { billingPeriod, index: i + 1, total: periods.length };
    options.onPeriod?.({ ...progress, state: 'querying' });
    const result = await runAthenaQuery(client, {
      query: curAggregateStatement({
        table: `${options.database}.${options.table}`,
        billingPeriod,
        ...(partitionColumn !== '' ? { partitionColumn } : {}),
      }),
      database: options.database,
      workGroup: options.workGroup,
      ...(options.catalog !== undefined ? { catalog: options.catalog } : {}),
      ...(options.outputLocation !== undefined ? { outputLocation: options.outputLocation } : {}),
      ...(options.poll !== undefined ? { poll: options.poll } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    summary.requests += result.requests.start + result.requests.polls;
    summary.dataScannedBytes += result.dataScannedBytes;
    let resultRow = 0;
    const typed = (records: readonly Record<string, unknown>[]): CurAggregateRow[] =>
      records.map((record) => {
        resultRow += 1;
        try {
          return rowFromRecord(record);
        } catch (err) {
          throw new Error(
            `Athena query ${result.queryExecutionId} (billing period ${billingPeriod}), result row ${resultRow}: ${(err as Error).message}`,
            { cause: err },
          );
        }
      });
    const readFrom = result.outputLocation !== null ? 's3' : 'pages';
    // A month with no lines (before the export began, or not billed yet) is left as it is, not stored empty. Athena
    // reads no files of ours: the period is stored with none, so the next run replaces it again.
    const written = await storeCurPeriod(
      db,
      { source, billingPeriod, files: [], importedAt: Date.now(), skipEmpty: true, ...(options.signal ? { signal: options.signal } : {}) },
      async (write) => {
        const location = result.outputLocation;
        if (location !== null) {
          summary.requests += 1;
          await readAthenaResultCsv(options.s3, location, (records) => write(typed(records)), { signal: options.signal });
        } else
          summary.requests += await readAthenaResultPages(
            client,
            result.queryExecutionId,
            (records) => write(typed(records)),
            options.signal,
          );
      },
    );
    const { stored, statementRows: rows, curRows: curLines } = written;
    summary.periods.push({ billingPeriod, queryExecutionId: result.queryExecutionId, resultRows: rows, curLines, stored, readFrom });
    options.onPeriod?.({
      ...progress,
      state: stored ? 'stored' : 'empty',
      queryExecutionId: result.queryExecutionId,
      resultRows: rows,
      curLines,
      dataScannedBytes: result.dataScannedBytes,
    });
  }
  return summary;
}
