import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { DuckDBInstance, type DuckDBType } from '@duckdb/node-api';
import { crossPartition, type Refusal, signingScope } from './aws-account.js';
import { AwsJsonError, serveAwsJson } from './aws-json.js';
import type { SandboxContext, SandboxHandler, SandboxRequest } from './context.js';

/**
 * Amazon Athena's query API (awsJson1_1, `x-amz-target: AmazonAthena.<Operation>`): StartQueryExecution,
 * GetQueryExecution and GetQueryResults, running each query with DuckDB over views named like the Athena tables
 * (`database.table` -> the Parquet files of a CUR export, with its `BILLING_PERIOD=…` folders as a partition
 * column, as the Glue table of a Data Export has). Shapes follow the API reference and the AWS CLI's published
 * examples (test/fixtures/aws/athena-*.json): a query is QUEUED at the first look, RUNNING while DuckDB works,
 * then SUCCEEDED or FAILED with a Trino-style StateChangeReason ("COLUMN_NOT_FOUND: …"); results page at most 1000
 * rows, the first page starting with the header row; every value is a string (VarCharValue), null is an empty
 * Datum; ColumnInfo carries Athena's type names. Request errors are InvalidRequestException with AthenaErrorCode.
 */

export const ATHENA_SERVICE = 'AmazonAthena';
const MAX_RESULTS = 1000;
/** The catalog every Glue database lives in, as Athena names it. */
const CATALOG = 'awsdatacatalog';

export interface AthenaOptions {
  /** `database.table` (Athena's names are lower case) -> a glob of the table's Parquet files. */
  tables: Record<string, string>;
  /** Workgroups that exist (default: `primary`). */
  workGroups?: readonly string[];
  /** S3 buckets served by the sandbox (bucket -> folder): a query's CSV result is written to its OutputLocation there. */
  buckets?: Record<string, string>;
}

interface Result {
  columns: ColumnInfo[];
  rows: (string | null)[][];
}

interface ColumnInfo {
  CatalogName: string;
  SchemaName: string;
  TableName: string;
  Name: string;
  Label: string;
  Type: string;
  Precision: number;
  Scale: number;
  Nullable: 'UNKNOWN';
  CaseSensitive: boolean;
}

interface Execution {
  id: string;
  query: string;
  database: string | null;
  workGroup: string;
  outputLocation: string;
  submittedMs: number;
  completedMs: number | null;
  looks: number;
  outcome: { result: Result } | { reason: string } | null;
  dataScannedBytes: number;
}

const invalid = (message: string, code = 'INVALID_INPUT'): AwsJsonError =>
  new AwsJsonError('InvalidRequestException', message, 400, { AthenaErrorCode: code, Message: message });

