import { createHash, randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { crossPartition, signingScope } from './aws-account.js';
import type { FaultRule, SandboxHandler, SandboxRequest, SandboxResponse } from './context.js';

/**
 * Amazon S3 over its REST-XML protocol, serving local folders as buckets (the sandbox's CUR export, and the bucket
 * `export` writes to): ListObjectsV2, GetObject (with Range) and HeadObject, PutObject (a single-part upload, checked
 * against its Content-MD5, replacing the key whole) and DeleteObject (204 whether or not the key existed), path-style (`/<bucket>/<key>`, what the SDK sends to an IP
 * address endpoint or with forcePathStyle) or virtual-hosted (`Host: <bucket>.<endpoint>`). Answers as S3 does:
 * keys in UTF-8 binary order, MaxKeys ≤ 1000 counting keys and common prefixes, an opaque continuation token, a
 * quoted MD5 ETag (S3's ETag of an object uploaded in one part), and errors as `<Error><Code>…` bodies with S3's
 * status codes (NoSuchBucket and NoSuchKey 404, AccessDenied 403, InvalidRange 416; HEAD errors have no body).
 * Faults a test injects for ListObjectsV2/GetObject/HeadObject answer 403 AccessDenied, 503 SlowDown or 500.
 */

export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const MAX_KEYS = 1000;

export interface S3Options {
  /** Bucket name -> the local folder served as that bucket (its files' paths, with `/`, are the keys). */
  buckets: Record<string, string>;
}

interface S3Object {
  key: string;
  path: string;
  sizeBytes: number;
  lastModifiedMs: number;
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const requestHeaders = (): Record<string, string> => ({
  'x-amz-request-id': randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase(),
  'x-amz-id-2': createHash('sha256').update(randomUUID()).digest('base64'),
});

function xmlResponse(status: number, body: string): SandboxResponse {
  return {
    status,
    headers: { 'content-type': 'application/xml', ...requestHeaders() },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
  };
}

export function s3ErrorResponse(method: string, err: S3Error, resource: string): SandboxResponse {
  // A HEAD answer has no body: the SDK names the error from the status alone (NotFound, Forbidden).
  if (method === 'HEAD') return { status: err.status, headers: requestHeaders(), body: '' };
  const extra = Object.entries(err.extra)
    .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
    .join('');
  return xmlResponse(
    err.status,
    `<Error><Code>${err.code}</Code><Message>${xmlEscape(err.message)}</Message>${extra}<Resource>${xmlEscape(resource)}</Resource><RequestId>${randomUUID().slice(0, 16).toUpperCase()}</RequestId></Error>`,
  );
}

function faultError(rule: FaultRule): S3Error {
  if (rule.status === 403) return new S3Error(403, 'AccessDenied', 'Access Denied');
  if (rule.status === 503 || rule.status === 429) return new S3Error(503, 'SlowDown', 'Please reduce your request rate.');
  return new S3Error(rule.status, 'InternalError', 'We encountered an internal error. Please try again.');
}

/** Every file under `folder` as an object, keys sorted as S3 lists them (by UTF-8 bytes). */
function objectsOf(folder: string): S3Object[] {
  const out: S3Object[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // a bucket whose folder is not written yet is empty
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && !e.name.endsWith('.uploading')) {
        const st = statSync(path);
        out.push({ key: relative(folder, path).split(sep).join('/'), path, sizeBytes: st.size, lastModifiedMs: st.mtimeMs });
      }
    }
  };
  walk(folder);
  return out.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
}

/** S3's ETag of a single-part object: the MD5 of its bytes, quoted; cached per file version. */
const etags = new Map<string, string>();
function etagOf(path: string, st: Stats): string {
  const id = `${path}|${st.size}|${st.mtimeMs}`;
  let etag = etags.get(id);
  if (etag === undefined) {
    const hash = createHash('md5');
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(1 << 20);
      let n: number;
      while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) hash.update(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    etag = `"${hash.digest('hex')}"`;
    etags.set(id, etag);
  }
  return etag;
}

const encodeKey = (s: string, url: boolean): string => xmlEscape(url ? encodeURIComponent(s).replace(/%2F/g, '/') : s);

