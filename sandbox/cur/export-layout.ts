import { createHash } from 'node:crypto';
import { CUR_COLUMNS, type CurColumnType } from '../../core/cur/columns.js';
import type { CurFileFormat } from '../../db/repositories/cur-repository.js';

/**
 * Where AWS Data Exports puts a CUR 2.0 export and what its manifest says
 * (https://docs.aws.amazon.com/cur/latest/userguide/dataexports-export-delivery.html and dataexports-manifest.html):
 *   <prefix>/<export-name>/data/BILLING_PERIOD=YYYY-MM/<export-name>-00001.snappy.parquet   (or -00001.csv.gz)
 *   <prefix>/<export-name>/metadata/BILLING_PERIOD=YYYY-MM/<export-name>-Manifest.json
 * with the "overwrite" delivery (one set of files per period, replaced on each refresh). The manifest's fields:
 * executionId, exportArn, columns ({name, type}), dataFiles (full s3:// URIs), additionalOutputFiles. Pure.
 */

export interface ExportNaming {
  /** The S3 bucket the manifest's URIs name (the sandbox's S3 endpoint serves the folder as this bucket). */
  bucket: string;
  /** The export's S3 prefix ('' for none). */
  prefix: string;
  exportName: string;
}

export interface CurManifest {
  executionId: string;
  exportArn: string;
  columns: { name: string; type: string }[];
  dataFiles: string[];
  additionalOutputFiles: { fileType: string; s3Uri: string }[];
}

const EXPORT_NAME = /^[0-9A-Za-z!\-_.*'()]{1,128}$/;
const PREFIX = /^[0-9A-Za-z!\-_.*'()/]*$/;
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Throws naming the field when a name is not one Data Exports accepts (so a path cannot climb out of the folder). */
export function checkNaming(n: ExportNaming): void {
  if (!EXPORT_NAME.test(n.exportName)) throw new Error(`export name ${JSON.stringify(n.exportName)}: 1-128 of A-Z a-z 0-9 ! - _ . * ' ( )`);
  if (!PREFIX.test(n.prefix) || n.prefix.split('/').some((p) => p === '.' || p === '..'))
    throw new Error(`S3 prefix ${JSON.stringify(n.prefix)}: letters, digits, ! - _ . * ' ( ) and /, no . or .. parts`);
  if (!BUCKET.test(n.bucket)) throw new Error(`bucket ${JSON.stringify(n.bucket)} is not an S3 bucket name`);
}

const trimSlashes = (s: string): string => s.replace(/^\/+|\/+$/g, '');

/** The export's folder under the root: `<prefix>/<export-name>` ('/'-separated). */
export const exportKey = (n: ExportNaming): string => [trimSlashes(n.prefix), n.exportName].filter((p) => p !== '').join('/');

export const dataFileName = (exportName: string, format: CurFileFormat): string =>
  `${exportName}-00001.${format === 'parquet' ? 'snappy.parquet' : 'csv.gz'}`;

/** Keys ('/'-separated, relative to the bucket root) of a period's data file and manifest. */
export function periodKeys(n: ExportNaming, billingPeriod: string, format: CurFileFormat): { dataKey: string; manifestKey: string } {
  const root = exportKey(n);
  const partition = `BILLING_PERIOD=${billingPeriod}`;
  return {
    dataKey: `${root}/data/${partition}/${dataFileName(n.exportName, format)}`,
    manifestKey: `${root}/metadata/${partition}/${n.exportName}-Manifest.json`,
  };
}

/** The documented type names, as the manifest lists them. */
const MANIFEST_TYPES: Readonly<Record<CurColumnType, string>> = {
  string: 'string',
  double: 'double',
  timestamp: 'timestamp',
  map: 'map<string,string>',
};

/** A UUID-shaped id, stable for the same inputs (the sandbox's exports are reproducible). */
function stableUuid(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function manifestOf(n: ExportNaming, accountId: string, billingPeriod: string, format: CurFileFormat, runKey: string): CurManifest {
  const { dataKey } = periodKeys(n, billingPeriod, format);
  return {
    executionId: stableUuid(`${exportKey(n)}|${billingPeriod}|${format}|${runKey}`),
    exportArn: `arn:aws:bcm-data-exports:us-east-1:${accountId}:export/${n.exportName}-${stableUuid(`${accountId}|${n.exportName}`)}`,
    columns: Object.entries(CUR_COLUMNS).map(([name, type]) => ({ name, type: MANIFEST_TYPES[type] })),
    dataFiles: [`s3://${n.bucket}/${dataKey}`],
    additionalOutputFiles: [],
  };
}
