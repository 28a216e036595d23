/**
 * Where `export` writes in S3, in the Hive layout Athena and Glue read as partitions:
 * `s3://BUCKET/PREFIX/table=TABLE/cluster=CLUSTER/day=YYYY-MM-DD/part-0.parquet`. One object per table, cluster and
 * day, so re-exporting a day replaces exactly that day's objects.
 */

export interface S3Destination {
  bucket: string;
  /** Without leading or trailing slash; '' = the bucket's root. */
  prefix: string;
}

/** EKS cluster names: 1-100 characters, letters, digits, hyphens and underscores, starting with a letter or digit. */
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
/** S3 bucket names as S3 allows them (lower case, digits, dots, hyphens; 3-63). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function parseS3Destination(url: string): S3Destination {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!m || !BUCKET.test(m[1])) throw new Error(`--to must be s3://BUCKET/PREFIX, not ${url}`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..')) throw new Error(`--to must not have . or .. in its prefix: ${url}`);
  return { bucket: m[1], prefix };
}

export function checkClusterName(name: string): string {
  if (!CLUSTER_NAME.test(name)) throw new Error(`cluster name "${name}" is not an EKS cluster name (letters, digits, - and _)`);
  return name;
}

export const destinationUrl = (d: S3Destination): string => `s3://${d.bucket}${d.prefix === '' ? '' : `/${d.prefix}`}`;

/** The object key of one table's day. */
export function partitionKey(d: S3Destination, table: string, cluster: string, day: string): string {
  const path = `table=${table}/cluster=${cluster}/day=${day}/part-0.parquet`;
  return d.prefix === '' ? path : `${d.prefix}/${path}`;
}

/** The folder Athena's table for `table` points at (its LOCATION). */
export const tableLocation = (d: S3Destination, table: string): string => `${destinationUrl(d)}/table=${table}/`;
