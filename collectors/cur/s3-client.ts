import { S3Client } from '@aws-sdk/client-s3';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/** Host names that are this machine: an S3 endpoint there (the sandbox, MinIO, LocalStack) is addressed path-style. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

/**
 * The endpoint the SDK will use for S3: the config's, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL (the SDK reads
 * the same variables itself; this only looks at them to choose the addressing style).
 */
export function s3EndpointOverride(config: AwsClientConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return config.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
}

/**
 * Whether to address buckets path-style (`http://host/bucket/key`). The SDK already does for an IP-address endpoint,
 * but for `localhost` it would send `bucket.localhost`, which does not resolve everywhere; a loopback endpoint is
 * therefore always path-style. Real S3 keeps the SDK's default (virtual-hosted).
 */
export function forcePathStyleFor(endpoint: string | undefined): boolean {
  if (endpoint === undefined) return false;
  try {
    return LOOPBACK.test(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}

/** The S3 client, with the standard credential chain; `region` is where the bucket lives (the SDK follows a redirect otherwise). */
export function createS3Client(config: AwsClientConfig = {}, env: NodeJS.ProcessEnv = process.env): S3Client {
  const options = sdkClientOptions(config, env.AWS_REGION ?? 'us-east-1', env);
  return new S3Client({ ...options, forcePathStyle: forcePathStyleFor(s3EndpointOverride(config, env)) });
}
