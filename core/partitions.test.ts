import { describe, expect, it } from 'vitest';
import { isRegionName, partitionOf, RegionError, regionFacts, regionOfZone } from './partitions.js';
import { staticTableFor } from './static-prices.js';

/**
 * Karpenter's rules, aws/karpenter-provider-aws@v1.14.1 pkg/providers/pricing/pricing.go: the Pricing endpoint
 * (lines 116-126: us-east-1, ap-south-1 for ap-*, cn-northwest-1 for cn-*, eu-central-1 for eu-*), no Pricing call in
 * us-gov-* (line 200), CNY in cn-* (line 363), the region's static table else us-east-1's (line 457; in aws-cn we
 * fall back to cn-north-1's instead, so a CNY region is never priced in USD). Cost Explorer: the SDK's endpoint rules
 * (ce.us-east-1 for the commercial partition, ce.cn-northwest-1.amazonaws.com.cn for China) and the GovCloud User
 * Guide (a GovCloud account's bill is only in its associated standard account).
 */
describe.each([
  // region, partition, currency, Pricing endpoint, Cost Explorer region, bill in another account, static tables tried, table used
  ['us-east-1', 'aws', 'USD', 'us-east-1', 'us-east-1', false, ['us-east-1'], 'us-east-1'],
  ['us-west-2', 'aws', 'USD', 'us-east-1', 'us-east-1', false, ['us-west-2', 'us-east-1'], 'us-east-1'],
  ['ca-central-1', 'aws', 'USD', 'us-east-1', 'us-east-1', false, ['ca-central-1', 'us-east-1'], 'us-east-1'],
  ['eu-west-1', 'aws', 'USD', 'eu-central-1', 'us-east-1', false, ['eu-west-1', 'us-east-1'], 'us-east-1'],
  ['ap-southeast-2', 'aws', 'USD', 'ap-south-1', 'us-east-1', false, ['ap-southeast-2', 'us-east-1'], 'us-east-1'],
  ['cn-north-1', 'aws-cn', 'CNY', 'cn-northwest-1', 'cn-northwest-1', false, ['cn-north-1'], 'cn-north-1'],
  ['cn-northwest-1', 'aws-cn', 'CNY', 'cn-northwest-1', 'cn-northwest-1', false, ['cn-northwest-1', 'cn-north-1'], 'cn-north-1'],
  ['us-gov-west-1', 'aws-us-gov', 'USD', null, 'us-east-1', true, ['us-gov-west-1'], 'us-gov-west-1'],
  ['us-gov-east-1', 'aws-us-gov', 'USD', null, 'us-east-1', true, ['us-gov-east-1', 'us-gov-west-1'], 'us-gov-east-1'],
  ['us-iso-east-1', 'aws-iso', 'USD', null, 'us-iso-east-1', false, ['us-iso-east-1', 'us-east-1'], 'us-east-1'],
  ['us-isob-east-1', 'aws-iso-b', 'USD', null, 'us-isob-east-1', false, ['us-isob-east-1', 'us-east-1'], 'us-east-1'],
] as const)('%s', (region, partition, currency, pricing, ceRegion, otherAccount, tables, used) => {
  const facts = regionFacts(region);
  it(`is in ${partition}, priced in ${currency}`, () => {
    expect(facts.partition).toBe(partition);
    expect(facts.currency).toBe(currency);
  });
  it(`asks the Pricing API at ${pricing ?? 'no endpoint'}`, () => {
    expect(facts.pricing.region).toBe(pricing);
    if (facts.pricing.region === null) expect(facts.pricing.why).toMatch(/static table/);
  });
  it(`reads the bill at ${ceRegion}${otherAccount ? ' in the associated standard account' : ''}`, () => {
    expect(facts.costExplorer.region).toBe(ceRegion);
    expect(facts.costExplorer.otherAccount).toBe(otherAccount);
  });
  it(`falls back to the static table of ${used}, in ${currency}`, () => {
    expect(facts.staticTableRegions).toEqual(tables);
    const table = staticTableFor(region);
    expect(table?.region).toBe(used);
    expect(table?.currency).toBe(currency);
  });
});

describe('the one zone -> region rule (issue 21 item 5: two helpers disagreed on Local Zones)', () => {
  // Zone names from the AWS docs: availability zones, a Local Zone (Los Angeles), a Wavelength Zone (Boston), GovCloud
  // and China.
  it.each([
    ['us-east-1a', 'us-east-1'],
    ['us-west-2-lax-1a', 'us-west-2'],
    ['us-east-1-wl1-bos-wlz-1', 'us-east-1'],
    ['us-gov-west-1a', 'us-gov-west-1'],
    ['cn-north-1b', 'cn-north-1'],
  ])('%s is in %s', (zone, region) => {
    expect(regionOfZone(zone)).toBe(region);
  });
});

describe('region names', () => {
  it.each(['us-east-1', 'ap-southeast-2', 'us-gov-west-1', 'us-isob-east-1', 'eu-isoe-west-1', 'me-central-1'])('%s is one', (r) =>
    expect(isRegionName(r)).toBe(true),
  );
  it.each(['', 'us-east', 'US-EAST-1', 'us-east-1a', 'useast1', 'us east 1'])('"%s" is not, and says so', (r) => {
    expect(isRegionName(r)).toBe(false);
    expect(() => partitionOf(r)).toThrow(RegionError);
    expect(() => partitionOf(r)).toThrow(`"${r}" is not an AWS region name`);
  });
});

describe("Karpenter's static tables (data/on-demand-prices.csv)", () => {
  // Values from aws/karpenter-provider-aws zz_generated.pricing_aws.go / _aws_cn.go / _aws_us_gov.go.
  it.each([
    ['us-east-1', 'm5.large', 0.096, 'USD'],
    ['cn-north-1', 'c3.2xlarge', 4.217, 'CNY'],
  ] as const)('%s %s costs %d %s an hour', (region, type, price, currency) => {
    const table = staticTableFor(region);
    expect(table?.prices.get(type)).toBe(price);
    expect(table?.currency).toBe(currency);
  });
});
