import {
  type AthenaClient,
  AthenaServiceException,
  type ColumnInfo,
  GetQueryExecutionCommand,
  type GetQueryExecutionCommandOutput,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';

/**
 * One Athena query: StartQueryExecution, then GetQueryExecution polled with backoff until a final state; a FAILED or
 * CANCELLED query is an AthenaQueryError naming the query id and Athena's reason. Its rows are then read as they come,
 * never held whole: from the result object Athena wrote to S3 (`<OutputLocation>/<QueryExecutionId>.csv`, streamed;
 * collectors/cur/athena-result.ts), or, for a workgroup whose results Athena keeps itself (no OutputLocation), from
 * GetQueryResults a page at a time (1000 rows a page, the first page's first row being the header), each value
 * converted by its ColumnInfo type.
 */

export interface AthenaQueryInput {
  query: string;
  database: string;
  /** Default AwsDataCatalog. */
  catalog?: string;
  workGroup: string;
  /** s3://… where Athena writes the result; may be left to the workgroup's setting. */
  outputLocation?: string;
  /** Backoff between polls: first wait, growth factor, cap (ms). */
  poll?: { firstMs: number; factor: number; maxMs: number };
  signal?: AbortSignal;
}

/** A query that SUCCEEDED. */
export interface AthenaQueryResult {
  queryExecutionId: string;
  /** s3://… of the result's CSV object; null when Athena keeps the results itself (managed query results). */
  outputLocation: string | null;
  dataScannedBytes: number;
  engineMs: number;
  requests: { start: number; polls: number };
}

export type AthenaRecord = Record<string, string | number | boolean | null>;

/** A query Athena refused, failed or cancelled; the message names the query id (to look up in the console). */
export class AthenaQueryError extends Error {
  constructor(
    message: string,
    readonly queryExecutionId: string | null,
  ) {
    super(message);
  }
}

const DEFAULT_POLL = { firstMs: 200, factor: 1.6, maxMs: 5000 };

const INTEGER_TYPES = new Set(['tinyint', 'smallint', 'integer', 'int', 'bigint']);
const FRACTION_TYPES = new Set(['double', 'real', 'float', 'decimal']);

/**
 * A VarCharValue as the value its Athena type says: integers and doubles (Java-style `1.0E-4` included) as numbers,
 * booleans as booleans, everything else (varchar, date, timestamp, map) as the string Athena sent; a Datum without
 * VarCharValue is null.
 */
export function athenaValue(text: string | undefined, type: string): string | number | boolean | null {
  if (text === undefined) return null;
  const base = type.toLowerCase().replace(/\(.*$/, '');
  if (INTEGER_TYPES.has(base) || FRACTION_TYPES.has(base)) {
    const n = Number(text);
    if (text.trim() === '' || Number.isNaN(n)) throw new Error(`Athena returned "${text}" in a ${type} column`);
    return n;
  }
  if (base === 'boolean') return text === 'true';
  return text;
}

/** The rows of one GetQueryResults page as records keyed by column name, typed by ColumnInfo (the first page's header row dropped). */
export function recordsOfPage(
  info: readonly ColumnInfo[],
  rows: readonly (readonly (string | undefined)[])[],
  firstPage: boolean,
): AthenaRecord[] {
  const columns = info.map((c) => (c.Name ?? '').toLowerCase());
  // Athena's first page starts with the header: the column names themselves.
  return (firstPage ? rows.slice(1) : rows).map((row) => {
    const record: AthenaRecord = {};
    columns.forEach((name, i) => {
      record[name] = athenaValue(row[i], info[i].Type ?? 'varchar');
    });
    return record;
  });
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('stopped'));
      },
      { once: true },
    );
  });

const athenaProblem = (err: unknown, what: string): Error =>
  err instanceof AthenaServiceException
    ? new AthenaQueryError(`${what}: ${err.name}: ${err.message}`, null)
    : err instanceof Error
      ? err
      : new Error(String(err));

export async function runAthenaQuery(client: AthenaClient, input: AthenaQueryInput): Promise<AthenaQueryResult> {
  const poll = input.poll ?? DEFAULT_POLL;
  let id: string;
  try {
    const started = await client.send(
      new StartQueryExecutionCommand({
        QueryString: input.query,
        QueryExecutionContext: { Database: input.database, Catalog: input.catalog ?? 'AwsDataCatalog' },
        WorkGroup: input.workGroup,
        ...(input.outputLocation !== undefined ? { ResultConfiguration: { OutputLocation: input.outputLocation } } : {}),
      }),
      { abortSignal: input.signal },
    );
    if (started.QueryExecutionId === undefined) throw new AthenaQueryError('StartQueryExecution returned no QueryExecutionId', null);
    id = started.QueryExecutionId;
  } catch (err) {
    throw athenaProblem(err, `starting an Athena query in workgroup ${input.workGroup} on ${input.database}`);
  }

  let polls = 0;
  let wait = poll.firstMs;
  let last: GetQueryExecutionCommandOutput;
  for (;;) {
    try {
      last = await client.send(new GetQueryExecutionCommand({ QueryExecutionId: id }), { abortSignal: input.signal });
    } catch (err) {
      throw athenaProblem(err, `reading the state of Athena query ${id}`);
    }
    polls += 1;
    const state = last.QueryExecution?.Status?.State;
    if (state === 'SUCCEEDED') break;
    if (state === 'FAILED' || state === 'CANCELLED') {
      const status = last.QueryExecution?.Status;
      const reason = status?.StateChangeReason ?? status?.AthenaError?.ErrorMessage ?? 'no reason given';
      throw new AthenaQueryError(`Athena query ${id} ${state}: ${reason}`, id);
    }
    await sleep(wait, input.signal);
    wait = Math.min(poll.maxMs, wait * poll.factor);
  }

  const stats = last.QueryExecution?.Statistics;
  return {
    queryExecutionId: id,
    outputLocation: last.QueryExecution?.ResultConfiguration?.OutputLocation ?? null,
    dataScannedBytes: stats?.DataScannedInBytes ?? 0,
    engineMs: stats?.EngineExecutionTimeInMillis ?? 0,
    requests: { start: 1, polls },
  };
}

/**
 * A succeeded query's rows through GetQueryResults, handed to `onRecords` a page (1000 rows) at a time as each page
 * arrives. Resolves with the number of pages read.
 */
export async function readAthenaResultPages(
  client: AthenaClient,
  queryExecutionId: string,
  onRecords: (records: AthenaRecord[]) => void,
  signal?: AbortSignal,
): Promise<number> {
  let token: string | undefined;
  let columns: ColumnInfo[] | null = null;
  let pages = 0;
  do {
    let page;
    try {
      page = await client.send(new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, MaxResults: 1000, NextToken: token }), {
        abortSignal: signal,
      });
    } catch (err) {
      throw athenaProblem(err, `reading the results of Athena query ${queryExecutionId}`);
    }
    columns ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
    const rows = (page.ResultSet?.Rows ?? []).map((r) => (r.Data ?? []).map((d) => d.VarCharValue));
    onRecords(recordsOfPage(columns, rows, pages === 0));
    pages += 1;
    token = page.NextToken;
  } while (token !== undefined && token !== '');
  return pages;
}