function listObjectsV2(bucket: string, folder: string, q: URLSearchParams): SandboxResponse {
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const url = q.get('encoding-type') === 'url';
  const maxText = q.get('max-keys');
  const maxKeys = maxText === null ? MAX_KEYS : Number(maxText);
  if (!Number.isInteger(maxKeys) || maxKeys < 0)
    throw new S3Error(400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range', {
      ArgumentName: 'max-keys',
      ArgumentValue: maxText ?? '',
    });
  const limit = Math.min(maxKeys, MAX_KEYS);
  const token = q.get('continuation-token');
  let after = q.get('start-after') ?? '';
  if (token !== null) {
    const decoded = /^v1:(.*)$/s.exec(Buffer.from(token, 'base64').toString('utf8'));
    if (token === '' || decoded === null)
      throw new S3Error(400, 'InvalidArgument', 'The continuation token provided is incorrect', { ArgumentName: 'continuation-token' });
    after = decoded[1];
  }
  const contents: S3Object[] = [];
  const prefixes: string[] = [];
  let truncated = false;
  let last = '';
  for (const o of objectsOf(folder)) {
    if (!o.key.startsWith(prefix) || Buffer.compare(Buffer.from(o.key), Buffer.from(after)) <= 0) continue;
    const rest = o.key.slice(prefix.length);
    const cut = delimiter === '' ? -1 : rest.indexOf(delimiter);
    const common = cut < 0 ? null : prefix + rest.slice(0, cut + delimiter.length);
    // Keys rolled up into the common prefix just listed take no room of their own.
    if (common !== null && prefixes.at(-1) === common) continue;
    if (contents.length + prefixes.length >= limit) {
      truncated = true;
      break;
    }
    if (common !== null) {
      prefixes.push(common);
      // The next page starts after every key of this prefix: the token names the last possible one.
      last = `${common}\u{10FFFF}`;
    } else {
      contents.push(o);
      last = o.key;
    }
  }
  const next = truncated ? Buffer.from(`v1:${last}`).toString('base64') : null;
  const parts = [
    `<ListBucketResult xmlns="${S3_XMLNS}">`,
    `<Name>${xmlEscape(bucket)}</Name>`,
    `<Prefix>${encodeKey(prefix, url)}</Prefix>`,
    ...(q.has('start-after') ? [`<StartAfter>${encodeKey(q.get('start-after') ?? '', url)}</StartAfter>`] : []),
    ...(token !== null ? [`<ContinuationToken>${xmlEscape(token)}</ContinuationToken>`] : []),
    ...(next !== null ? [`<NextContinuationToken>${next}</NextContinuationToken>`] : []),
    `<KeyCount>${contents.length + prefixes.length}</KeyCount>`,
    `<MaxKeys>${maxKeys}</MaxKeys>`,
    ...(delimiter !== '' ? [`<Delimiter>${encodeKey(delimiter, url)}</Delimiter>`] : []),
    ...(url ? ['<EncodingType>url</EncodingType>'] : []),
    `<IsTruncated>${truncated}</IsTruncated>`,
    ...contents.map(
      (o) =>
        `<Contents><Key>${encodeKey(o.key, url)}</Key><LastModified>${new Date(o.lastModifiedMs).toISOString()}</LastModified>` +
        `<ETag>${xmlEscape(etagOf(o.path, statSync(o.path)))}</ETag><Size>${o.sizeBytes}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    ),
    ...prefixes.map((p) => `<CommonPrefixes><Prefix>${encodeKey(p, url)}</Prefix></CommonPrefixes>`),
    '</ListBucketResult>',
  ];
  return xmlResponse(200, parts.join(''));
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` as [first, last] inclusive; null = the whole object (no or ignored header). */
export function byteRange(header: string | undefined, sizeBytes: number): [number, number] | null {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // S3 ignores a Range it cannot parse (or several ranges) and sends the whole object.
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || sizeBytes === 0) throw rangeError(sizeBytes);
    return [Math.max(0, sizeBytes - suffix), sizeBytes - 1];
  }
  const first = Number(m[1]);
  const lastAsked = m[2] === '' ? sizeBytes - 1 : Number(m[2]);
  if (m[2] !== '' && lastAsked < first) return null;
  if (first >= sizeBytes) throw rangeError(sizeBytes);
  return [first, Math.min(lastAsked, sizeBytes - 1)];
}

const rangeError = (sizeBytes: number): S3Error =>
  new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', { ActualObjectSize: String(sizeBytes) });

function readBytes(path: string, first: number, count: number): Buffer {
  const buf = Buffer.alloc(count);
  const fd = openSync(path, 'r');
  try {
    let done = 0;
    while (done < count) {
      const n = readSync(fd, buf, done, count - done, first + done);
      if (n === 0) break;
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return buf;
}

function getObject(req: SandboxRequest, folder: string, key: string): SandboxResponse {
  const path = resolve(folder, ...key.split('/'));
  let st: Stats | null = null;
  // A key must name a file inside the bucket's folder ("../" segments and folders are not objects).
  if (path.startsWith(resolve(folder) + sep)) {
    try {
      st = statSync(path);
    } catch {
      st = null;
    }
  }
  if (st === null || !st.isFile()) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
  const etag = etagOf(path, st);
  const ifMatch = req.headers['if-match'];
  if (typeof ifMatch === 'string' && ifMatch !== '*' && !ifMatch.split(',').some((t) => t.trim() === etag))
    throw new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
      Condition: 'If-Match',
    });
  const common = {
    ...requestHeaders(),
    'accept-ranges': 'bytes',
    etag,
    'last-modified': new Date(st.mtimeMs).toUTCString(),
    'content-type': key.endsWith('.json') ? 'application/json' : 'binary/octet-stream',
  };
  const rangeHeader = req.headers.range;
  const range = byteRange(Array.isArray(rangeHeader) ? rangeHeader[0] : rangeHeader, st.size);
  if (req.method === 'HEAD') return { status: 200, headers: { ...common, 'content-length': String(st.size) }, body: '' };
  if (range === null) return { status: 200, headers: common, body: readBytes(path, 0, st.size) };
  const [first, last] = range;
  return {
    status: 206,
    headers: { ...common, 'content-range': `bytes ${first}-${last}/${st.size}` },
    body: readBytes(path, first, last - first + 1),
  };
}

