import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  type GetQueryExecutionCommandOutput,
  GetQueryResultsCommand,
  InvalidRequestException,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createAthenaHandler, failureReason, javaDouble } from './athena.js';
import { type SandboxServer, startSandboxServer } from './server.js';

useDummyAwsCredentials();

const recorded = JSON.parse(readFileSync(join(import.meta.dirname, '../../test/fixtures/aws/athena-query.json'), 'utf8')) as {
  GetQueryResults: { ResultSet: { ResultSetMetadata: { ColumnInfo: Record<string, unknown>[] } } };
  GetQueryExecution: { QueryExecution: Record<string, unknown> & { Status: Record<string, unknown>; Statistics: Record<string, unknown> } };
};

describe('javaDouble: doubles as Athena (Trino, Java) prints them', () => {
  it.each([
    [0.096, '0.096'],
    [2, '2.0'],
    [0.0001, '1.0E-4'],
    [12345678.5, '1.23456785E7'],
    [-0.00125, '-0.00125'],
    [0, '0.0'],
  ])('%d -> %s', (x, text) => {
    expect(javaDouble(x)).toBe(text);
    expect(Number(text)).toBe(x);
  });
});

describe('failureReason: DuckDB errors named as Athena names them', () => {
  it.each([
    [
      'Binder Error: Referenced column "zz" not found in FROM clause!\nLINE 1',
      'COLUMN_NOT_FOUND: Binder Error: Referenced column "zz" not found in FROM clause!',
    ],
    ['Catalog Error: Table with name nope does not exist!', 'TABLE_NOT_FOUND: Catalog Error: Table with name nope does not exist!'],
    ['Parser Error: syntax error at or near "SELEC"', 'SYNTAX_ERROR: Parser Error: syntax error at or near "SELEC"'],
  ])('%s', (duck, athena) => expect(failureReason(duck)).toBe(athena));
});

