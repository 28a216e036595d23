import type { S3Client } from '@aws-sdk/client-s3';
import type { Db } from '../../db/open-db.js';
import { type CurImportProgress, type CurImportResult, importCurFolder } from './import-folder.js';
import { cacheFolderFor, parseS3Url, type SyncProgress, type SyncResult, syncS3Export } from './s3-source.js';

/**
 * `cur import s3://bucket/prefix`: the export mirrored into the local cache (only changed objects downloaded), then
 * imported as a folder under the source `s3://bucket/prefix`, each file fingerprinted by its S3 ETag (no second
 * read to hash it), so a re-run with nothing new in S3 downloads nothing and changes nothing.
 */

export interface S3ImportOptions {
  /** Where mirrors live: `<cacheRoot>/<bucket>/<prefix>`. */
  cacheRoot: string;
  sinceMs?: number;
  now?: number;
  onDownload?: (p: SyncProgress) => void;
  onProgress?: (p: CurImportProgress) => void;
  /** Stops the import between two chunks of rows (importCurFolder's). */
  signal?: AbortSignal;
}

export interface S3ImportResult {
  source: string;
  sync: SyncResult;
  imported: CurImportResult;
}

export async function importCurFromS3(db: Db, client: S3Client, url: string, options: S3ImportOptions): Promise<S3ImportResult> {
  const location = parseS3Url(url);
  const source = `s3://${location.bucket}/${location.prefix.replace(/\/+$/, '')}`;
  const sync = await syncS3Export(client, location, cacheFolderFor(options.cacheRoot, location), options.onDownload);
  const imported = await importCurFolder(db, sync.folder, {
    source,
    etagOf: (file) => sync.etags.get(file.path),
    ...(options.sinceMs !== undefined ? { sinceMs: options.sinceMs } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  return { source, sync, imported };
}
