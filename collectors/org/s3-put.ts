import { createHash } from 'node:crypto';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * Writes one object with PutObject, the bytes' MD5 sent as Content-MD5 so S3 refuses a body damaged on the way; S3
 * replaces an object of the same key whole (readers see the old or the new one, never part of either). Returns the
 * ETag S3 answered (the quoted MD5 of a single-part object).
 */
export async function putObject(client: S3Client, bucket: string, key: string, body: Buffer): Promise<string | null> {
  const out = await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentType: 'application/vnd.apache.parquet',
      ContentMD5: createHash('md5').update(body).digest('base64'),
    }),
  );
  return out.ETag ?? null;
}
