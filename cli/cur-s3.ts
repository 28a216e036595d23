import { join, dirname } from 'node:path';
import type { CurImportProgress, CurImportResult } from '../collectors/cur/import-folder.js';
import { createS3Client } from '../collectors/cur/s3-client.js';
import { importCurFromS3 } from '../collectors/cur/s3-import.js';
import type { Db } from '../db/open-db.js';
import { ProgressBar } from './progress.js';

/** `cur import s3://…`: its flag, its help, and the download before the folder import. */

export const CUR_S3_OPTIONS = {
  cache: { type: 'string' },
} as const;

export const CUR_S3_HELP = `From S3: cur import s3://bucket/prefix/export-name [--cache DIR]
The export's files under that address are listed (ListObjectsV2) and those new or changed since the last run (by
ETag and size) downloaded into a local mirror, --cache/<bucket>/<prefix> (default: cur-cache/ beside the database),
which is then imported as a folder, under the source s3://bucket/prefix; files S3 no longer lists are removed from
the mirror. Credentials: the standard chain; the region $AWS_REGION (else us-east-1); AWS_ENDPOINT_URL_S3 points the
client at another S3 (path-style when it is on loopback). It needs s3:ListBucket and s3:GetObject.`;

type Values = Record<string, string | boolean | undefined>;

export async function importCurFromS3Command(
  db: Db,
  url: string,
  o: { v: Values; dbPath: string; sinceMs: number | undefined; onProgress: (p: CurImportProgress) => void; signal?: AbortSignal },
): Promise<CurImportResult> {
  const cacheRoot = typeof o.v.cache === 'string' ? o.v.cache : join(dirname(o.dbPath), 'cur-cache');
  const client = createS3Client();
  try {
    let bar: ProgressBar | null = null;
    const result = await importCurFromS3(db, client, url, {
      cacheRoot,
      ...(o.sinceMs !== undefined ? { sinceMs: o.sinceMs } : {}),
      onDownload: (p) => {
        if (o.v.quiet === true || p.totalBytes === 0) return;
        bar ??= new ProgressBar('download (bytes)', p.totalBytes);
        bar.update(p.doneBytes, `${p.doneFiles}/${p.files} files`);
      },
      onProgress: o.onProgress,
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
    });
    const s = result.sync;
    console.log(
      `${url}: ${s.objects} export files, ${s.downloaded} downloaded (${(s.downloadedBytes / 1e6).toFixed(1)} MB), ${s.unchanged} unchanged, ${s.removed} removed from ${s.folder}`,
    );
    return result.imported;
  } finally {
    client.destroy();
  }
}
