import { PricingClient } from '@aws-sdk/client-pricing';
import { type AwsClientConfig, sdkClientOptions } from '../aws-client-config.js';

/**
 * The Pricing API has endpoints in a few regions only; Karpenter asks ap-south-1 for ap-* clusters,
 * eu-central-1 for eu-* and us-east-1 for the rest. The price list itself is filtered by `regionCode`.
 */
export function pricingEndpointRegion(clusterRegion: string): string {
  if (clusterRegion.startsWith('ap-')) return 'ap-south-1';
  if (clusterRegion.startsWith('eu-')) return 'eu-central-1';
  return 'us-east-1';
}

/** `config.region` is the endpoint's region (see pricingEndpointRegion), us-east-1 by default. */
export function createPricingClient(config: AwsClientConfig = {}): PricingClient {
  return new PricingClient(sdkClientOptions(config, 'us-east-1'));
}
