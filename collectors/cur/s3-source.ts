import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, paginateListObjectsV2, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';

/**
 * The S3 side of `cur import s3://bucket/prefix`: mirror the export's data files and manifests into a local cache
 * folder (the same layout, so the folder import reads it as it reads an export copied by hand), downloading only
 * objects whose ETag or size changed since the last run, and dropping local copies of objects S3 no longer has (AWS
 * re-states a period by replacing its files). A download goes to a temporary name and is renamed when complete, so
 * an interrupted run never leaves a truncated file that looks finished.
 */

export interface S3Location {
  bucket: string;
  /** Key prefix without a leading '/', '' for the whole bucket. */
  prefix: string;
}

/** A bad s3:// address, or an S3 answer that stops the import; the message names the bucket, key or address. */
export class S3SourceError extends Error {}

/** `s3://bucket/prefix` -> its parts; anything else is an S3SourceError naming it. */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  // Bucket names: 3-63 characters of lower-case letters, digits, dots and hyphens (S3's naming rules).
  if (!m || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(m[1]))
    throw new S3SourceError(
      `"${url}" is not an S3 address: expected s3://bucket/prefix (a bucket name of 3-63 lower-case letters, digits, '.' or '-')`,
    );
  return { bucket: m[1], prefix: (m[2] ?? '').replace(/^\/+/, '') };
}

/** The objects a CUR import needs: data files (Parquet, gzip CSV) and the manifests. */
export const isExportObject = (key: string): boolean =>
  /\/data\/BILLING_PERIOD=\d{4}-\d{2}\//.test(`/${key}`)
    ? /\.(parquet|csv\.gz)$/.test(key)
    : /\/metadata\/BILLING_PERIOD=\d{4}-\d{2}\/[^/]*Manifest\.json$/.test(`/${key}`);

export interface S3ObjectEntry {
  key: string;
  etag: string;
  sizeBytes: number;
}

export interface SyncProgress {
  /** Bytes to download this run (changed objects only) and done so far. */
  totalBytes: number;
  doneBytes: number;
  files: number;
  doneFiles: number;
}

export interface SyncResult {
  /** The local folder mirroring s3://bucket/prefix. */
  folder: string;
  objects: number;
  downloaded: number;
  downloadedBytes: number;
  unchanged: number;
  removed: number;
  listRequests: number;
  /** Absolute local path -> the S3 ETag of the object it mirrors (the folder import's file fingerprint). */
  etags: Map<string, string>;
}

/** What the cache holds: key -> the ETag and size it was downloaded at (a hidden file beside the mirror). */
const STATE_FILE = '.s3-objects.json';

function readState(folder: string): Record<string, { etag: string; sizeBytes: number }> {
  try {
    const value: unknown = JSON.parse(readFileSync(join(folder, STATE_FILE), 'utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, { etag: string; sizeBytes: number }>) : {};
  } catch {
    return {};
  }
}

function describeS3Error(err: unknown, what: string): Error {
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode;
    const hint =
      err.name === 'NoSuchBucket'
        ? 'the bucket does not exist (or is in another partition)'
        : err.name === 'AccessDenied' || status === 403
          ? 'access denied: the credentials need s3:ListBucket on the bucket and s3:GetObject on the prefix'
          : err.message;
    return new S3SourceError(`${what}: ${err.name}${status !== undefined ? ` (HTTP ${status})` : ''}: ${hint}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Every export object under the prefix, through ListObjectsV2's continuation tokens. */
export async function listExportObjects(client: S3Client, location: S3Location): Promise<{ objects: S3ObjectEntry[]; requests: number }> {
  const objects: S3ObjectEntry[] = [];
  let requests = 0;
  try {
    for await (const page of paginateListObjectsV2({ client }, { Bucket: location.bucket, Prefix: location.prefix })) {
      requests += 1;
      for (const o of page.Contents ?? []) {
        if (o.Key === undefined || !isExportObject(o.Key.slice(location.prefix.length))) continue;
        objects.push({ key: o.Key, etag: o.ETag ?? '', sizeBytes: o.Size ?? 0 });
      }
    }
  } catch (err) {
    throw describeS3Error(err, `listing s3://${location.bucket}/${location.prefix}`);
  }
  return { objects, requests };
}

/** The local path of a key under the mirror; a key that would leave it ('..') is refused. */
function localPath(folder: string, prefix: string, key: string): string {
  const rest = key.slice(prefix.length).replace(/^\/+/, '');
  const path = resolve(folder, ...rest.split('/'));
  if (!path.startsWith(resolve(folder) + sep)) throw new S3SourceError(`S3 key "${key}" does not fit under the cache folder`);
  return path;
}

async function download(
  client: S3Client,
  bucket: string,
  object: S3ObjectEntry,
  path: string,
  onBytes: (n: number) => void,
): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  try {
    // IfMatch: a file replaced between the listing and this read fails (412) rather than mixing two versions.
    const out = await client.send(
      new GetObjectCommand({ Bucket: bucket, Key: object.key, ...(object.etag ? { IfMatch: object.etag } : {}) }),
    );
    if (!(out.Body instanceof Readable)) throw new S3SourceError(`s3://${bucket}/${object.key}: the response has no readable body`);
    const body = out.Body;
    body.on('data', (chunk: Buffer) => onBytes(chunk.length));
    await pipeline(body, createWriteStream(partial));
    const written = statSync(partial).size;
    if (written !== object.sizeBytes)
      throw new S3SourceError(`s3://${bucket}/${object.key}: downloaded ${written} bytes, the listing said ${object.sizeBytes}`);
    renameSync(partial, path);
  } catch (err) {
    rmSync(partial, { force: true });
    throw describeS3Error(err, `downloading s3://${bucket}/${object.key}`);
  }
}

/** Local files of the mirror (not the state file, not partial downloads), as absolute paths. */
function localFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name !== STATE_FILE) out.push(path);
    }
  };
  if (existsSync(folder)) walk(folder);
  return out;
}

