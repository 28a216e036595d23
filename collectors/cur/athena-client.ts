import { AthenaClient } from '@aws-sdk/client-athena';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/** The Athena client, in the region of the workgroup and the Glue catalog (AWS_ENDPOINT_URL_ATHENA is honoured by the SDK). */
export function createAthenaClient(config: AwsClientConfig = {}, env: NodeJS.ProcessEnv = process.env): AthenaClient {
  return new AthenaClient(sdkClientOptions(config, env.AWS_REGION ?? 'us-east-1', env));
}
