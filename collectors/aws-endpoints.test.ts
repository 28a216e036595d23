import { CostExplorerClient, ListCostAllocationTagsCommand } from '@aws-sdk/client-cost-explorer';
import { DescribeSpotPriceHistoryCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { regionFacts } from '../core/partitions.js';
import { createCostExplorerClient } from './cost-explorer/client.js';
import { createPricingClient } from './pricing/client.js';
import { createEc2Client } from './spot/client.js';

// A unit test: its files share one process, so the environment it sets is put back afterwards. No endpoint
// override may reach the clients: the SDK's own resolution is what is under test.
beforeAll(() => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDSANDBOX');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'sandbox-secret');
  vi.stubEnv('AWS_PROFILE', undefined);
  for (const key of ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_COST_EXPLORER', 'AWS_ENDPOINT_URL_PRICING', 'AWS_ENDPOINT_URL_EC2'])
    vi.stubEnv(key, undefined);
});
afterAll(() => vi.unstubAllEnvs());

/**
 * The endpoints the real SDK resolves for the clients collect creates in each partition (no AWS_ENDPOINT_URL_*):
 * the host it would connect to and the region it signs for, read from the signed request just before it would be
 * sent. Cost Explorer's China endpoint is ce.cn-northwest-1.amazonaws.com.cn (the China Cost Management docs), the
 * Price List's api.pricing.cn-northwest-1.amazonaws.com.cn.
 */
type Client = CostExplorerClient | PricingClient | EC2Client;
const STOP = new Error('resolved');
const PLACE = { step: 'finalizeRequest', priority: 'low', name: 'captureEndpoint' } as const;

/** A last middleware that notes host and signing region of the signed request, then stops it before the network. */
const capture =
  (note: (seen: string) => void) =>
  () =>
  async (args: { request: unknown }): Promise<never> => {
    const request = args.request as { hostname?: string; headers?: Record<string, string> };
    const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(request.headers?.authorization ?? '')?.[1];
    note(`${request.hostname ?? '?'} ${scope ?? '?'}`);
    throw STOP;
  };

async function resolved(client: Client, send: () => Promise<unknown>): Promise<string> {
  let seen = '';
  const note = (s: string): void => {
    seen = s;
  };
  // One branch per client class: each stack is typed by its own service's inputs and outputs.
  if (client instanceof CostExplorerClient) client.middlewareStack.add(capture(note), PLACE);
  else if (client instanceof PricingClient) client.middlewareStack.add(capture(note), PLACE);
  else client.middlewareStack.add(capture(note), PLACE);
  await expect(send()).rejects.toBe(STOP);
  client.destroy();
  return seen;
}

describe.each([
  // cluster region, Cost Explorer, Pricing (or none), EC2
  [
    'us-east-1',
    'ce.us-east-1.amazonaws.com us-east-1',
    'api.pricing.us-east-1.amazonaws.com us-east-1',
    'ec2.us-east-1.amazonaws.com us-east-1',
  ],
  [
    'eu-west-1',
    'ce.us-east-1.amazonaws.com us-east-1',
    'api.pricing.eu-central-1.amazonaws.com eu-central-1',
    'ec2.eu-west-1.amazonaws.com eu-west-1',
  ],
  [
    'ap-southeast-2',
    'ce.us-east-1.amazonaws.com us-east-1',
    'api.pricing.ap-south-1.amazonaws.com ap-south-1',
    'ec2.ap-southeast-2.amazonaws.com ap-southeast-2',
  ],
  [
    'cn-north-1',
    'ce.cn-northwest-1.amazonaws.com.cn cn-northwest-1',
    'api.pricing.cn-northwest-1.amazonaws.com.cn cn-northwest-1',
    'ec2.cn-north-1.amazonaws.com.cn cn-north-1',
  ],
  // GovCloud: the bill in the standard account's commercial Cost Explorer; no Pricing endpoint asked.
  ['us-gov-west-1', 'ce.us-east-1.amazonaws.com us-east-1', null, 'ec2.us-gov-west-1.amazonaws.com us-gov-west-1'],
  ['us-iso-east-1', 'ce.us-iso-east-1.c2s.ic.gov us-iso-east-1', null, 'ec2.us-iso-east-1.c2s.ic.gov us-iso-east-1'],
] as const)('a cluster in %s', (region, ce, pricing, ec2) => {
  const facts = regionFacts(region);
  it(`reads the bill at ${ce}`, async () => {
    const client = createCostExplorerClient({ region: facts.costExplorer.region });
    expect(await resolved(client, () => client.send(new ListCostAllocationTagsCommand({})))).toBe(ce);
  });
  it(`asks prices at ${pricing ?? 'no endpoint'}`, async () => {
    if (facts.pricing.region === null) {
      expect(pricing).toBeNull();
      return;
    }
    const client = createPricingClient({ region: facts.pricing.region });
    expect(await resolved(client, () => client.send(new GetProductsCommand({ ServiceCode: 'AmazonEC2' })))).toBe(pricing);
  });
  it(`asks spot history at ${ec2}`, async () => {
    const client = createEc2Client({ region });
    expect(await resolved(client, () => client.send(new DescribeSpotPriceHistoryCommand({})))).toBe(ec2);
  });
});
