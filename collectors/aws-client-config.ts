/**
 * What every AWS collector client is built from. `endpoint` is optional: the SDK already honours
 * AWS_ENDPOINT_URL_<SERVICE> / AWS_ENDPOINT_URL; credentials come from the default chain (env, AWS_PROFILE, SSO,
 * web identity, instance or pod role).
 */
export interface AwsClientConfig {
  region?: string;
  endpoint?: string;
  /** SDK attempts per call (throttling and 5xx are retried with backoff); default DEFAULT_MAX_ATTEMPTS or $AWS_MAX_ATTEMPTS. */
  maxAttempts?: number;
  /** 'standard' (exponential backoff with jitter) or 'adaptive' (also rate-limits the client after throttling). */
  retryMode?: 'standard' | 'adaptive';
  /** A named profile of the shared config/credentials files for this client only (instead of the default chain). */
  profile?: string;
  /**
   * An IAM role of the account to read (a clusters file entry's `roleArn`): the client signs with the credentials of
   * STS AssumeRole of it (collectors/aws/assume-role.ts), the source credentials being `profile`'s, else the default
   * chain.
   */
  roleArn?: string;
}

/**
 * Cost Explorer and Pricing throttle at a few requests per second and a long pull makes hundreds of calls, so a
 * call gets more attempts than the SDK's default 3 before a run gives up (and stores nothing half-done).
 */
export const DEFAULT_MAX_ATTEMPTS = 6;

export interface SdkClientOptions {
  region: string;
  endpoint?: string;
  profile?: string;
  maxAttempts?: number;
  retryMode?: string;
}

/**
 * SDK client options from the config. Attempts and retry mode left unset in the config fall back to our default
 * only when the user did not set AWS_MAX_ATTEMPTS / AWS_RETRY_MODE, which the SDK then reads itself.
 */
export function sdkClientOptions(config: AwsClientConfig, defaultRegion: string, env: NodeJS.ProcessEnv = process.env): SdkClientOptions {
  const maxAttempts = config.maxAttempts ?? (env.AWS_MAX_ATTEMPTS ? undefined : DEFAULT_MAX_ATTEMPTS);
  const retryMode = config.retryMode ?? (env.AWS_RETRY_MODE ? undefined : 'standard');
  return {
    region: config.region ?? defaultRegion,
    ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
    ...(config.profile !== undefined ? { profile: config.profile } : {}),
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
    ...(retryMode !== undefined ? { retryMode } : {}),
  };
}