/**
 * Brings `folder` up to date with the export objects under s3://bucket/prefix: downloads new and changed objects
 * (by ETag and size), removes local files S3 no longer lists, and records what it holds.
 */
export async function syncS3Export(
  client: S3Client,
  location: S3Location,
  folder: string,
  onProgress: (p: SyncProgress) => void = () => {},
): Promise<SyncResult> {
  const { objects, requests } = await listExportObjects(client, location);
  if (objects.length === 0)
    throw new S3SourceError(
      `s3://${location.bucket}/${location.prefix}: no CUR 2.0 export files under this prefix (expected …/data/BILLING_PERIOD=YYYY-MM/*.parquet or *.csv.gz)`,
    );
  mkdirSync(folder, { recursive: true });
  const state = readState(folder);
  const wanted = new Map(objects.map((o) => [localPath(folder, location.prefix, o.key), o]));
  const changed = objects.filter((o) => {
    const had = state[o.key] as { etag: string; sizeBytes: number } | undefined;
    const path = localPath(folder, location.prefix, o.key);
    return (
      had === undefined || had.etag !== o.etag || had.sizeBytes !== o.sizeBytes || !existsSync(path) || statSync(path).size !== o.sizeBytes
    );
  });
  let removed = 0;
  for (const path of localFiles(folder)) {
    if (wanted.has(path)) continue;
    rmSync(path, { force: true });
    removed += 1;
  }
  const progress: SyncProgress = {
    totalBytes: changed.reduce((s, o) => s + o.sizeBytes, 0),
    doneBytes: 0,
    files: changed.length,
    doneFiles: 0,
  };
  onProgress(progress);
  const next: Record<string, { etag: string; sizeBytes: number }> = {};
  for (const o of objects) if (!changed.includes(o)) next[o.key] = { etag: o.etag, sizeBytes: o.sizeBytes };
  try {
    for (const o of changed) {
      await download(client, location.bucket, o, localPath(folder, location.prefix, o.key), (n) => {
        progress.doneBytes += n;
        onProgress(progress);
      });
      progress.doneFiles += 1;
      next[o.key] = { etag: o.etag, sizeBytes: o.sizeBytes };
      onProgress(progress);
    }
  } finally {
    // What did arrive is recorded even when a later download fails: the next run fetches only the rest.
    writeFileSync(join(folder, STATE_FILE), JSON.stringify(next, null, 1));
  }
  return {
    folder,
    objects: objects.length,
    downloaded: changed.length,
    downloadedBytes: progress.doneBytes,
    unchanged: objects.length - changed.length,
    removed,
    listRequests: requests,
    etags: new Map(objects.map((o) => [localPath(folder, location.prefix, o.key), o.etag])),
  };
}

/** Where the mirror of an S3 export lives: `<cacheRoot>/<bucket>/<prefix>`. */
export function cacheFolderFor(cacheRoot: string, location: S3Location): string {
  const rest = location.prefix.split('/').filter((p) => p !== '' && p !== '.' && p !== '..');
  // Absolute: the import names files by absolute path, and the ETags are looked up by it.
  return resolve(cacheRoot, location.bucket, ...rest);
}
