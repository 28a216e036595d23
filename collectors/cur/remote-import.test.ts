import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../db/open-db.js';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import { curHandlers, sandboxCurLocation } from '../../sandbox/serve/cur-endpoints.js';
import { type SandboxServer, startSandboxServer } from '../../sandbox/serve/server.js';
import { CUR2_SAMPLE, SAMPLE_KNOWN_NODECLAIM } from '../../test/fixtures/cur/cur2-sample.js';
import { writeCurExport } from '../../test/fixtures/cur/write-export.js';
import { newContext, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createAthenaClient } from './athena-client.js';
import { billingPeriodsBetween, importCurFromAthena } from './athena-import.js';
import { createS3Client } from './s3-client.js';
import { importCurFromS3 } from './s3-import.js';

useDummyAwsCredentials();

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
  const ALL = { fromMs: 0, toMs: Date.UTC(2100, 0, 1) };

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
      sinceMs: Date.parse(`${periods[0]}-01T00:00:00Z`),
      nowMs: Date.parse(`${periods.at(-1) ?? ''}-01T00:00:00Z`),
      poll: { firstMs: 5, factor: 1.5, maxMs: 50 },
    });
    athena.destroy();
    expect(summary.periods.map((p) => p.stored)).toEqual(periods.map(() => true));
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