/** The file a key names inside the bucket's folder, or null when it would leave it ("../" segments). */
function keyPath(folder: string, key: string): string | null {
  const path = resolve(folder, ...key.split('/'));
  return path.startsWith(resolve(folder) + sep) ? path : null;
}

/** PutObject: the body written aside and renamed over the key, so a reader sees the old object or the new one. */
function putObject(req: SandboxRequest, folder: string, key: string): SandboxResponse {
  const path = keyPath(folder, key);
  if (path === null || key.endsWith('/'))
    throw new S3Error(400, 'InvalidArgument', 'The key is not one the sandbox can store.', { Key: key });
  const md5 = createHash('md5').update(req.body).digest();
  const sent = req.headers['content-md5'];
  if (typeof sent === 'string' && sent !== md5.toString('base64'))
    throw new S3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${randomUUID()}.uploading`;
  writeFileSync(tmp, req.body);
  renameSync(tmp, path);
  return { status: 200, headers: { ...requestHeaders(), etag: `"${md5.toString('hex')}"` }, body: '' };
}

function deleteObject(folder: string, key: string): SandboxResponse {
  const path = keyPath(folder, key);
  if (path !== null) rmSync(path, { force: true });
  return { status: 204, headers: requestHeaders(), body: '' };
}

/** Bucket and key of a request: virtual-hosted when the Host names a served bucket, else path-style. */
function locate(req: SandboxRequest, buckets: Record<string, string>): { bucket: string; key: string } | null {
  const host = (req.headers.host ?? '').split(':')[0];
  const path = req.url.pathname;
  for (const bucket of Object.keys(buckets)) if (host.startsWith(`${bucket}.`)) return { bucket, key: decodeURIComponent(path.slice(1)) };
  const m = /^\/([^/]+)(?:\/(.*))?$/.exec(path);
  if (!m) return null;
  return { bucket: decodeURIComponent(m[1]), key: decodeURIComponent(m[2] ?? '') };
}

export function createS3Handler(options: S3Options): SandboxHandler {
  return (req, ctx) => {
    if (!['GET', 'HEAD', 'PUT', 'DELETE'].includes(req.method)) return null;
    const scope = signingScope(req);
    const where = locate(req, options.buckets);
    if (where === null) return null;
    const served = Object.hasOwn(options.buckets, where.bucket);
    // Only S3's requests: a served bucket's path, or any path signed for the s3 service (unknown bucket: 404).
    if (!served && scope?.service !== 's3') return null;
    const objectOperations: Record<string, string> = { HEAD: 'HeadObject', PUT: 'PutObject', DELETE: 'DeleteObject', GET: 'GetObject' };
    if (where.key === '' && req.method !== 'GET' && req.method !== 'HEAD') return null;
    const operation =
      where.key === ''
        ? req.url.searchParams.get('list-type') === '2'
          ? 'ListObjectsV2'
          : 'ListObjects'
        : (objectOperations[req.method] ?? 'GetObject');
    ctx.requestLog.push({ at: ctx.clock.now(), operation: `s3:${operation}`, ...(scope !== null ? { region: scope.region } : {}) });
    const resource = `/${where.bucket}${where.key === '' ? '' : `/${where.key}`}`;
    try {
      if (scope !== null && crossPartition(ctx, scope) !== null)
        throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', {
          AWSAccessKeyId: scope.accessKeyId,
        });
      const rule = ctx.faults.find((f) => f.remaining > 0 && f.match === operation);
      if (rule) {
        rule.remaining -= 1;
        throw faultError(rule);
      }
      if (!served) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: where.bucket });
      const folder = options.buckets[where.bucket];
      if (operation === 'ListObjects')
        throw new S3Error(501, 'NotImplemented', 'The sandbox serves ListObjectsV2 (list-type=2) only', { Header: 'list-type' });
      if (operation === 'ListObjectsV2') return listObjectsV2(where.bucket, folder, req.url.searchParams);
      if (operation === 'PutObject') return putObject(req, folder, where.key);
      if (operation === 'DeleteObject') return deleteObject(folder, where.key);
      return getObject(req, folder, where.key);
    } catch (err) {
      if (err instanceof S3Error) return s3ErrorResponse(req.method, err, resource);
      throw err;
    }
  };
}
