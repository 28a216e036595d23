import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUR_COLUMNS, type CurColumnName } from '../../core/cur/columns.js';
import { createAthenaHandler } from '../../sandbox/serve/athena.js';
import { createS3Handler } from '../../sandbox/serve/s3.js';
import { type SandboxServer, startSandboxServer } from '../../sandbox/serve/server.js';
import { newContext, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { type CurAggregateRow, curAggregateStatement, rowFromRecord } from './aggregate-statement.js';
import { createAthenaClient } from './athena-client.js';
import { type AthenaQueryInput, readAthenaResultPages, runAthenaQuery } from './athena-query.js';
import { readAthenaResultCsv } from './athena-result.js';
import { createS3Client } from './s3-client.js';

useDummyAwsCredentials();

/*
 * The shared statement through Athena's protocol: run by the sandbox's Athena, its rows read back both ways Athena
 * offers — GetQueryResults pages (every value a string, typed by ColumnInfo) and the CSV result object it writes to
 * the output location in S3 (streamed) — must be exactly the rows DuckDB gives when the statement runs in process,
 * to the last bit of every double (Java's and JavaScript's shortest decimal forms both round-trip).
 */

const DUCK_TYPE = { string: 'VARCHAR', double: 'DOUBLE', timestamp: 'TIMESTAMP', map: 'MAP(VARCHAR, VARCHAR)' } as const;
type Line = Partial<Record<CurColumnName, string | number | Record<string, string>>>;
const TAGS = { user_karpenter_sh_nodepool: 'general', user_eks_eks_cluster_name: 'tiny-cluster' };
const base = (day: string): Line => ({
  bill_billing_period_start_date: '2026-11-01 00:00:00',
  line_item_usage_start_date: `${day} 05:00:00`,
  line_item_product_code: 'AmazonEC2',
  line_item_operation: 'RunInstances',
});
const LINES: Line[] = [
  {
    ...base('2026-11-02'),
    line_item_line_item_type: 'Usage',
    line_item_usage_type: 'USE1-BoxUsage:m6i.large',
    line_item_resource_id: 'i-0aaa',
    line_item_unblended_cost: 0.096,
    line_item_usage_amount: 1,
    resource_tags: TAGS,
  },
  {
    ...base('2026-11-02'),
    line_item_line_item_type: 'SavingsPlanCoveredUsage',
    line_item_usage_type: 'USE1-BoxUsage:m6i.large',
    line_item_resource_id: 'i-0bbb',
    line_item_unblended_cost: 0.096,
    savings_plan_savings_plan_effective_cost: 0.06912,
    savings_plan_savings_plan_a_r_n: 'arn:aws:savingsplans::123456789012:savingsplan/sp-1',
    resource_tags: TAGS,
  },
  {
    ...base('2026-11-02'),
    line_item_line_item_type: 'SavingsPlanNegation',
    line_item_usage_type: 'USE1-BoxUsage:m6i.large',
    line_item_resource_id: 'i-0bbb',
    line_item_unblended_cost: -0.096,
    savings_plan_savings_plan_a_r_n: 'arn:aws:savingsplans::123456789012:savingsplan/sp-1',
    resource_tags: TAGS,
  },
  {
    ...base('2026-11-02'),
    line_item_line_item_type: 'Usage',
    line_item_usage_type: 'USE1-EBS:VolumeUsage.gp3',
    line_item_resource_id: 'vol-0aaa',
    line_item_unblended_cost: 0.0000219178,
    line_item_usage_amount: 0.000273972,
    resource_tags: { user_karpenter_sh_nodepool: 'general' },
  },
  {
    ...base('2026-11-03'),
    line_item_line_item_type: 'Usage',
    line_item_usage_type: 'USE1-USE1-AZ-DataTransfer-xAZ-In-Bytes',
    line_item_resource_id: 'i-0aaa',
    line_item_unblended_cost: 0.00041,
    line_item_usage_amount: 0.041,
    resource_tags: TAGS,
  },
  {
    ...base('2026-11-03'),
    line_item_line_item_type: 'Usage',
    line_item_usage_type: 'USE1-BoxUsage:m6i.large',
    line_item_resource_id: 'i-0ccc',
    line_item_unblended_cost: 0.096,
    resource_tags: {},
  },
  {
    ...base('2026-11-03'),
    line_item_line_item_type: 'Usage',
    line_item_usage_type: 'USE1-EKS-EC2-vCPU-Hours',
    line_item_resource_id: 'arn:aws:eks:us-east-1:123456789012:pod/tiny-cluster/web/web-1/uid-1',
    split_line_item_parent_resource_id: 'i-0aaa',
    split_line_item_split_usage: 0.5,
    split_line_item_split_cost: 0.0123456789,
    split_line_item_unused_cost: 0.0031,
    resource_tags: { aws_eks_namespace: 'web', aws_eks_cluster_name: 'tiny-cluster' },
  },
  {
    ...base('2026-11-03'),
    line_item_line_item_type: 'Credit',
    line_item_usage_type: '',
    line_item_product_code: 'AmazonEC2',
    line_item_unblended_cost: -1.25,
    resource_tags: {},
  },
  // Another billing period: the statement must leave it out.
  {
    ...base('2026-10-30'),
    bill_billing_period_start_date: '2026-10-01 00:00:00',
    line_item_line_item_type: 'Usage',
    line_item_usage_type: 'USE1-BoxUsage:m6i.large',
    line_item_resource_id: 'i-0old',
    line_item_unblended_cost: 9,
    resource_tags: TAGS,
  },
];

const sqlValue = (v: string | number | Record<string, string> | undefined, type: keyof typeof DUCK_TYPE): string => {
  if (v === undefined) return `CAST(NULL AS ${DUCK_TYPE[type]})`;
  if (typeof v === 'number') return `CAST(${v} AS DOUBLE)`;
  if (typeof v === 'object')
    return Object.keys(v).length === 0
      ? 'CAST(MAP {} AS MAP(VARCHAR, VARCHAR))'
      : `MAP {${Object.entries(v)
          .map(([k, x]) => `'${k}': '${x}'`)
          .join(', ')}}`;
  return type === 'timestamp' ? `TIMESTAMP '${v}'` : `'${v.replace(/'/g, "''")}'`;
};

const sortRows = (rows: CurAggregateRow[]): CurAggregateRow[] =>
  [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('the shared CUR statement through the sandbox Athena, as through DuckDB in process', () => {
  let folder: string;
  let server: SandboxServer;
  let direct: CurAggregateRow[];
  let duckDialect: CurAggregateRow[];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'ledger-athena-stmt-'));
    const names = Object.keys(CUR_COLUMNS) as CurColumnName[];
    const select = (lines: Line[]): string =>
      lines.map((line) => `SELECT ${names.map((n) => `${sqlValue(line[n], CUR_COLUMNS[n])} AS ${n}`).join(', ')}`).join('\nUNION ALL\n');
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    // Each billing period's lines in its own partition folder, as Data Exports writes them.
    const files: string[] = [];
    for (const period of ['2026-10', '2026-11']) {
      const data = join(folder, 'data', `BILLING_PERIOD=${period}`);
      mkdirSync(data, { recursive: true });
      const file = join(data, 'ledger-00001.snappy.parquet');
      files.push(file);
      const lines = LINES.filter((l) => String(l.bill_billing_period_start_date).startsWith(period));
      await c.run(`COPY (${select(lines)}) TO '${file}' (FORMAT PARQUET)`);
    }
    await c.run(`CREATE VIEW cur2 AS SELECT * FROM read_parquet([${files.map((f) => `'${f}'`).join(', ')}])`);
    const reader = await c.runAndReadAll(curAggregateStatement({ table: 'cur2', billingPeriod: '2026-11' }));
    direct = reader.getRowObjectsJson().map((r) => rowFromRecord(r));
    // What the in-process import runs: DuckDB's dialect of the statement.
    const duckReader = await c.runAndReadAll(curAggregateStatement({ table: 'cur2', billingPeriod: '2026-11', dialect: 'duckdb' }));
    duckDialect = duckReader.getRowObjectsJson().map((r) => rowFromRecord(r));
    c.closeSync();
    duck.closeSync();
    const results = join(folder, 'results-bucket');
    mkdirSync(results);
    server = await startSandboxServer(newContext(tinyScenario(), TINY_END), [
      createS3Handler({ buckets: { results } }),
      createAthenaHandler({ tables: { 'cid_data_export.cur2': join(folder, 'data', '*', '*.parquet') }, buckets: { results } }),
    ]);
  });
  afterAll(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const query = (partitionColumn?: string): AthenaQueryInput => ({
    query: curAggregateStatement({
      table: 'cid_data_export.cur2',
      billingPeriod: '2026-11',
      ...(partitionColumn ? { partitionColumn } : {}),
    }),
    database: 'cid_data_export',
    workGroup: 'primary',
    outputLocation: 's3://results/athena/',
    poll: { firstMs: 5, factor: 1.5, maxMs: 50 },
  });

  it('gives the same typed rows from GetQueryResults and from the result object in S3, every double to the bit', async () => {
    const client = createAthenaClient({ endpoint: server.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const s3 = createS3Client({ endpoint: server.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const result = await runAthenaQuery(client, query());
    const viaPages: CurAggregateRow[] = [];
    await readAthenaResultPages(client, result.queryExecutionId, (records) => viaPages.push(...records.map((r) => rowFromRecord(r))));
    expect(result.outputLocation).toBe(`s3://results/athena/${result.queryExecutionId}.csv`);
    const viaCsv: CurAggregateRow[] = [];
    await readAthenaResultCsv(s3, result.outputLocation ?? '', (records) => viaCsv.push(...records.map((r) => rowFromRecord(r))));
    client.destroy();
    s3.destroy();
    // 8 lines of November: resource rows, the credit's unresourced row, the pod's split row; October's line left out.
    expect(direct.length).toBeGreaterThanOrEqual(6);
    expect(direct.some((r) => r.resourceId === 'i-0old')).toBe(false);
    expect(sortRows(viaPages)).toEqual(sortRows(direct));
    // The statement orders its rows: the CSV comes in DuckDB's own order.
    expect(viaCsv).toEqual(direct);
    // Athena's answer to the portable statement is the in-process import's to DuckDB's dialect of it.
    expect(viaCsv).toEqual(duckDialect);
    const split = viaCsv.find((r) => r.rowKind === 'split');
    expect(split).toMatchObject({ namespace: 'web', nodePool: 'general', splitCostUsd: 0.0123456789, vcpuHours: 0.5 });
    const volume = viaCsv.find((r) => r.resourceId === 'vol-0aaa');
    expect(volume).toMatchObject({ category: 'volumes', unblendedUsd: 0.0000219178, nodePool: 'general' });
  });

  it("filtered on the partition column too, gives the same rows and scans only that period's files", async () => {
    const client = createAthenaClient({ endpoint: server.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const all = await runAthenaQuery(client, query());
    const pruned = await runAthenaQuery(client, query('billing_period'));
    const rows: CurAggregateRow[] = [];
    await readAthenaResultPages(client, pruned.queryExecutionId, (records) => rows.push(...records.map((r) => rowFromRecord(r))));
    client.destroy();
    expect(sortRows(rows)).toEqual(sortRows(direct));
    expect(pruned.dataScannedBytes).toBeGreaterThan(0);
    expect(pruned.dataScannedBytes).toBeLessThan(all.dataScannedBytes);
  });
});
