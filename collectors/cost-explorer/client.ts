import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/** The Cost Explorer client; the service has one endpoint, in us-east-1, whatever the cluster's region. */
export function createCostExplorerClient(config: AwsClientConfig = {}): CostExplorerClient {
  return new CostExplorerClient(sdkClientOptions(config, 'us-east-1'));
}