describe('the sandbox Athena endpoint through the real AthenaClient', () => {
  let folder: string;
  let server: SandboxServer;
  let athena: AthenaClient;
  const ctx = newContext(tinyScenario(), TINY_END);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'ledger-athena-'));
    const data = join(folder, 'cur', 'data');
    for (const period of ['2026-10', '2026-11']) mkdirSync(join(data, `BILLING_PERIOD=${period}`), { recursive: true });
    // Seven lines per period, in the CUR 2.0 shape the query reads: a map of tags, doubles, a timestamp.
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    for (const period of ['2026-10', '2026-11'])
      await c.run(
        `COPY (SELECT 'i-0' || i AS line_item_resource_id,
                      CAST(i * 0.0001 AS DOUBLE) AS line_item_unblended_cost,
                      CAST(TIMESTAMP '${period}-01 00:00:00' + INTERVAL (i) HOUR AS TIMESTAMP) AS line_item_usage_start_date,
                      MAP {'user_karpenter_sh_nodepool': CASE WHEN i % 2 = 0 THEN 'general' ELSE 'batch' END} AS resource_tags,
                      CASE WHEN i = 3 THEN NULL ELSE 'Usage' END AS line_item_line_item_type
               FROM range(7) t(i))
         TO '${join(data, `BILLING_PERIOD=${period}`, 'ledger-00001.snappy.parquet')}' (FORMAT PARQUET)`,
      );
    c.closeSync();
    duck.closeSync();
    server = await startSandboxServer(ctx, [
      createAthenaHandler({
        tables: { 'cur_db.ledger': join(data, '*', '*.parquet') },
        buckets: { results: join(folder, 'results') },
      }),
    ]);
    athena = new AthenaClient({ region: 'us-east-1', endpoint: server.url, maxAttempts: 1 });
  });
  afterAll(async () => {
    athena.destroy();
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const run = async (
    query: string,
    database = 'cur_db',
  ): Promise<{ id: string; states: string[]; last: GetQueryExecutionCommandOutput }> => {
    const started = await athena.send(
      new StartQueryExecutionCommand({
        QueryString: query,
        QueryExecutionContext: { Database: database, Catalog: 'AwsDataCatalog' },
        WorkGroup: 'primary',
        ResultConfiguration: { OutputLocation: 's3://results/athena/' },
      }),
    );
    const id = started.QueryExecutionId ?? '';
    const states: string[] = [];
    for (;;) {
      const last = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
      const state = last.QueryExecution?.Status?.State ?? '?';
      if (states.at(-1) !== state) states.push(state);
      if (state === 'SUCCEEDED' || state === 'FAILED' || state === 'CANCELLED') return { id, states, last };
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('runs a query over the Parquet files: QUEUED then SUCCEEDED, results paged with the header row first', async () => {
    const { id, states, last } = await run(
      `SELECT billing_period, resource_tags['user_karpenter_sh_nodepool'] AS nodepool, line_item_resource_id,
              line_item_unblended_cost, line_item_usage_start_date, CAST(line_item_usage_start_date AS DATE) AS usage_date,
              line_item_line_item_type, CAST(1 AS INTEGER) AS one
       FROM ledger WHERE billing_period = '2026-11' ORDER BY line_item_resource_id`,
    );
    expect(states[0]).toBe('QUEUED');
    expect(states.at(-1)).toBe('SUCCEEDED');
    const q = last.QueryExecution;
    expect(q?.ResultConfiguration?.OutputLocation).toBe(`s3://results/athena/${id}.csv`);
    expect(q?.QueryExecutionContext).toEqual({ Database: 'cur_db', Catalog: 'awsdatacatalog' });
    expect(q?.Statistics?.DataScannedInBytes).toBeGreaterThan(0);
    expect(q?.Status?.SubmissionDateTime).toBeInstanceOf(Date);
    const pages = [];
    let token: string | undefined;
    do {
      const page = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, MaxResults: 3, NextToken: token }));
      pages.push(page);
      token = page.NextToken;
    } while (token);
    // 1 header + 7 rows in pages of 3: 3, 3, 2.
    expect(pages.map((p) => p.ResultSet?.Rows?.length)).toEqual([3, 3, 2]);
    const rows = pages.flatMap((p) => p.ResultSet?.Rows ?? []).map((r) => (r.Data ?? []).map((d) => d.VarCharValue ?? null));
    expect(rows[0]).toEqual([
      'billing_period',
      'nodepool',
      'line_item_resource_id',
      'line_item_unblended_cost',
      'line_item_usage_start_date',
      'usage_date',
      'line_item_line_item_type',
      'one',
    ]);
    expect(rows[1]).toEqual(['2026-11', 'general', 'i-00', '0.0', '2026-11-01 00:00:00.000', '2026-11-01', 'Usage', '1']);
    expect(rows[2]).toEqual(['2026-11', 'batch', 'i-01', '1.0E-4', '2026-11-01 01:00:00.000', '2026-11-01', 'Usage', '1']);
    // A null is a Datum without VarCharValue.
    expect(rows[4]).toEqual(['2026-11', 'batch', 'i-03', '3.0E-4', '2026-11-01 03:00:00.000', '2026-11-01', null, '1']);
    const info = pages[0].ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
    expect(info.map((c) => c.Type)).toEqual(['varchar', 'varchar', 'varchar', 'double', 'timestamp', 'date', 'varchar', 'integer']);
    // Every later page carries the same metadata, as Athena's do.
    expect(pages[2].ResultSet?.ResultSetMetadata?.ColumnInfo).toEqual(info);
    // The CSV copy at the output location, as Athena writes it.
    const csv = readFileSync(join(folder, 'results', 'athena', `${id}.csv`), 'utf8').split('\n');
    expect(csv[0]).toBe(
      '"billing_period","nodepool","line_item_resource_id","line_item_unblended_cost","line_item_usage_start_date","usage_date","line_item_line_item_type","one"',
    );
    expect(csv[4]).toBe('"2026-11","batch","i-03","3.0E-4","2026-11-01 03:00:00.000","2026-11-01",,"1"');
  });

  it("answers in the recorded shape of AWS's published GetQueryResults and GetQueryExecution", async () => {
    const { id, last } = await run(
      `SELECT CAST(line_item_usage_start_date AS DATE) AS "date", line_item_resource_id AS location, CAST(7 AS INTEGER) AS status FROM cur_db.ledger LIMIT 2`,
    );
    const page = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: id }));
    const ours = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
    const theirs = recorded.GetQueryResults.ResultSet.ResultSetMetadata.ColumnInfo;
    // Same members, and for the same types the same precision, scale and case sensitivity.
    for (const [i, j] of [
      [0, 0],
      [1, 1],
      [2, 4],
    ])
      expect({ ...ours[i], Name: theirs[j].Name, Label: theirs[j].Label }).toEqual(theirs[j]);
    const execution = last.QueryExecution ?? {};
    for (const key of Object.keys(recorded.GetQueryExecution.QueryExecution)) expect(execution).toHaveProperty(key);
    for (const key of Object.keys(recorded.GetQueryExecution.QueryExecution.Statistics)) expect(execution.Statistics).toHaveProperty(key);
  });

  it('fails a bad query with a Trino-style reason, and refuses its results with InvalidRequestException', async () => {
    const { id, states, last } = await run('SELECT no_such_column FROM ledger');
    expect(states.at(-1)).toBe('FAILED');
    expect(last.QueryExecution?.Status?.StateChangeReason).toMatch(/^COLUMN_NOT_FOUND: .*no_such_column/);
    expect(last.QueryExecution?.Status?.AthenaError?.ErrorCategory).toBe(2);
    const refused = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: id })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidRequestException);
    expect((refused as InvalidRequestException).AthenaErrorCode).toBe('INVALID_INPUT');
    const table = await run('SELECT 1 FROM cur_db.missing');
    expect(table.last.QueryExecution?.Status?.StateChangeReason).toMatch(/^TABLE_NOT_FOUND: /);
    const schema = await run('SELECT 1', 'nope');
    expect(schema.last.QueryExecution?.Status?.StateChangeReason).toMatch(/^SCHEMA_NOT_FOUND: .*nope/);
  });

  it('refuses requests Athena refuses: no output location, an unknown workgroup, an unknown id, MaxResults over 1000', async () => {
    const noOutput = await athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1' })).catch((e: unknown) => e);
    expect(noOutput).toBeInstanceOf(InvalidRequestException);
    expect((noOutput as Error).message).toMatch(/No output location provided/);
    const group = await athena
      .send(
        new StartQueryExecutionCommand({
          QueryString: 'SELECT 1',
          WorkGroup: 'nope',
          ResultConfiguration: { OutputLocation: 's3://results/' },
        }),
      )
      .catch((e: unknown) => e);
    expect((group as Error).message).toBe('WorkGroup nope is not found.');
    const unknown = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: 'no-such-id' })).catch((e: unknown) => e);
    expect([(unknown as Error).name, (unknown as Error).message]).toEqual([
      'InvalidRequestException',
      'QueryExecution no-such-id was not found',
    ]);
    const { id } = await run('SELECT 1 AS x');
    const tooMany = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, MaxResults: 1001 })).catch((e: unknown) => e);
    expect((tooMany as Error).name).toBe('InvalidRequestException');
    expect(ctx.requestLog.some((r) => r.operation === 'athena:StartQueryExecution' && r.region === 'us-east-1')).toBe(true);
  });
});
