import { AthenaClient } from '@aws-sdk/client-athena';
import { afterEach, describe, expect, it } from 'vitest';
import { awsFixture, jsonAnswer, type RecordedEndpoint, serveRecorded } from '../../test/fixtures/recorded-endpoint.js';
import { useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { AthenaQueryError, type AthenaRecord, athenaValue, readAthenaResultPages, runAthenaQuery } from './athena-query.js';

useDummyAwsCredentials();

/** AWS's published get-query-execution and get-query-results outputs (test/fixtures/aws/athena-query.json, origin inside). */
const recorded = JSON.parse(awsFixture('athena-query.json')) as {
  GetQueryExecution: { QueryExecution: { QueryExecutionId: string; Status: Record<string, unknown> } };
  GetQueryResults: unknown;
};
const FAST = { firstMs: 1, factor: 2, maxMs: 4 };

describe('athenaValue: a VarCharValue as its ColumnInfo type says', () => {
  it.each([
    ['200', 'integer', 200],
    ['12345678901', 'bigint', 12345678901],
    ['1.0E-4', 'double', 0.0001],
    ['0.096', 'decimal(18,3)', 0.096],
    ['true', 'boolean', true],
    ['2014-07-05', 'date', '2014-07-05'],
    ['2026-11-01 00:00:00.000', 'timestamp', '2026-11-01 00:00:00.000'],
    ['{k=v}', 'map(varchar, varchar)', '{k=v}'],
    [undefined, 'double', null],
  ] as const)('%s as %s', (text, type, value) => expect(athenaValue(text, type)).toBe(value));
  it('refuses a number column that holds no number, naming value and type', () => {
    expect(() => athenaValue('abc', 'bigint')).toThrow('Athena returned "abc" in a bigint column');
  });
});

describe('runAthenaQuery against recorded Athena answers through the real AthenaClient', () => {
  let endpoint: RecordedEndpoint | null = null;
  afterEach(async () => {
    await endpoint?.close();
    endpoint = null;
  });
  const client = (url: string): AthenaClient => new AthenaClient({ region: 'us-east-1', endpoint: url, maxAttempts: 1 });
  const execution = (state: string, extra: Record<string, unknown> = {}) =>
    jsonAnswer({
      QueryExecution: {
        ...recorded.GetQueryExecution.QueryExecution,
        Status: { ...recorded.GetQueryExecution.QueryExecution.Status, State: state, ...extra },
      },
    });

  it('starts, polls QUEUED and RUNNING until SUCCEEDED; GetQueryResults pages typed by ColumnInfo (header dropped)', async () => {
    const states = ['QUEUED', 'RUNNING', 'SUCCEEDED'];
    endpoint = await serveRecorded((req) => {
      if (req.operation === 'StartQueryExecution')
        return jsonAnswer({ QueryExecutionId: recorded.GetQueryExecution.QueryExecution.QueryExecutionId });
      if (req.operation === 'GetQueryExecution') return execution(states.shift() ?? 'SUCCEEDED');
      return jsonAnswer(recorded.GetQueryResults);
    });
    const athena = client(endpoint.url);
    const result = await runAthenaQuery(athena, {
      query: 'SELECT 1',
      database: 'mydatabase',
      workGroup: 'AthenaAdmin',
      outputLocation: 's3://amzn-s3-demo-bucket/',
      poll: FAST,
    });
    const pages: AthenaRecord[][] = [];
    const read = await readAthenaResultPages(athena, result.queryExecutionId, (records) => pages.push(records));
    athena.destroy();
    expect(result.queryExecutionId).toBe('a1b2c3d4-5678-90ab-cdef-EXAMPLE11111');
    expect(pages).toEqual([
      [
        { date: '2014-07-05', location: 'SFO4', browser: 'Safari', uri: '/test-image-2.jpeg', status: 200 },
        { date: '2014-07-05', location: 'SFO4', browser: 'Opera', uri: '/test-image-2.jpeg', status: 200 },
      ],
    ]);
    expect([result.requests, read, result.dataScannedBytes, result.engineMs]).toEqual([{ start: 1, polls: 3 }, 1, 203089, 3600]);
    // The recorded execution names where Athena wrote the result object: the query id's CSV in the output location.
    expect(result.outputLocation).toBe('s3://amzn-s3-demo-bucket/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111.csv');
    const start = endpoint.requests[0].json ?? {};
    expect(start).toMatchObject({
      QueryString: 'SELECT 1',
      QueryExecutionContext: { Database: 'mydatabase', Catalog: 'AwsDataCatalog' },
      WorkGroup: 'AthenaAdmin',
      ResultConfiguration: { OutputLocation: 's3://amzn-s3-demo-bucket/' },
    });
    expect(endpoint.requests.filter((r) => r.operation === 'GetQueryResults').map((r) => r.json?.MaxResults)).toEqual([1000]);
  });

  it.each(['FAILED', 'CANCELLED'])('a %s query is an error naming the query id and the reason', async (state) => {
    endpoint = await serveRecorded((req) =>
      req.operation === 'StartQueryExecution'
        ? jsonAnswer({ QueryExecutionId: 'q-123' })
        : execution(state, { StateChangeReason: "COLUMN_NOT_FOUND: line 2:5: Column 'billing_period_na' cannot be resolved" }),
    );
    const athena = client(endpoint.url);
    const err = await runAthenaQuery(athena, { query: 'SELECT 1', database: 'd', workGroup: 'w', poll: FAST }).catch((e: unknown) => e);
    athena.destroy();
    expect(err).toBeInstanceOf(AthenaQueryError);
    expect((err as Error).message).toBe(
      `Athena query q-123 ${state}: COLUMN_NOT_FOUND: line 2:5: Column 'billing_period_na' cannot be resolved`,
    );
    expect((err as AthenaQueryError).queryExecutionId).toBe('q-123');
  });

  it('a refused start names the workgroup and Athena’s words', async () => {
    endpoint = await serveRecorded(() => ({
      status: 400,
      contentType: 'application/x-amz-json-1.1',
      body: JSON.stringify({
        __type: 'InvalidRequestException',
        AthenaErrorCode: 'INVALID_INPUT',
        Message: 'WorkGroup nope is not found.',
      }),
    }));
    const athena = client(endpoint.url);
    const err = await runAthenaQuery(athena, { query: 'SELECT 1', database: 'd', workGroup: 'nope', poll: FAST }).catch((e: unknown) => e);
    athena.destroy();
    expect((err as Error).message).toBe(
      'starting an Athena query in workgroup nope on d: InvalidRequestException: WorkGroup nope is not found.',
    );
  });
});
