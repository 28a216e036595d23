import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Handler } from '../../sandbox/serve/s3.js';
import { type SandboxServer, startSandboxServer } from '../../sandbox/serve/server.js';
import { newContext, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { createS3Client, forcePathStyleFor } from './s3-client.js';
import { cacheFolderFor, isExportObject, parseS3Url, S3SourceError, type SyncProgress, syncS3Export } from './s3-source.js';

useDummyAwsCredentials();

describe('parseS3Url', () => {
  it.each([
    ['s3://ledger-cur/cur/ledger', { bucket: 'ledger-cur', prefix: 'cur/ledger' }],
    ['s3://ledger-cur', { bucket: 'ledger-cur', prefix: '' }],
    ['s3://my.bucket-1/a/b/', { bucket: 'my.bucket-1', prefix: 'a/b/' }],
  ])('%s', (url, location) => expect(parseS3Url(url)).toEqual(location));
  it.each(['https://ledger-cur/x', 's3://', 's3://UPPER/x', 's3://ab/x'])('refuses %s, naming it', (url) => {
    expect(() => parseS3Url(url)).toThrow(`"${url}" is not an S3 address`);
  });
});

describe('forcePathStyleFor: path-style addressing for a loopback endpoint only', () => {
  it.each([
    ['http://127.0.0.1:9000', true],
    ['http://localhost:4566', true],
    ['http://[::1]:9000', true],
    ['https://s3.us-east-1.amazonaws.com', false],
    [undefined, false],
  ])('%s -> %s', (endpoint, expected) => expect(forcePathStyleFor(endpoint)).toBe(expected));
});

describe('isExportObject: the data files and manifests of a Data Export, nothing else', () => {
  it.each([
    ['ledger/data/BILLING_PERIOD=2026-11/ledger-00001.snappy.parquet', true],
    ['ledger/data/BILLING_PERIOD=2026-11/ledger-00001.csv.gz', true],
    ['ledger/metadata/BILLING_PERIOD=2026-11/ledger-Manifest.json', true],
    ['ledger/data/BILLING_PERIOD=2026-11/notes.txt', false],
    ['athena-results/123.csv', false],
  ])('%s -> %s', (key, expected) => expect(isExportObject(key)).toBe(expected));
});

describe('syncS3Export: mirror an export from the sandbox S3 endpoint through the real S3Client', () => {
  let bucketDir: string;
  let cacheRoot: string;
  let server: SandboxServer;
  const ctx = newContext(tinyScenario(), TINY_END);
  const exportDir = (): string => join(bucketDir, 'exports', 'ledger');
  const put = (rel: string, bytes: number, fill: number): void => {
    const path = join(exportDir(), rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, Buffer.alloc(bytes, fill));
  };

  beforeAll(async () => {
    bucketDir = mkdtempSync(join(tmpdir(), 'ledger-s3-bucket-'));
    cacheRoot = mkdtempSync(join(tmpdir(), 'ledger-s3-cache-'));
    put('data/BILLING_PERIOD=2026-10/ledger-00001.snappy.parquet', 3000, 1);
    put('data/BILLING_PERIOD=2026-11/ledger-00001.snappy.parquet', 5000, 2);
    put('data/BILLING_PERIOD=2026-11/ledger-00002.snappy.parquet', 700, 3);
    put('metadata/BILLING_PERIOD=2026-11/ledger-Manifest.json', 40, 0x20);
    put('data/BILLING_PERIOD=2026-11/README.txt', 10, 0x41);
    server = await startSandboxServer(ctx, [createS3Handler({ buckets: { 'ledger-cur': bucketDir } })]);
  });
  afterAll(async () => {
    await server.close();
    rmSync(bucketDir, { recursive: true, force: true });
    rmSync(cacheRoot, { recursive: true, force: true });
  });

  // `localhost`, not 127.0.0.1: without forcePathStyle the SDK would send ledger-cur.localhost.
  const client = () =>
    createS3Client({ endpoint: server.url.replace('127.0.0.1', 'localhost'), maxAttempts: 1 }, { AWS_REGION: 'us-east-1' });
  const location = parseS3Url('s3://ledger-cur/exports/ledger');

  it('downloads every export file once, then only what changed, and drops what S3 no longer has', async () => {
    const s3 = client();
    const folder = cacheFolderFor(cacheRoot, location);
    const seen: SyncProgress[] = [];
    const first = await syncS3Export(s3, location, folder, (p) => seen.push({ ...p }));
    expect(first).toMatchObject({ objects: 4, downloaded: 4, downloadedBytes: 8740, unchanged: 0, removed: 0, listRequests: 1 });
    expect(seen.at(-1)).toEqual({ totalBytes: 8740, doneBytes: 8740, files: 4, doneFiles: 4 });
    expect(readFileSync(join(folder, 'data/BILLING_PERIOD=2026-11/ledger-00002.snappy.parquet')).equals(Buffer.alloc(700, 3))).toBe(true);
    expect(existsSync(join(folder, 'data/BILLING_PERIOD=2026-11/README.txt'))).toBe(false);

    const again = await syncS3Export(s3, location, folder);
    expect(again).toMatchObject({ downloaded: 0, downloadedBytes: 0, unchanged: 4, removed: 0 });

    // AWS re-states November: a file rewritten, another gone.
    put('data/BILLING_PERIOD=2026-11/ledger-00001.snappy.parquet', 5100, 4);
    rmSync(join(exportDir(), 'data/BILLING_PERIOD=2026-11/ledger-00002.snappy.parquet'));
    const restated = await syncS3Export(s3, location, folder);
    expect(restated).toMatchObject({ objects: 3, downloaded: 1, downloadedBytes: 5100, unchanged: 2, removed: 1 });
    expect(readdirSync(join(folder, 'data/BILLING_PERIOD=2026-11'))).toEqual(['ledger-00001.snappy.parquet']);
    expect(ctx.requestLog.filter((r) => r.operation === 's3:GetObject')).toHaveLength(5);
    s3.destroy();
  });

  it('a download refused half-way keeps what arrived, leaves no partial file, and names the key', async () => {
    const s3 = client();
    const other = parseS3Url('s3://ledger-cur/exports');
    const folder = cacheFolderFor(cacheRoot, other);
    ctx.faults.push({ match: 'GetObject', status: 403, remaining: 1 });
    const err = await syncS3Export(s3, other, folder).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(S3SourceError);
    expect((err as Error).message).toMatch(
      /^downloading s3:\/\/ledger-cur\/exports\/ledger\/data\/BILLING_PERIOD=2026-10\/ledger-00001\.snappy\.parquet: AccessDenied \(HTTP 403\): access denied/,
    );
    const partials = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.partial'));
    expect(partials(folder)).toEqual([]);
    const retry = await syncS3Export(s3, other, folder);
    expect(retry).toMatchObject({ downloaded: 3 });
    s3.destroy();
  });

  it('names a missing bucket and a prefix without export files', async () => {
    const s3 = client();
    const missing = await syncS3Export(s3, parseS3Url('s3://no-such-bucket/x'), join(cacheRoot, 'm')).catch((e: unknown) => e);
    expect((missing as Error).message).toBe(
      'listing s3://no-such-bucket/x: NoSuchBucket (HTTP 404): the bucket does not exist (or is in another partition)',
    );
    const empty = await syncS3Export(s3, parseS3Url('s3://ledger-cur/nothing-here'), join(cacheRoot, 'e')).catch((e: unknown) => e);
    expect((empty as Error).message).toMatch(/^s3:\/\/ledger-cur\/nothing-here: no CUR 2.0 export files under this prefix/);
    s3.destroy();
  });
});