const stringField = (input: Record<string, unknown>, name: string): string | undefined => {
  const v = input[name];
  return typeof v === 'string' ? v : undefined;
};
const objectField = (input: Record<string, unknown>, name: string): Record<string, unknown> => {
  const v = input[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
};

/** A Trino type name and its ColumnInfo precision (as Athena reports them: varchar 2147483647, integer 10, …). */
function athenaType(type: DuckDBType): { name: string; precision: number; scale: number; caseSensitive: boolean } {
  const text = String(type);
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(text);
  if (decimal) return { name: 'decimal', precision: Number(decimal[1]), scale: Number(decimal[2]), caseSensitive: false };
  if (text.startsWith('MAP(')) return { name: `map(${mapInner(text)})`, precision: 0, scale: 0, caseSensitive: false };
  const simple: Record<string, [string, number, boolean]> = {
    VARCHAR: ['varchar', 2147483647, true],
    BIGINT: ['bigint', 19, false],
    // DuckDB widens sum(bigint) to HUGEINT; Trino keeps bigint.
    HUGEINT: ['bigint', 19, false],
    INTEGER: ['integer', 10, false],
    SMALLINT: ['smallint', 5, false],
    TINYINT: ['tinyint', 3, false],
    DOUBLE: ['double', 17, false],
    FLOAT: ['real', 7, false],
    BOOLEAN: ['boolean', 0, false],
    DATE: ['date', 0, false],
    TIMESTAMP: ['timestamp', 3, false],
    'TIMESTAMP WITH TIME ZONE': ['timestamp with time zone', 3, false],
  };
  const [name, precision, caseSensitive] = simple[text] ?? ['varchar', 2147483647, true];
  return { name, precision, scale: 0, caseSensitive };
}

const mapInner = (text: string): string =>
  text
    .slice(4, -1)
    .split(',')
    .map((t) => athenaTypeName(t.trim()))
    .join(', ');
const athenaTypeName = (duck: string): string => (duck === 'VARCHAR' ? 'varchar' : duck.toLowerCase());

/** Java's Double.toString, which Trino uses: plain between 10^-3 and 10^7, else `1.0E-4`; always a decimal point. */
export function javaDouble(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = x.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** One value as Athena's VarCharValue: Trino's text of the value (maps `{k=v}`, timestamps with milliseconds). */
function varchar(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return type === 'double' || type === 'real' ? javaDouble(value) : String(value);
  if (Array.isArray(value))
    return `{${value
      .map((e) => {
        const entry = e as { key: unknown; value: unknown };
        return `${String(entry.key)}=${String(entry.value)}`;
      })
      .join(', ')}}`;
  const text = String(value);
  if (type === 'timestamp' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(text)) return `${text}.000`;
  return text;
}

/** DuckDB's error in Trino's words: an error name Athena uses, then DuckDB's own message. */
export function failureReason(message: string): string {
  const first = message.split('\n')[0];
  if (/^Parser Error/.test(first)) return `SYNTAX_ERROR: ${first}`;
  if (/^Catalog Error: Table/.test(first)) return `TABLE_NOT_FOUND: ${first}`;
  if (/^Catalog Error: Schema|^Binder Error: Catalog/.test(first)) return `SCHEMA_NOT_FOUND: ${first}`;
  if (/^Binder Error: Referenced column/.test(first)) return `COLUMN_NOT_FOUND: ${first}`;
  if (/^(Binder|Conversion) Error/.test(first)) return `TYPE_MISMATCH: ${first}`;
  if (/^IO Error/.test(first)) return `HIVE_CANNOT_OPEN_SPLIT: ${first}`;
  return `GENERIC_INTERNAL_ERROR: ${first}`;
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const ident = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Runs the query with DuckDB over the registered tables; rows come back as Athena's strings. */
async function runQuery(tables: Record<string, string>, database: string | null, query: string): Promise<Result> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const setup = [`ATTACH ':memory:' AS ${CATALOG}`];
    const schemas = new Set<string>();
    for (const [name, glob] of Object.entries(tables)) {
      const [schema, table] = name.split('.');
      if (!schemas.has(schema)) setup.push(`CREATE SCHEMA ${CATALOG}.${ident(schema)}`);
      schemas.add(schema);
      // DuckDB binds a view when it is made: a table with no files yet (an org export not written) is left out
      // unless the query names it, so one empty table does not fail the queries over the others.
      if (!mentions(query, table) && !hasFiles(glob)) continue;
      setup.push(
        `CREATE VIEW ${CATALOG}.${ident(schema)}.${ident(table)} AS SELECT * FROM read_parquet(${sqlString(glob)}, hive_partitioning = true, union_by_name = true)`,
      );
    }
    if (database !== null) {
      if (!schemas.has(database)) throw new Error(`Catalog Error: Schema '${CATALOG}.${database}' does not exist`);
      setup.push(`USE ${CATALOG}.${ident(database)}`);
    } else setup.push(`USE ${CATALOG}`);
    await connection.run(setup.join(';\n'));
    // Athena ends no statement with a semicolon of its own; one trailing is accepted, as the console does.
    const reader = await connection.runAndReadAll(query.trim().replace(/;\s*$/, ''));
    const types = reader.columnTypes().map(athenaType);
    // Trino's identifiers are case-insensitive and its result columns lower case (the Hive partition folder
    // BILLING_PERIOD=… is the column billing_period).
    const columns = reader.columnNames().map((name, i): ColumnInfo => ({
      CatalogName: 'hive',
      SchemaName: '',
      TableName: '',
      Name: name.toLowerCase(),
      Label: name.toLowerCase(),
      Type: types[i].name,
      Precision: types[i].precision,
      Scale: types[i].scale,
      Nullable: 'UNKNOWN',
      CaseSensitive: types[i].caseSensitive,
    }));
    const rows = reader.getRowsJson().map((row) => row.map((v, i) => varchar(v, types[i].name)));
    return { columns, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The partitions a query keeps: `billing_period = 'YYYY-MM'`, and `day` bounds (`>=`, `>`, `<`, `<=`, `=`, BETWEEN). */
interface Pruning {
  period: string | null;
  /** Inclusive lower and exclusive upper bound on the `day=YYYY-MM-DD` folder's text. */
  dayFrom: string | null;
  dayBefore: string | null;
}

/** Reads the partition filters Athena would prune by from the query's text (only literal comparisons). */
export function pruningOf(query: string): Pruning {
  const period = /\bbilling_period\s*=\s*'(\d{4}-\d{2})'/i.exec(query)?.[1] ?? null;
  let dayFrom: string | null = null;
  let dayBefore: string | null = null;
  // '~' sorts after every digit: 'D~' is just past day D.
  const between = /\bday\s+BETWEEN\s+'(\d{4}-\d{2}-\d{2})'\s+AND\s+'(\d{4}-\d{2}-\d{2})'/i.exec(query);
  if (between) [dayFrom, dayBefore] = [between[1], `${between[2]}~`];
  for (const m of query.matchAll(/\bday\s*(>=|<=|=|<|>)\s*'(\d{4}-\d{2}-\d{2})'/gi)) {
    const [op, day] = [m[1], m[2]];
    if (op === '>=' || op === '=') dayFrom = day;
    if (op === '>') dayFrom = `${day}~`;
    if (op === '<=' || op === '=') dayBefore = `${day}~`;
    if (op === '<') dayBefore = day;
  }
  return { period, dayFrom, dayBefore };
}

const keptPartition = (folder: string, p: Pruning): boolean => {
  const lower = folder.toLowerCase();
  if (p.period !== null && lower.startsWith('billing_period=')) return lower === `billing_period=${p.period}`;
  if (lower.startsWith('day=')) {
    const day = lower.slice(4);
    return (p.dayFrom === null || day >= p.dayFrom) && (p.dayBefore === null || day < p.dayBefore);
  }
  return true;
};

/** Bytes of the Parquet files under a folder, in the partition folders the pruning keeps. */
function parquetBytes(folder: string, pruning: Pruning): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0; // a table whose files are not there scans nothing
  }
  for (const e of entries) {
    const path = join(folder, e.name);
    if (e.isDirectory() && keptPartition(e.name, pruning)) total += parquetBytes(path, pruning);
    else if (e.isFile() && e.name.endsWith('.parquet')) total += statSync(path).size;
  }
  return total;
}

/** The folder a table's glob starts from. */
const tableFolder = (glob: string): string => {
  const wildcard = glob.search(/[*?[]/);
  return dirname(wildcard < 0 ? glob : glob.slice(0, wildcard) + 'x');
};

const mentions = (query: string, table: string): boolean => new RegExp(`\\b${table}\\b`, 'i').test(query);

const tableBytesOf = (glob: string, pruning: Pruning): number => parquetBytes(tableFolder(glob), pruning);

/** Whether any file (even an empty Parquet file) is under the table's folder. */
function hasFiles(glob: string): boolean {
  const walk = (folder: string): boolean => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return false;
    }
    return entries.some((e) => (e.isDirectory() ? walk(join(folder, e.name)) : e.name.endsWith('.parquet')));
  };
  return walk(tableFolder(glob));
}

/**
 * Bytes of the tables a query names (Athena bills by data scanned): the whole table's files, or the partitions' the
 * query's filters keep — `billing_period = 'YYYY-MM'` for the CUR, `day` bounds for the org tables (Athena prunes
 * partitions, with projection as with MSCK; row-group and column pruning are not modelled, so this is an upper bound).
 */
function tableBytes(tables: Record<string, string>, query: string): number {
  const pruning = pruningOf(query);
  let total = 0;
  for (const [name, glob] of Object.entries(tables)) {
    if (!mentions(query, name.split('.')[1])) continue;
    total += tableBytesOf(glob, pruning);
  }
  return total;
}

/** Where a query's CSV goes: `<OutputLocation>/<id>.csv`, written when the bucket is one the sandbox serves. */
function writeResultCsv(buckets: Record<string, string>, location: string, result: Result): void {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(location);
  if (!m || !Object.hasOwn(buckets, m[1])) return;
  const root = resolve(buckets[m[1]]);
  const path = resolve(root, ...m[2].split('/'));
  if (!path.startsWith(root + sep)) return;
  const quote = (v: string | null): string => (v === null ? '' : `"${v.replace(/"/g, '""')}"`);
  const lines = [result.columns.map((c) => quote(c.Name)).join(','), ...result.rows.map((r) => r.map(quote).join(','))];
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const seconds = (ms: number): number => ms / 1000;

export function createAthenaHandler(options: AthenaOptions): SandboxHandler {
  const tables = Object.fromEntries(Object.entries(options.tables).map(([k, v]) => [k.toLowerCase(), v]));
  const workGroups = new Set(options.workGroups ?? ['primary']);
  const executions = new Map<string, Execution>();
  const byClientToken = new Map<string, string>();

  const start = (input: Record<string, unknown>): unknown => {
    const query = stringField(input, 'QueryString') ?? '';
    if (query.trim() === '') throw invalid('QueryString must not be empty');
    const token = stringField(input, 'ClientRequestToken');
    const earlier = token === undefined ? undefined : byClientToken.get(token);
    // The SDK fills ClientRequestToken: a retried start returns the execution it already made.
    if (earlier !== undefined) return { QueryExecutionId: earlier };
    const workGroup = stringField(input, 'WorkGroup') ?? 'primary';
    if (!workGroups.has(workGroup)) throw invalid(`WorkGroup ${workGroup} is not found.`);
    const context = objectField(input, 'QueryExecutionContext');
    const catalog = (stringField(context, 'Catalog') ?? 'AwsDataCatalog').toLowerCase();
    if (catalog !== CATALOG) throw invalid(`Catalog ${catalog} is not found.`);
    const output = stringField(objectField(input, 'ResultConfiguration'), 'OutputLocation');
    if (output === undefined)
      throw invalid(
        'No output location provided. An output location is required either through the Workgroup result configuration setting or as an API input.',
      );
    if (!/^s3:\/\/[^/]+/.test(output)) throw invalid(`Output location ${output} is not a valid S3 location.`);
    const id = randomUUID();
    const database = stringField(context, 'Database')?.toLowerCase() ?? null;
    const execution: Execution = {
      id,
      query,
      database,
      workGroup,
      outputLocation: `${output.replace(/\/?$/, '/')}${id}.csv`,
      submittedMs: Date.now(),
      completedMs: null,
      looks: 0,
      outcome: null,
      dataScannedBytes: tableBytes(tables, query),
    };
    executions.set(id, execution);
    if (token !== undefined) byClientToken.set(token, id);
    runQuery(tables, database, query).then(
      (result) => {
        try {
          writeResultCsv(options.buckets ?? {}, execution.outputLocation, result);
        } catch {
          // the results stay readable through GetQueryResults; the CSV copy is a courtesy
        }
        execution.outcome = { result };
        execution.completedMs = Date.now();
      },
      (err: unknown) => {
        execution.outcome = { reason: failureReason(err instanceof Error ? err.message : String(err)) };
        execution.completedMs = Date.now();
      },
    );
    return { QueryExecutionId: id };
  };

  const find = (input: Record<string, unknown>): Execution => {
    const id = stringField(input, 'QueryExecutionId') ?? '';
    const execution = executions.get(id);
    if (!execution) throw invalid(`QueryExecution ${id} was not found`);
    return execution;
  };

  /** QUEUED at the first look, RUNNING until DuckDB is done, then its outcome. */
  const stateOf = (e: Execution): 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' => {
    if (e.looks === 0) return 'QUEUED';
    if (e.outcome === null) return 'RUNNING';
    return 'result' in e.outcome ? 'SUCCEEDED' : 'FAILED';
  };

  const get = (input: Record<string, unknown>): unknown => {
    const e = find(input);
    const state = stateOf(e);
    e.looks += 1;
    const done = state === 'SUCCEEDED' || state === 'FAILED';
    const engineMs = done && e.completedMs !== null ? e.completedMs - e.submittedMs : 0;
    const reason = e.outcome !== null && 'reason' in e.outcome ? e.outcome.reason : null;
    return {
      QueryExecution: {
        QueryExecutionId: e.id,
        Query: e.query,
        StatementType: 'DML',
        ResultConfiguration: { OutputLocation: e.outputLocation },
        QueryExecutionContext: { ...(e.database !== null ? { Database: e.database } : {}), Catalog: CATALOG },
        Status: {
          State: state,
          SubmissionDateTime: seconds(e.submittedMs),
          ...(done && e.completedMs !== null ? { CompletionDateTime: seconds(e.completedMs) } : {}),
          ...(state === 'FAILED' && reason !== null
            ? { StateChangeReason: reason, AthenaError: { ErrorCategory: 2, Retryable: false, ErrorMessage: reason } }
            : {}),
        },
        Statistics: {
          EngineExecutionTimeInMillis: engineMs,
          DataScannedInBytes: state === 'SUCCEEDED' ? e.dataScannedBytes : 0,
          TotalExecutionTimeInMillis: engineMs,
          QueryQueueTimeInMillis: 0,
          QueryPlanningTimeInMillis: 0,
          ServiceProcessingTimeInMillis: 0,
          ResultReuseInformation: { ReusedPreviousResult: false },
        },
        WorkGroup: e.workGroup,
        EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
      },
    };
  };

  const results = (input: Record<string, unknown>): unknown => {
    const e = find(input);
    const state = stateOf(e);
    if (state !== 'SUCCEEDED' || e.outcome === null || !('result' in e.outcome)) {
      if (state === 'FAILED') throw invalid(`Query did not finish successfully. Final query state: FAILED`);
      throw invalid(`Query has not yet finished. Current state: ${state}`);
    }
    const maxResults = input.MaxResults === undefined ? MAX_RESULTS : Number(input.MaxResults);
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_RESULTS)
      throw invalid(`MaxResults must be between 1 and ${MAX_RESULTS}, not ${String(input.MaxResults)}`);
    const { columns, rows } = e.outcome.result;
    // The header row is the first row of the first page, so row n of the result is row n + 1 of the sequence.
    const header = columns.map((c) => c.Name);
    const all = [header, ...rows];
    let offset = 0;
    const token = stringField(input, 'NextToken');
    if (token !== undefined) {
      const m = /^(\d+)\.(.+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
      if (!m || m[2] !== e.id) throw invalid('The NextToken provided is not valid for this query.');
      offset = Number(m[1]);
    }
    const page = all.slice(offset, offset + maxResults);
    const next = offset + maxResults < all.length ? Buffer.from(`${offset + maxResults}.${e.id}`).toString('base64url') : null;
    return {
      UpdateCount: 0,
      ResultSet: {
        Rows: page.map((row) => ({ Data: row.map((v) => (v === null ? {} : { VarCharValue: v })) })),
        ResultSetMetadata: { ColumnInfo: columns },
      },
      ...(next !== null ? { NextToken: next } : {}),
    };
  };

  const check = (ctx: SandboxContext, req: SandboxRequest): Refusal | null => {
    const scope = signingScope(req);
    return scope === null ? null : crossPartition(ctx, scope);
  };
  return (req, ctx) =>
    serveAwsJson(
      req,
      ctx,
      ATHENA_SERVICE,
      'athena',
      { StartQueryExecution: start, GetQueryExecution: get, GetQueryResults: results },
      check,
    );
}
