import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { importCurFromAthena } from '../collectors/cur/athena-import.js';
import { createAthenaClient } from '../collectors/cur/athena-client.js';
import { AthenaQueryError } from '../collectors/cur/athena-query.js';
import { AthenaResultError } from '../collectors/cur/athena-result.js';
import { createS3Client } from '../collectors/cur/s3-client.js';
import { parseCalendarDuration } from '../core/duration.js';
import { isRegionName } from '../core/partitions.js';
import { acquireCollectorLock } from '../db/lock.js';
import { openDb } from '../db/open-db.js';
import { ProgressBar } from './progress.js';
import { UsageError } from './usage-error.js';

export const CUR_ATHENA_HELP = `Usage: nodepool-ledger cur athena --database D --table T --workgroup W [--output s3://bucket/prefix/]
                                  [--catalog AwsDataCatalog] [--since 90d] [--region R] [--partition-column billing_period]
                                  [--db .ledger/ledger.db]

Runs the Cost and Usage Report aggregation in Amazon Athena, one query per billing period from the month --since
ago to this one, over the CUR 2.0 table D.T (for a Data Export set up with the Cloud Intelligence Dashboards'
stack: --database cid_data_export --table cur2), so the report stays in S3 and only the daily NodePool, namespace
and resource rows come back, read as a stream from the result object Athena writes to the output location (or page
by page where the workgroup keeps results itself). They are stored as 'cur import' stores a folder (a period replaced
whole), under the source athena:D.T. The query is the one 'cur import' runs with DuckDB
(collectors/cur/aggregate-statement.ts).

  --workgroup W   the Athena workgroup the queries run in (its limits and data-scanned cost apply)
  --output URI    where Athena writes each query's result (s3://…); needed unless the workgroup sets one
  --region R      the region of the workgroup and Glue catalog (default $AWS_REGION, else us-east-1)
  --partition-column C
                  the table's YYYY-MM partition column, also filtered on so each query reads one period's files
                  (Athena bills by data scanned); default billing_period, as Data Exports' Athena tables name it;
                  '' for a table without one

Credentials: the standard chain (environment, AWS_PROFILE, SSO, instance or pod role); AWS_ENDPOINT_URL_ATHENA
points the client elsewhere (AWS_ENDPOINT_URL_S3 the result reads). It needs athena:StartQueryExecution,
GetQueryExecution and GetQueryResults, glue:GetTable and GetPartitions on the table, s3:GetObject on the export and
s3:PutObject/GetObject on the output location.`;

