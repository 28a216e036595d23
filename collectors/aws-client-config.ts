/**
 * What every AWS collector client is built from. `endpoint` is optional: the SDK already honours
 * AWS_ENDPOINT_URL_<SERVICE> / AWS_ENDPOINT_URL; credentials come from the default chain (env in the sandbox).
 */
export interface AwsClientConfig {
  region?: string;
  endpoint?: string;
  /** SDK attempts per call (throttling and 5xx are retried with backoff); SDK default 3. */
  maxAttempts?: number;
}

/** SDK client options from the config; unset fields are left out so the SDK's own defaults and env apply. */
export function sdkClientOptions(config: AwsClientConfig, defaultRegion: string): { region: string; endpoint?: string; maxAttempts?: number } {
  return {
    region: config.region ?? defaultRegion,
    ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
    ...(config.maxAttempts !== undefined ? { maxAttempts: config.maxAttempts } : {}),
  };
}
