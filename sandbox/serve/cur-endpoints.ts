import { dirname, join } from 'node:path';
import { createAthenaHandler } from './athena.js';
import type { SandboxHandler } from './context.js';
import { ORG_BUCKET, orgAthenaTables, sandboxOrgLocation } from './org-endpoints.js';
import { createS3Handler } from './s3.js';

/**
 * Where the sandbox keeps and serves its Cost and Usage Report: a bucket folder under the sandbox's data folder,
 * holding one Data Export (`s3://<bucket>/<prefix>/<export>/data/BILLING_PERIOD=YYYY-MM/…`), served over S3, and the
 * Athena table over its Parquet files named as the Cloud Intelligence Dashboards' Data Exports stack names it
 * (database cid_data_export, table cur2), with Athena's results written back to the same bucket.
 */

export const CUR_BUCKET = 'ledger-sandbox-cur';
export const CUR_PREFIX = 'cur';
export const CUR_EXPORT_NAME = 'ledger-cur2';
export const CUR_ATHENA_DATABASE = 'cid_data_export';
export const CUR_ATHENA_TABLE = 'cur2';
export const CUR_ATHENA_WORKGROUP = 'primary';

export interface SandboxCurLocation {
  /** The local folder served as the bucket. */
  bucketDir: string;
  /** The export's folder (the parent of data/ and metadata/): what the export writer writes into. */
  exportDir: string;
  /** What `cur import` takes. */
  s3Url: string;
  athena: { database: string; table: string; workGroup: string; outputLocation: string };
}

export function sandboxCurLocation(dataDir: string): SandboxCurLocation {
  const bucketDir = join(dataDir, 's3', CUR_BUCKET);
  return {
    bucketDir,
    exportDir: join(bucketDir, CUR_PREFIX, CUR_EXPORT_NAME),
    s3Url: `s3://${CUR_BUCKET}/${CUR_PREFIX}/${CUR_EXPORT_NAME}`,
    athena: {
      database: CUR_ATHENA_DATABASE,
      table: CUR_ATHENA_TABLE,
      workGroup: CUR_ATHENA_WORKGROUP,
      outputLocation: `s3://${CUR_BUCKET}/athena-results/`,
    },
  };
}

/**
 * The S3 and Athena adapters over a sandbox's CUR location (an export not written yet is an empty bucket), and over
 * the organisation's bucket beside it (sandbox/serve/org-endpoints.ts), which `export` writes and `serve --org` reads.
 */
export function curHandlers(location: SandboxCurLocation): SandboxHandler[] {
  const org = sandboxOrgLocation(dirname(location.bucketDir));
  const buckets = { [CUR_BUCKET]: location.bucketDir, [ORG_BUCKET]: org.bucketDir };
  return [
    createS3Handler({ buckets }),
    createAthenaHandler({
      tables: {
        [`${CUR_ATHENA_DATABASE}.${CUR_ATHENA_TABLE}`]: join(location.exportDir, 'data', '*', '*.parquet'),
        ...orgAthenaTables(org),
      },
      workGroups: [CUR_ATHENA_WORKGROUP],
      buckets,
    }),
  ];
}
