import { EC2Client } from '@aws-sdk/client-ec2';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/** The EC2 client, in the cluster's region (spot prices are per region and zone). */
export function createEc2Client(config: AwsClientConfig & { region: string }): EC2Client {
  return new EC2Client(sdkClientOptions(config, config.region));
}
