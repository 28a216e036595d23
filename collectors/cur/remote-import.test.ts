import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../db/open-db.js';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import { curHandlers, sandboxCurLocation } from '../../sandbox/serve/cur-endpoints.js';
import { createS3Handler } from '../../sandbox/serve/s3.js';
import { type SandboxServer, startSandboxServer } from '../../sandbox/serve/server.js';
import { CUR2_SAMPLE, SAMPLE_KNOWN_NODECLAIM } from '../../test/fixtures/cur/cur2-sample.js';
import { writeCurExport } from '../../test/fixtures/cur/write-export.js';
import { awsFixture, jsonAnswer, serveRecorded } from '../../test/fixtures/recorded-endpoint.js';
import { newContext, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { CUR_AGGREGATE_COLUMNS } from './aggregate-statement.js';
import { createAthenaClient } from './athena-client.js';
import { billingPeriodsBetween, importCurFromAthena } from './athena-import.js';
import { createS3Client } from './s3-client.js';
import { importCurFromS3 } from './s3-import.js';

useDummyAwsCredentials();

const ALL = { fromMs: 0, toMs: Date.UTC(2100, 0, 1) };

/*
 * The two remote ways in, over the recorded-shape CUR 2.0 sample (test/fixtures/cur/cur2-sample.ts) written as a
 * Data Export into the sandbox's bucket: `cur import s3://…` (S3 endpoint, then DuckDB) and `cur athena` (the Athena
 * endpoint runs the statement) store the same rows.
 */

describe('billingPeriodsBetween', () => {
  it.each([
    ['2026-11-01T00:00:00Z', '2026-11-14T23:00:00Z', ['2026-11']],
    ['2026-10-20T00:00:00Z', '2026-11-03T00:00:00Z', ['2026-10', '2026-11']],
    ['2025-11-15T00:00:00Z', '2026-02-01T00:00:00Z', ['2025-11', '2025-12', '2026-01', '2026-02']],
  ])('%s .. %s', (from, to, periods) => expect(billingPeriodsBetween(Date.parse(from), Date.parse(to))).toEqual(periods));
});

describe('cur import s3://… and cur athena over the same export', () => {
  let dir: string;
  let server: SandboxServer;
  let viaS3: Db;
  let viaAthena: Db;
  const ctx = newContext(tinyScenario(), TINY_END);

  const freshDb = (name: string): Db => {
    const db = openDb({ path: join(dir, `${name}.db`) });
    const k = SAMPLE_KNOWN_NODECLAIM;
    db.prepare('INSERT INTO nodeclaims (name, nodepool, instance_id, created_at, first_seen, last_seen) VALUES (?, ?, ?, 0, 0, 0)').run(
      k.name,
      k.nodePool,
      k.instanceId,
    );
    return db;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-cur-remote-'));
    const cur = sandboxCurLocation(join(dir, 'sandbox'));
    await writeCurExport(cur.bucketDir, CUR2_SAMPLE, { format: 'parquet', exportName: 'ledger-cur2', parts: 2, manifest: true });
    server = await startSandboxServer(ctx, curHandlers(cur));
    viaS3 = freshDb('s3');
    viaAthena = freshDb('athena');
  });
  afterAll(async () => {
    viaS3.close();
    viaAthena.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores the same rows both ways, and an S3 re-run downloads and changes nothing', async () => {
    const cur = sandboxCurLocation(join(dir, 'sandbox'));
    const s3 = createS3Client({ endpoint: server.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const first = await importCurFromS3(viaS3, s3, cur.s3Url, { cacheRoot: join(dir, 'cache') });
    expect(first.sync.downloaded).toBeGreaterThanOrEqual(3);
    expect(first.imported.periods.map((p) => p.status)).toContain('imported');

    const athena = createAthenaClient({ endpoint: server.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const periods = createCurRepository(viaS3)
      .periods()
      .map((p) => p.billingPeriod);
    const summary = await importCurFromAthena(viaAthena, athena, {
      ...cur.athena,
      s3,
      sinceMs: Date.parse(`${periods[0]}-01T00:00:00Z`),
      nowMs: Date.parse(`${periods.at(-1) ?? ''}-01T00:00:00Z`),
      poll: { firstMs: 5, factor: 1.5, maxMs: 50 },
    });
    athena.destroy();
    expect(summary.periods.map((p) => p.stored)).toEqual(periods.map(() => true));
    // Read from the CSV object the sandbox's Athena wrote to its output location, not GetQueryResults pages.
    expect(summary.periods.map((p) => p.readFrom)).toEqual(periods.map(() => 's3'));
    expect(summary.dataScannedBytes).toBeGreaterThan(0);

    const a = createCurRepository(viaS3);
    const b = createCurRepository(viaAthena);
    expect(a.nodePoolDays(ALL).length).toBeGreaterThan(0);
    expect(b.nodePoolDays(ALL)).toEqual(a.nodePoolDays(ALL));
    expect(b.namespaceDays(ALL)).toEqual(a.namespaceDays(ALL));
    expect(b.resourceDays(ALL)).toEqual(a.resourceDays(ALL));
    const totals = (r: typeof a) =>
      r.periods().map((p) => [p.billingPeriod, p.curRows, p.unblendedUsd, p.amortizedUsd, p.nodeClaimFilledLines, p.splitLines]);
    expect(totals(b)).toEqual(totals(a));
    expect(a.periods().map((p) => p.source)).toEqual(periods.map(() => 's3://ledger-sandbox-cur/cur/ledger-cur2'));
    expect(b.periods().map((p) => p.source)).toEqual(periods.map(() => 'athena:cid_data_export.cur2'));

    const before = JSON.stringify([a.periods(), a.nodePoolDays(ALL), a.namespaceDays(ALL), a.resourceDays(ALL)]);
    const again = await importCurFromS3(viaS3, s3, cur.s3Url, { cacheRoot: join(dir, 'cache') });
    s3.destroy();
    expect(again.sync).toMatchObject({ downloaded: 0, downloadedBytes: 0 });
    expect(again.imported.periods.map((p) => p.status)).toEqual(first.imported.periods.map(() => 'unchanged'));
    expect(JSON.stringify([a.periods(), a.nodePoolDays(ALL), a.namespaceDays(ALL), a.resourceDays(ALL)])).toBe(before);
  });
});

describe('cur athena: the result object read as a stream, and a result that breaks part-way', () => {
  /**
   * Athena's answers are recorded (AWS's published get-query-execution output, pointed at our result object); the
   * object itself is served by the sandbox's S3. 3,000 resource rows: more than one chunk reaches SQLite before row
   * 2,500, which the second delivery spoils.
   */
  const ROWS = 3000;
  const recorded = JSON.parse(awsFixture('athena-query.json')) as { GetQueryExecution: { QueryExecution: Record<string, unknown> } };
  const csvOf = (spoilRow: number | null): string => {
    const q = (v: string | number) => `"${String(v)}"`;
    const lines = [CUR_AGGREGATE_COLUMNS.map(q).join(',')];
    for (let i = 1; i <= ROWS; i++) {
      const money = i === spoilRow ? '0.5 USD' : '0.5';
      const row: Record<string, string | number> = {
        row_kind: 'resource',
        usage_day: '2026-11-02',
        resource_id: `i-${String(i).padStart(17, '0')}`,
        line_item_type: 'Usage',
        usage_type: 'USE1-BoxUsage:m6i.large',
        product_code: 'AmazonEC2',
        operation: 'RunInstances',
        category: 'instances',
        cluster: 'prod',
        nodepool: 'general',
        unblended_usd: money,
        amortized_usd: '0.5',
        net_unblended_usd: '0.5',
        net_amortized_usd: '0.5',
        usage_amount: '24.0',
        line_count: 1,
      };
      lines.push(
        CUR_AGGREGATE_COLUMNS.map((c) =>
          q(row[c] ?? (c.endsWith('_usd') || c.endsWith('_hours') || c.endsWith('_count') ? '0.0' : '')),
        ).join(','),
      );
    }
    return `${lines.join('\n')}\n`;
  };

  it('stores every row of the object; a row that cannot be read past the first chunk leaves the period as it was', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'ledger-athena-result-'));
    mkdirSync(join(folder, 'athena'));
    const s3server = await startSandboxServer(newContext(tinyScenario(), TINY_END), [createS3Handler({ buckets: { results: folder } })]);
    const athenaServer = await serveRecorded((req) =>
      req.operation === 'StartQueryExecution'
        ? jsonAnswer({ QueryExecutionId: 'q-1' })
        : jsonAnswer({
            QueryExecution: {
              ...recorded.GetQueryExecution.QueryExecution,
              QueryExecutionId: 'q-1',
              ResultConfiguration: { OutputLocation: 's3://results/athena/q-1.csv' },
              Status: { State: 'SUCCEEDED' },
            },
          }),
    );
    const athena = createAthenaClient({ endpoint: athenaServer.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const s3 = createS3Client({ endpoint: s3server.url, maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
    const db = openDb({ path: join(folder, 'ledger.db') });
    const run = () =>
      importCurFromAthena(db, athena, {
        database: 'cid_data_export',
        table: 'cur2',
        workGroup: 'primary',
        s3,
        sinceMs: Date.UTC(2026, 10, 5),
        nowMs: Date.UTC(2026, 10, 20),
        poll: { firstMs: 1, factor: 2, maxMs: 4 },
      });
    try {
      writeFileSync(join(folder, 'athena', 'q-1.csv'), csvOf(null));
      const first = await run();
      expect(first.periods.map((p) => [p.billingPeriod, p.resultRows, p.curLines, p.readFrom])).toEqual([['2026-11', ROWS, ROWS, 's3']]);
      const repo = createCurRepository(db);
      // 3,000 instances of 0.50 on one day: 1,500.00 for general's instances.
      expect(repo.nodePoolDays(ALL).map((d) => [d.nodePool, d.category, d.unblendedUsd, d.lineCount])).toEqual([
        ['general', 'instances', 1500, ROWS],
      ]);
      expect(repo.counts()).toMatchObject({ periods: 1, resource: ROWS });
      // Nothing was asked of GetQueryResults: the rows came from the object.
      expect(athenaServer.requests.map((r) => r.operation)).not.toContain('GetQueryResults');
      const before = JSON.stringify([repo.periods(), repo.nodePoolDays(ALL), repo.resourceDays(ALL)]);

      writeFileSync(join(folder, 'athena', 'q-1.csv'), csvOf(2500));
      await expect(run()).rejects.toThrow(
        'Athena query q-1 (billing period 2026-11), result row 2500: CUR aggregate column unblended_usd: "0.5 USD" is not a number',
      );
      expect(db.inTransaction).toBe(false);
      expect(JSON.stringify([repo.periods(), repo.nodePoolDays(ALL), repo.resourceDays(ALL)])).toBe(before);
    } finally {
      db.close();
      athena.destroy();
      s3.destroy();
      await athenaServer.close();
      await s3server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
