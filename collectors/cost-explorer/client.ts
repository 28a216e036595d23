import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';
import { assumeRoleCredentials } from '../aws/assume-role.js';

/**
 * The Cost Explorer client. The service has one endpoint per partition, which the SDK resolves from the region:
 * ce.us-east-1.amazonaws.com for any commercial region, ce.cn-northwest-1.amazonaws.com.cn for China (see
 * core/partitions.ts for which region a cluster's bill is read in); us-east-1 by default. Given a role, it reads as
 * the role (AssumeRole in the same region, the source credentials `profile`'s or the default chain's), its STS
 * client closed with it.
 */
export function createCostExplorerClient(config: AwsClientConfig = {}): CostExplorerClient {
  const options = sdkClientOptions(config, 'us-east-1');
  if (config.roleArn === undefined) return new CostExplorerClient(options);
  const { profile, ...rest } = options;
  const credentials = assumeRoleCredentials({
    roleArn: config.roleArn,
    region: rest.region,
    ...(profile !== undefined ? { profile } : {}),
  });
  const client = new CostExplorerClient({ ...rest, credentials });
  const destroy = client.destroy.bind(client);
  client.destroy = () => {
    credentials.destroy();
    destroy();
  };
  return client;
}
