import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/**
 * The Cost Explorer client. The service has one endpoint per partition, which the SDK resolves from the region:
 * ce.us-east-1.amazonaws.com for any commercial region, ce.cn-northwest-1.amazonaws.com.cn for China (see
 * core/partitions.ts for which region a cluster's bill is read in); us-east-1 by default.
 */
export function createCostExplorerClient(config: AwsClientConfig = {}): CostExplorerClient {
  return new CostExplorerClient(sdkClientOptions(config, 'us-east-1'));
}