/** Its own flags; --since, --db and --help are the `cur` command's. */
export const CUR_ATHENA_OPTIONS = {
  database: { type: 'string' },
  table: { type: 'string' },
  workgroup: { type: 'string' },
  output: { type: 'string' },
  catalog: { type: 'string' },
  region: { type: 'string' },
  'partition-column': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export interface CurAthenaOptions {
  database: string;
  table: string;
  workGroup: string;
  outputLocation?: string;
  catalog?: string;
  sinceMs: number;
  region?: string;
  partitionColumn?: string;
  dbPath: string;
}

type Values = Record<string, string | boolean | undefined>;

/** The options from parsed flags; a missing or malformed one is a UsageError naming it. */
export function curAthenaOptionsFrom(v: Values): CurAthenaOptions {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const required = (k: string, what: string): string => {
    const value = str(k);
    if (value === undefined || value === '') throw new UsageError(`cur athena needs --${k} (${what})`);
    if (k !== 'workgroup' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value))
      throw new UsageError(`--${k} must be a plain Athena name (letters, digits, _), got "${value}"`);
    return value;
  };
  const database = required('database', 'the Glue database of the CUR table, e.g. cid_data_export');
  const table = required('table', 'the CUR 2.0 table, e.g. cur2');
  const workGroup = required('workgroup', 'the Athena workgroup, e.g. primary');
  const output = str('output');
  if (output !== undefined && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(output))
    throw new UsageError(`--output must be an S3 location like s3://bucket/athena-results/, got "${output}"`);
  const region = str('region');
  if (region !== undefined && !isRegionName(region))
    throw new UsageError(`--region must be an AWS region name like us-east-1, got "${region}"`);
  const partitionColumn = str('partition-column');
  if (partitionColumn !== undefined && partitionColumn !== '' && !/^[a-z_][a-z0-9_]*$/.test(partitionColumn))
    throw new UsageError(`--partition-column must be a lower-case column name, or '' for none, got "${partitionColumn}"`);
  const sinceText = str('since') ?? '90d';
  const sinceMs = parseCalendarDuration(sinceText);
  if (sinceMs === null || !Number.isSafeInteger(sinceMs) || sinceMs <= 0)
    throw new UsageError(`--since must be a duration like 90d or 12w, got "${sinceText}"`);
  return {
    database,
    table,
    workGroup,
    ...(output !== undefined ? { outputLocation: output } : {}),
    ...(str('catalog') !== undefined ? { catalog: str('catalog') } : {}),
    sinceMs,
    ...(region !== undefined ? { region } : {}),
    ...(partitionColumn !== undefined ? { partitionColumn } : {}),
    dbPath: resolve(str('db') ?? '.ledger/ledger.db'),
  };
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** `cur athena` as a subcommand of `cur`: no positional argument; Athena's refusals are one line naming the query. */
export async function runCurAthenaCommand(v: Values, args: readonly string[]): Promise<number> {
  if (args.length > 0) throw new UsageError(`cur athena takes no PATH (the table is --database/--table), got: ${args.join(' ')}`);
  try {
    return await runCurAthena(curAthenaOptionsFrom(v));
  } catch (err) {
    if (err instanceof AthenaQueryError || err instanceof AthenaResultError) {
      console.error(`cur athena: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

export async function runCurAthena(o: CurAthenaOptions, now: () => number = Date.now): Promise<number> {
  mkdirSync(dirname(o.dbPath), { recursive: true });
  const db = openDb({ path: o.dbPath });
  const lock = acquireCollectorLock(db, { command: 'cur athena', dbPath: o.dbPath });
  const client = createAthenaClient(o.region !== undefined ? { region: o.region } : {});
  // Athena's result objects are read from its output location, in the workgroup's region.
  const s3 = createS3Client(o.region !== undefined ? { region: o.region } : {});
  try {
    let bar: ProgressBar | null = null;
    const nowMs = now();
    const summary = await importCurFromAthena(db, client, {
      database: o.database,
      table: o.table,
      workGroup: o.workGroup,
      s3,
      ...(o.outputLocation !== undefined ? { outputLocation: o.outputLocation } : {}),
      ...(o.catalog !== undefined ? { catalog: o.catalog } : {}),
      ...(o.partitionColumn !== undefined ? { partitionColumn: o.partitionColumn } : {}),
      sinceMs: nowMs - o.sinceMs,
      nowMs,
      onPeriod: (p) => {
        bar ??= new ProgressBar('Athena periods', p.total);
        if (p.state === 'querying') {
          bar.update(p.index - 1, `${p.billingPeriod}: querying`);
          return;
        }
        lock.confirm();
        bar.update(
          p.index,
          `${p.billingPeriod}: ${p.state === 'empty' ? 'no lines' : `${p.resultRows ?? 0} rows from ${p.curLines ?? 0} CUR lines`}, ${megabytes(p.dataScannedBytes ?? 0)} scanned`,
        );
      },
    });
    const stored = summary.periods.filter((p) => p.stored);
    console.error(
      `${summary.source}: ${stored.length} billing period(s) stored (${stored.map((p) => p.billingPeriod).join(', ') || 'none'}), ` +
        `${summary.periods.length - stored.length} without lines; ${megabytes(summary.dataScannedBytes)} scanned by Athena in ${summary.requests} requests`,
    );
    return 0;
  } finally {
    client.destroy();
    s3.destroy();
    lock.release();
    db.close();
  }
}
