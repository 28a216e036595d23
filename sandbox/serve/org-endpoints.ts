import { join } from 'node:path';

/**
 * Where the sandbox keeps the organisation's export (`nodepool-ledger export --to s3://ledger-sandbox-org/ledger`): a
 * bucket folder beside the CUR's, served over the same S3 adapter, and one Athena table per exported table in the
 * database `ledger_org` (the names of deploy/athena/), each over its `table=NAME/cluster=…/day=…/` Parquet files with
 * `cluster` and `day` as partition columns, as the Glue tables with partition projection read them.
 */

export const ORG_BUCKET = 'ledger-sandbox-org';
export const ORG_PREFIX = 'ledger';
export const ORG_ATHENA_DATABASE = 'ledger_org';
export const ORG_ATHENA_WORKGROUP = 'primary';
export const ORG_TABLES = ['nodepool_hour', 'namespace_hour', 'node_day', 'disruptions', 'rightsizing'] as const;

export interface SandboxOrgLocation {
  /** The local folder served as the bucket. */
  bucketDir: string;
  /** What `export --to` takes. */
  s3Url: string;
  /** What `serve --org` takes. */
  athenaUrl: string;
  /** Where Athena writes the org queries' results. */
  outputLocation: string;
}

/** `s3Dir` is the folder whose sub-folders the sandbox serves as buckets. */
export function sandboxOrgLocation(s3Dir: string): SandboxOrgLocation {
  return {
    bucketDir: join(s3Dir, ORG_BUCKET),
    s3Url: `s3://${ORG_BUCKET}/${ORG_PREFIX}`,
    athenaUrl: `athena://${ORG_ATHENA_WORKGROUP}/${ORG_ATHENA_DATABASE}`,
    outputLocation: `s3://${ORG_BUCKET}/athena-results/`,
  };
}

/** Athena's `database.table` -> the glob of its Parquet files (Hive folders table=/cluster=/day=). */
export function orgAthenaTables(location: SandboxOrgLocation): Record<string, string> {
  return Object.fromEntries(
    ORG_TABLES.map((t) => [`${ORG_ATHENA_DATABASE}.${t}`, join(location.bucketDir, ORG_PREFIX, `table=${t}`, '*', '*', '*.parquet')]),
  );
}
