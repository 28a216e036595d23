import { PricingClient } from '@aws-sdk/client-pricing';
import { regionFacts } from '../../core/partitions.js';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/**
 * The Pricing API has endpoints in a few regions only; as Karpenter does, a cluster's prices are asked at
 * ap-south-1 for ap-*, eu-central-1 for eu-*, cn-northwest-1 for cn-* (the aws-cn partition's endpoint,
 * api.pricing.cn-northwest-1.amazonaws.com.cn) and us-east-1 for the rest; GovCloud and the isolated partitions
 * have none (null: no call is made, Karpenter's static table prices them). The price list itself is filtered
 * by `regionCode`.
 */
export function pricingEndpointRegion(clusterRegion: string): string | null {
  return regionFacts(clusterRegion).pricing.region;
}

/** `config.region` is the endpoint's region (see pricingEndpointRegion), us-east-1 by default. */
export function createPricingClient(config: AwsClientConfig = {}): PricingClient {
  return new PricingClient(sdkClientOptions(config, 'us-east-1'));
}
