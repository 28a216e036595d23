import { join } from 'node:path';
import { createS3Client } from '../collectors/cur/s3-client.js';
import { importCurFromS3 } from '../collectors/cur/s3-import.js';
import type { Db } from '../db/open-db.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { formatCurImport } from './cur.js';
import { ProgressBar } from './progress.js';

/**
 * The demo's Cost and Usage Report: the sandbox's export fetched from its S3 endpoint (AWS_ENDPOINT_URL_S3, set with
 * the other sandbox endpoints) and imported as `cur import s3://…` does, so the dashboard shows amortized cost,
 * volumes and AWS's split from the CUR. Incremental: a demo started again downloads and imports nothing new.
 */
export async function importSandboxCur(db: Db, sandbox: RunningSandbox, dataDir: string): Promise<string[]> {
  const started = performance.now();
  const s3 = createS3Client();
  try {
    let download: ProgressBar | null = null;
    let read: ProgressBar | null = null;
    const result = await importCurFromS3(db, s3, sandbox.cur.s3Url, {
      cacheRoot: join(dataDir, 'cur-cache'),
      onDownload: (p) => {
        if (p.totalBytes === 0) return;
        download ??= new ProgressBar('CUR download (bytes)', p.totalBytes);
        download.update(p.doneBytes, `${p.doneFiles}/${p.files} files`);
      },
      onProgress: (p) => {
        read ??= new ProgressBar('CUR import', p.total);
        read.update(p.done, `${p.billingPeriod} ${p.phase}`);
      },
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    return [
      `CUR 2.0 from ${result.source}: ${result.sync.downloaded} of ${result.sync.objects} files downloaded (${(result.sync.downloadedBytes / 1e6).toFixed(1)} MB), imported in ${seconds} s`,
      ...formatCurImport(result.imported).map((line) => `  ${line}`),
    ];
  } finally {
    s3.destroy();
  }
}
