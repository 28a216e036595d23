import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchBucket,
  NoSuchKey,
  NotFound,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { byteRange, createS3Handler } from './s3.js';
import { type SandboxServer, startSandboxServer } from './server.js';

useDummyAwsCredentials();

const BUCKET = 'ledger-cur';
const md5 = (s: string | Buffer): string => `"${createHash('md5').update(s).digest('hex')}"`;

describe('byteRange: the Range header as S3 reads it', () => {
  it.each([
    ['bytes=0-9', 100, [0, 9]],
    ['bytes=90-', 100, [90, 99]],
    ['bytes=-10', 100, [90, 99]],
    ['bytes=-500', 100, [0, 99]],
    ['bytes=95-200', 100, [95, 99]],
    ['bytes=9-3', 100, null],
    ['items=0-3', 100, null],
  ] as const)('%s of %i bytes -> %j', (header, size, expected) => {
    expect(byteRange(header, size)).toEqual(expected);
  });
  it('refuses a range starting past the end (416 InvalidRange)', () => {
    expect(() => byteRange('bytes=100-', 100)).toThrow('not satisfiable');
  });
});

describe('the sandbox S3 endpoint through the real S3Client', () => {
  let folder: string;
  let server: SandboxServer;
  let s3: S3Client;
  const ctx = newContext(tinyScenario(), TINY_END);
  const parquet = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'ledger-s3-'));
    const period = join(folder, 'cur', 'ledger', 'data', 'BILLING_PERIOD=2026-11');
    mkdirSync(period, { recursive: true });
    writeFileSync(join(period, 'ledger-00001.snappy.parquet'), parquet);
    mkdirSync(join(folder, 'cur', 'ledger', 'metadata', 'BILLING_PERIOD=2026-11'), { recursive: true });
    writeFileSync(join(folder, 'cur', 'ledger', 'metadata', 'BILLING_PERIOD=2026-11', 'ledger-Manifest.json'), '{"x":1}');
    // 1,001 keys: one more than a page holds.
    mkdirSync(join(folder, 'many'));
    for (let i = 0; i < 1001; i += 1) writeFileSync(join(folder, 'many', `k${String(i).padStart(4, '0')}`), String(i));
    server = await startSandboxServer(ctx, [createS3Handler({ buckets: { [BUCKET]: folder } })]);
    // No forcePathStyle: against an IP-address endpoint the SDK's endpoint rules choose path-style themselves.
    s3 = new S3Client({ region: 'us-east-1', endpoint: server.url, maxAttempts: 1 });
  });
  afterAll(async () => {
    s3.destroy();
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('pages ListObjectsV2 over 1,001 keys with continuation tokens (1000 + 1), KeyCount and IsTruncated', async () => {
    const first = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'many/' }));
    expect([first.KeyCount, first.IsTruncated, first.MaxKeys, first.Contents?.length]).toEqual([1000, true, 1000, 1000]);
    expect(first.NextContinuationToken).toBeTruthy();
    const second = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'many/', ContinuationToken: first.NextContinuationToken }),
    );
    expect([second.KeyCount, second.IsTruncated, second.NextContinuationToken]).toEqual([1, false, undefined]);
    expect(second.Contents?.[0]).toMatchObject({ Key: 'many/k1000', Size: 4, ETag: md5('1000'), StorageClass: 'STANDARD' });
    expect(second.Contents?.[0].LastModified).toBeInstanceOf(Date);
  });

  it('pages with a small MaxKeys through the SDK paginator, every key once, in order', async () => {
    const keys: string[] = [];
    let pages = 0;
    for await (const page of paginateListObjectsV2({ client: s3, pageSize: 7 }, { Bucket: BUCKET, Prefix: 'cur/' })) {
      pages += 1;
      keys.push(...(page.Contents ?? []).map((o) => o.Key ?? ''));
    }
    expect(pages).toBe(1);
    expect(keys).toEqual([
      'cur/ledger/data/BILLING_PERIOD=2026-11/ledger-00001.snappy.parquet',
      'cur/ledger/metadata/BILLING_PERIOD=2026-11/ledger-Manifest.json',
    ]);
    const small: string[] = [];
    let smallPages = 0;
    for await (const page of paginateListObjectsV2({ client: s3, pageSize: 300 }, { Bucket: BUCKET, Prefix: 'many/k09' })) {
      smallPages += 1;
      small.push(...(page.Contents ?? []).map((o) => o.Key ?? ''));
    }
    expect([smallPages, small.length, new Set(small).size, small[0], small.at(-1)]).toEqual([1, 100, 100, 'many/k0900', 'many/k0999']);
    const tiny = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'many/k00', MaxKeys: 3 }));
    expect(tiny.Contents?.map((o) => o.Key)).toEqual(['many/k0000', 'many/k0001', 'many/k0002']);
    const next = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'many/k00', MaxKeys: 3, ContinuationToken: tiny.NextContinuationToken }),
    );
    expect(next.Contents?.map((o) => o.Key)).toEqual(['many/k0003', 'many/k0004', 'many/k0005']);
  });

  it('rolls keys up into CommonPrefixes with a delimiter (each counted once against MaxKeys)', async () => {
    const top = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Delimiter: '/' }));
    expect(top.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['cur/', 'many/']);
    expect([top.KeyCount, top.Contents]).toEqual([2, undefined]);
    const one = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Delimiter: '/', MaxKeys: 1 }));
    expect([one.CommonPrefixes?.map((p) => p.Prefix), one.IsTruncated]).toEqual([['cur/'], true]);
    const rest = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Delimiter: '/', MaxKeys: 1, ContinuationToken: one.NextContinuationToken }),
    );
    expect([rest.CommonPrefixes?.map((p) => p.Prefix), rest.IsTruncated]).toEqual([['many/'], false]);
  });

  it('streams GetObject with its ETag and length, and a Range as 206 with Content-Range', async () => {
    const key = 'cur/ledger/data/BILLING_PERIOD=2026-11/ledger-00001.snappy.parquet';
    const whole = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    const bytes = Buffer.from((await whole.Body?.transformToByteArray()) ?? []);
    expect(bytes.equals(parquet)).toBe(true);
    expect([whole.ETag, whole.ContentLength, whole.AcceptRanges]).toEqual([md5(parquet), 4096, 'bytes']);
    const tail = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: 'bytes=-8' }));
    const tailBytes = Buffer.from((await tail.Body?.transformToByteArray()) ?? []);
    expect(tailBytes.equals(parquet.subarray(4088))).toBe(true);
    expect([tail.ContentRange, tail.ContentLength, tail.ETag]).toEqual(['bytes 4088-4095/4096', 8, md5(parquet)]);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect([head.ContentLength, head.ETag]).toEqual([4096, md5(parquet)]);
  });

  it("answers S3's errors: NoSuchKey, NoSuchBucket, HEAD's bodiless 404, InvalidRange, an injected AccessDenied", async () => {
    const missing = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'cur/nope.parquet' })).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NoSuchKey);
    expect((missing as NoSuchKey).$metadata.httpStatusCode).toBe(404);
    const bucket = await s3.send(new ListObjectsV2Command({ Bucket: 'not-ours' })).catch((e: unknown) => e);
    expect(bucket).toBeInstanceOf(NoSuchBucket);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'cur/nope.parquet' })).catch((e: unknown) => e);
    expect(head).toBeInstanceOf(NotFound);
    const escape = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: '../etc/passwd' })).catch((e: unknown) => e);
    // The URL's dot segments are resolved before the request is sent (to /etc/passwd: a bucket that is not there).
    expect((escape as S3ServiceException).$metadata.httpStatusCode).toBe(404);
    // Encoded, they reach the sandbox as a key, which must not name a file outside the bucket's folder.
    const encoded = await fetch(`${server.url}/${BUCKET}/..%2F..%2Fetc%2Fhostname`);
    expect([encoded.status, /<Code>NoSuchKey<\/Code>/.test(await encoded.text())]).toEqual([404, true]);
    const range = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'many/k0001', Range: 'bytes=50-' })).catch((e: unknown) => e);
    expect([(range as S3ServiceException).name, (range as S3ServiceException).$metadata.httpStatusCode]).toEqual(['InvalidRange', 416]);
    ctx.faults.push({ match: 'GetObject', status: 403, remaining: 1 });
    const denied = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'many/k0001' })).catch((e: unknown) => e);
    expect([(denied as S3ServiceException).name, (denied as S3ServiceException).message]).toEqual(['AccessDenied', 'Access Denied']);
    expect(ctx.requestLog.filter((r) => r.operation === 's3:GetObject').length).toBeGreaterThan(3);
  });
  it('PutObject replaces a key whole and answers its MD5 ETag; DeleteObject removes it (204 either way)', async () => {
    const key = 'org/table=nodepool_hour/cluster=c1/day=2026-11-02/part-0.parquet';
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: Buffer.from('first version') }));
    const put = await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: parquet }));
    expect(put.ETag).toBe(md5(parquet));
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(Buffer.from(await (got.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array()))).equals(parquet)).toBe(true);
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    await expect(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toBeInstanceOf(NotFound);
  });

  it("refuses a PutObject whose Content-MD5 is not the body's (400 BadDigest)", async () => {
    const err = await s3
      .send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: 'org/x.parquet',
          Body: parquet,
          ContentMD5: createHash('md5').update('other').digest('base64'),
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(S3ServiceException);
    expect((err as S3ServiceException).name).toBe('BadDigest');
  });
});
