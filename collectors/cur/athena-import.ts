import type { AthenaClient } from '@aws-sdk/client-athena';
import type { Db } from '../../db/open-db.js';
import { curAggregateStatement, rowFromRecord } from './aggregate-statement.js';
import { runAthenaQuery } from './athena-query.js';
import { storeCurPeriod } from './store-period.js';

/**
 * `cur athena`: the CUR stays in S3 and Athena runs the shared aggregation, one query per billing period; only the
 * daily NodePool, namespace and resource rows come back, and are stored exactly as a folder import stores them
 * (same tables, a period of a source replaced whole, in one transaction). The source is `athena:<database>.<table>`.
 */

export interface AthenaImportOptions {
  database: string;
  table: string;
  workGroup: string;
  /** s3://… for the query results; unset: the workgroup's own output location. */
  outputLocation?: string;
  catalog?: string;
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
  periods: { billingPeriod: string; queryExecutionId: string; resultRows: number; curLines: number; stored: boolean }[];
  dataScannedBytes: number;
  requests: number;
}

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
  const periods = billingPeriodsBetween(options.sinceMs, options.nowMs);
  const summary: AthenaImportSummary = { source, periods: [], dataScannedBytes: 0, requests: 0 };
  for (const [i, billingPeriod] of periods.entries()) {
    const progress = { billingPeriod, index: i + 1, total: periods.length };
    options.onPeriod?.({ ...progress, state: 'querying' });
    const result = await runAthenaQuery(client, {
      query: curAggregateStatement({ table: `${options.database}.${options.table}`, billingPeriod }),
      database: options.database,
      workGroup: options.workGroup,
      ...(options.catalog !== undefined ? { catalog: options.catalog } : {}),
      ...(options.outputLocation !== undefined ? { outputLocation: options.outputLocation } : {}),
      ...(options.poll !== undefined ? { poll: options.poll } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    summary.requests += result.requests.start + result.requests.polls + result.requests.pages;
    summary.dataScannedBytes += result.dataScannedBytes;
    const rows = result.records.map((record, n) => {
      try {
        return rowFromRecord(record);
      } catch (err) {
        throw new Error(
          `Athena query ${result.queryExecutionId} (billing period ${billingPeriod}), result row ${n + 1}: ${(err as Error).message}`,
          { cause: err },
        );
      }
    });
    const curLines = rows.reduce((s, r) => s + r.lineCount, 0);
    // A month with no lines (before the export began, or not billed yet) is left as it is, not stored empty.
    const stored = rows.length > 0;
    // Athena reads no files of ours: the period is stored with none, so the next run replaces it again.
    if (stored) storeCurPeriod(db, { source, billingPeriod, rows, files: [], importedAt: Date.now() });
    summary.periods.push({ billingPeriod, queryExecutionId: result.queryExecutionId, resultRows: rows.length, curLines, stored });
    options.onPeriod?.({
      ...progress,
      state: stored ? 'stored' : 'empty',
      queryExecutionId: result.queryExecutionId,
      resultRows: rows.length,
      curLines,
      dataScannedBytes: result.dataScannedBytes,
    });
  }
  return summary;
}
