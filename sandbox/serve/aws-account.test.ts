import { CostExplorerClient, ListCostAllocationTagsCommand } from '@aws-sdk/client-cost-explorer';
import { DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { afterEach, describe, expect, it } from 'vitest';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import type { Scenario } from '../scenario/types.js';
import { costExplorerHandler } from './cost-explorer.js';
import { createEc2Handler } from './ec2.js';
import { pricingHandler } from './pricing.js';

useDummyAwsCredentials();

/**
 * The simulated account answers as AWS does where it matters to a collector: each service only at its endpoints,
 * credentials only in their partition (the SDK signs for the region of the endpoint it resolved, which the sandbox
 * reads from the request and logs).
 */

let served: ServedHandlers | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const inRegion = (region: string): Scenario => {
  const s = tinyScenario();
  const zone = (z: string): string => `${region}${z.slice(-1)}`;
  return {
    ...s,
    region,
    zones: s.zones.map(zone),
    nodes: s.nodes.map((n) => ({ ...n, zone: zone(n.zone) })),
    spotPrices: s.spotPrices.map((p) => ({ ...p, zone: zone(p.zone) })),
  };
};
async function account(region: string, credentialPartitions?: Record<string, 'aws' | 'aws-cn' | 'aws-us-gov'>) {
  const ctx = newContext(inRegion(region), TINY_END);
  if (credentialPartitions) ctx.credentialPartitions = credentialPartitions;
  served = await serveHandlers([pricingHandler, costExplorerHandler, createEc2Handler({ amazonVpcZones: [`${region}b`] })], ctx);
  return served;
}
const keys = (accessKeyId: string) => ({ accessKeyId, secretAccessKey: 'sandbox-secret' });
const errorOf = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: Error) => e.name,
  );

