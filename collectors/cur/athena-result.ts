import { GetObjectCommand, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { csvRecordBatches, CsvFormatError } from './csv-records.js';

/**
 * A succeeded Athena query's result object, `<OutputLocation>/<QueryExecutionId>.csv`, read from S3 as a stream: the
 * records reach `onRecords` a batch at a time while the body is still arriving, so a result of millions of rows is
 * never held whole (GetQueryResults would page it 1000 rows a request). Values are the CSV's text (null for an empty
 * unquoted field); the caller types them. Needs s3:GetObject on the output location (and kms:Decrypt when the
 * workgroup encrypts its results with a KMS key).
 */

export class AthenaResultError extends Error {}

/** s3://bucket/key as its parts; null when it is not one. */
export function parseS3Location(location: string): { bucket: string; key: string } | null {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(location);
  return m === null ? null : { bucket: m[1], key: m[2] };
}

export async function readAthenaResultCsv(
  s3: S3Client,
  location: string,
  onRecords: (records: Record<string, string | null>[]) => void,
  options: { signal?: AbortSignal; batchSize?: number } = {},
): Promise<number> {
  const at = parseS3Location(location);
  if (at === null) throw new AthenaResultError(`Athena's output location "${location}" is not an s3://bucket/key address`);
  let body: AsyncIterable<Uint8Array>;
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: at.key }), { abortSignal: options.signal });
    if (object.Body === undefined) throw new AthenaResultError(`${location}: S3 returned no body`);
    body = object.Body as AsyncIterable<Uint8Array>;
  } catch (err) {
    if (err instanceof S3ServiceException)
      throw new AthenaResultError(
        `reading Athena's result ${location}: ${err.name}: ${err.message}` +
          (err.name === 'AccessDenied' ? ' (it needs s3:GetObject on the output location)' : ''),
      );
    throw err;
  }
  try {
    return await csvRecordBatches(body, onRecords, options.batchSize);
  } catch (err) {
    if (err instanceof CsvFormatError) throw new AthenaResultError(`${location}: not the CSV Athena writes (${err.message})`);
    throw err;
  }
}