describe('Pricing answers at its endpoints, to credentials of their partition', () => {
  it.each([
    ['us-east-1', 'us-east-1', 'ok'],
    ['us-west-2', 'eu-central-1', 'ok'],
    ['us-west-2', 'eu-west-1', 'UnknownEndpoint'],
    ['cn-north-1', 'cn-northwest-1', 'ok'],
    // Karpenter before cn-northwest-1 was its endpoint for cn-*, and NodePool Ledger until now: China keys at us-east-1.
    ['cn-north-1', 'us-east-1', 'UnrecognizedClientException'],
    // GovCloud keys at the commercial endpoint: what made `collect` exit 1 on every run.
    ['us-gov-west-1', 'us-east-1', 'UnrecognizedClientException'],
    ['us-gov-west-1', 'us-gov-west-1', 'UnknownEndpoint'],
  ])('a %s account asking %s: %s', async (clusterRegion, endpointRegion, outcome) => {
    const s = await account(clusterRegion);
    const pricing = new PricingClient({ region: endpointRegion, endpoint: s.url, maxAttempts: 1 });
    expect(await errorOf(pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2', MaxResults: 1 })))).toBe(outcome);
    pricing.destroy();
    expect(s.ctx.requestLog).toEqual([expect.objectContaining({ operation: 'pricing:GetProducts', region: endpointRegion })]);
  });

  it('prices a China region in CNY (pricePerUnit.CNY)', async () => {
    const s = await account('cn-north-1');
    const pricing = new PricingClient({ region: 'cn-northwest-1', endpoint: s.url });
    const out = await pricing.send(
      new GetProductsCommand({
        ServiceCode: 'AmazonEC2',
        Filters: [
          { Type: 'TERM_MATCH', Field: 'instanceType', Value: 'm5.large' },
          { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
          { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Shared' },
          { Type: 'TERM_MATCH', Field: 'capacitystatus', Value: 'Used' },
          { Type: 'TERM_MATCH', Field: 'preInstalledSw', Value: 'NA' },
        ],
      }),
    );
    pricing.destroy();
    const doc = JSON.parse(String(out.PriceList?.[0])) as {
      terms: { OnDemand: Record<string, { priceDimensions: Record<string, { pricePerUnit: unknown }> }> };
    };
    const dims = Object.values(Object.values(doc.terms.OnDemand)[0].priceDimensions);
    // The scenario's own m5.large price, in the partition's currency.
    expect(dims[0].pricePerUnit).toEqual({ CNY: '0.0960000000' });
  });
});

describe('Cost Explorer answers at its partition endpoint; a GovCloud bill is in the standard account', () => {
  it.each([
    ['us-west-2', 'us-east-1', 'AKIDANY', 'ok'],
    ['cn-north-1', 'cn-northwest-1', 'AKIDANY', 'ok'],
    ['cn-north-1', 'us-east-1', 'AKIDANY', 'UnrecognizedClientException'],
    ['us-gov-west-1', 'us-gov-west-1', 'AKIDGOV', 'ValidationException'],
    ['us-gov-west-1', 'us-east-1', 'AKIDGOV', 'UnrecognizedClientException'],
    ['us-gov-west-1', 'us-east-1', 'AKIDSTANDARD', 'ok'],
  ])('a %s account asking %s with %s: %s', async (clusterRegion, endpointRegion, key, outcome) => {
    const s = await account(clusterRegion, { AKIDSTANDARD: 'aws' });
    const ce = new CostExplorerClient({ region: endpointRegion, endpoint: s.url, credentials: keys(key), maxAttempts: 1 });
    expect(await errorOf(ce.send(new ListCostAllocationTagsCommand({})))).toBe(outcome);
    ce.destroy();
  });
});

describe('EC2 answers in the scenario region, every product when none is asked for', () => {
  it('refuses another region and credentials of another partition', async () => {
    const s = await account('us-east-1', { AKIDCHINA: 'aws-cn' });
    const other = new EC2Client({ region: 'us-west-2', endpoint: s.url, maxAttempts: 1 });
    expect(await errorOf(other.send(new DescribeSpotPriceHistoryCommand({})))).toBe('InvalidRequest');
    const china = new EC2Client({ region: 'us-east-1', endpoint: s.url, credentials: keys('AKIDCHINA'), maxAttempts: 1 });
    expect(await errorOf(china.send(new DescribeSpotPriceHistoryCommand({})))).toBe('AuthFailure');
    other.destroy();
    china.destroy();
  });

  it('lists SUSE, Red Hat and Windows markets beside the Linux one, and the VPC-filed zone under its own name', async () => {
    const s = await account('us-east-1');
    const ec2 = new EC2Client({ region: 'us-east-1', endpoint: s.url });
    const all = await ec2.send(
      // c5.xlarge: the one market the tiny scenario's spot node priced (m5.large, admitted by its on-demand NodePool, is served too).
      new DescribeSpotPriceHistoryCommand({
        StartTime: new Date('2026-11-14T00:00:00Z'),
        AvailabilityZone: 'us-east-1b',
        InstanceTypes: ['c5.xlarge'],
      }),
    );
    const linuxOnly = await ec2.send(
      new DescribeSpotPriceHistoryCommand({
        StartTime: new Date('2026-11-14T00:00:00Z'),
        ProductDescriptions: ['Linux/UNIX'],
        AvailabilityZone: 'us-east-1b',
      }),
    );
    ec2.destroy();
    const rows = (all.SpotPriceHistory ?? []).map((r) => [r.ProductDescription, r.SpotPrice]);
    expect(rows).toEqual([
      ['Linux/UNIX (Amazon VPC)', '0.065000'],
      ['Red Hat Enterprise Linux', '0.097500'],
      ['SUSE Linux', '0.081250'],
      ['Windows', '0.117000'],
    ]);
    // Zone b's market is filed under the VPC name: asking for Linux/UNIX alone finds nothing there.
    expect(linuxOnly.SpotPriceHistory ?? []).toEqual([]);
    expect(all.NextToken).toBe('');
  });
});
