import { describe, expect, it } from 'vitest';
import { mapOnDemandPrices, parsePriceListItem } from './map.js';

const SKU = 'ABCDEFGHJKLMNPQR';

/**
 * A real-shaped GetProducts entry, as the JSON string the API sends: OnDemand terms and, beside them, Reserved
 * terms (whose hourly price must not be taken for the on-demand one).
 */
function productDoc(o: { type?: string | null; region?: string; onDemandUsd?: string | null; reservedUsd?: string | null } = {}): string {
  const type = o.type === undefined ? 'm5.large' : o.type;
  const attributes: Record<string, string> = {
    servicecode: 'AmazonEC2',
    location: 'US East (N. Virginia)',
    locationType: 'AWS Region',
    regionCode: o.region ?? 'us-east-1',
    vcpu: '2',
    memory: '8 GiB',
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'Used',
    marketoption: 'OnDemand',
    usagetype: `BoxUsage:${type}`,
    operation: 'RunInstances',
  };
  if (type !== null) attributes.instanceType = type;
  const terms: Record<string, unknown> = {};
  const reservedUsd = o.reservedUsd === undefined ? '0.0600000000' : o.reservedUsd;
  if (reservedUsd !== null) {
    terms.Reserved = {
      [`${SKU}.4NA7Y494T4`]: {
        priceDimensions: {
          [`${SKU}.4NA7Y494T4.6YS6EN2CT7`]: {
            unit: 'Hrs',
            endRange: 'Inf',
            description: `Linux/UNIX (Amazon VPC), ${type} reserved instance applied`,
            appliesTo: [],
            rateCode: `${SKU}.4NA7Y494T4.6YS6EN2CT7`,
            beginRange: '0',
            pricePerUnit: { USD: reservedUsd },
          },
        },
        sku: SKU,
        effectiveDate: '2026-10-01T00:00:00Z',
        offerTermCode: '4NA7Y494T4',
        termAttributes: { LeaseContractLength: '1yr', OfferingClass: 'standard', PurchaseOption: 'No Upfront' },
      },
    };
  }
  const onDemandUsd = o.onDemandUsd === undefined ? '0.0960000000' : o.onDemandUsd;
  if (onDemandUsd !== null) {
    terms.OnDemand = {
      [`${SKU}.JRTCKXETXF`]: {
        priceDimensions: {
          [`${SKU}.JRTCKXETXF.6YS6EN2CT7`]: {
            unit: 'Hrs',
            endRange: 'Inf',
            description: `$${Number(onDemandUsd)} per On Demand Linux ${type} Instance Hour`,
            appliesTo: [],
            rateCode: `${SKU}.JRTCKXETXF.6YS6EN2CT7`,
            beginRange: '0',
            pricePerUnit: { USD: onDemandUsd },
          },
        },
        sku: SKU,
        effectiveDate: '2026-10-01T00:00:00Z',
        offerTermCode: 'JRTCKXETXF',
        termAttributes: {},
      },
    };
  }
  return JSON.stringify({
    product: { productFamily: 'Compute Instance', attributes, sku: SKU },
    serviceCode: 'AmazonEC2',
    terms,
    version: '20261001000000',
    publicationDate: '2026-10-01T00:00:00Z',
  });
}

describe('parsePriceListItem', () => {
  it('reads the OnDemand hourly price and ignores the Reserved term beside it', () => {
    expect(parsePriceListItem(productDoc())).toEqual({ sku: SKU, instanceType: 'm5.large', regionCode: 'us-east-1', pricePerHour: 0.096 });
  });

  it('accepts the boxed String the SDK hands over', () => {
    expect(parsePriceListItem(Object(productDoc()))?.pricePerHour).toBe(0.096);
  });

  // aws/karpenter-provider-aws@v1.14.1 pkg/fake/pricingapi.go:50 NewOnDemandPriceWithCurrency: the items Karpenter's
  // own tests price with, an instance type and an OnDemand pricePerUnit, no regionCode and no unit.
  const karpenterFake = (type: string, price: string, currency: string): string =>
    JSON.stringify({
      product: { attributes: { instanceType: type } },
      terms: {
        OnDemand: {
          'JRTCKXETXF.foo': {
            offerTermCode: 'JRTCKXETXF',
            priceDimensions: { 'JRTCKXETXF.foo.bar': { pricePerUnit: { [currency]: price } } },
          },
        },
      },
    });

  it.each([
    [
      'Karpenter fake, USD (pkg/controllers/providers/pricing/suite_test.go:120)',
      karpenterFake('c98.large', '1.200000', 'USD'),
      'USD',
      1.2,
    ],
    [
      'Karpenter fake, CNY (pkg/controllers/providers/pricing/suite_test.go:181)',
      karpenterFake('c99.large', '1.230000', 'CNY'),
      'CNY',
      1.23,
    ],
    ['a unit spelled Hours', productDoc().replaceAll('"unit":"Hrs"', '"unit":"Hours"'), 'USD', 0.096],
  ] as const)('prices an item without regionCode or "Hrs": %s', (_name, item, currency, price) => {
    expect(parsePriceListItem(item, currency)?.pricePerHour).toBe(price);
  });

  it('reads the partition currency only: a CNY item has no USD price, and the reverse', () => {
    expect(parsePriceListItem(karpenterFake('c99.large', '1.23', 'CNY'), 'USD')).toBeNull();
    expect(parsePriceListItem(productDoc(), 'CNY')).toBeNull();
  });

  it('skips an OnDemand dimension in another unit than hours (a fee, not an hourly price)', () => {
    expect(parsePriceListItem(productDoc().replaceAll('"unit":"Hrs"', '"unit":"Quantity"'))).toBeNull();
  });

  it.each([
    ['only Reserved terms', { onDemandUsd: null }],
    ['a zero price (allocated capacity reservation)', { onDemandUsd: '0.0000000000' }],
    ['no instance type', { type: null }],
  ])('skips a product with %s', (_name, o) => {
    expect(parsePriceListItem(productDoc(o))).toBeNull();
  });
});

describe('mapOnDemandPrices', () => {
  it('keeps an item without regionCode (the query chose the region) but not one naming another region', () => {
    const noRegion = productDoc({ type: 'c5.large', onDemandUsd: '0.0850000000' }).replace('"regionCode":"us-east-1",', '');
    const rows = mapOnDemandPrices([noRegion, productDoc({ type: 'r5.large', region: 'eu-west-1' })], {
      region: 'us-east-1',
      currency: 'USD',
      effectiveAt: 7,
    });
    expect(rows.map((r) => [r.instanceType, r.pricePerHour])).toEqual([['c5.large', 0.085]]);
  });

  it('gives one on-demand row per type of the region, first product winning', () => {
    const list = [
      productDoc(),
      productDoc({ type: 'c5.xlarge', onDemandUsd: '0.1700000000', reservedUsd: null }),
      productDoc({ region: 'us-west-2', onDemandUsd: '0.5' }),
      productDoc({ onDemandUsd: '9.9' }),
    ];
    expect(mapOnDemandPrices(list, { region: 'us-east-1', currency: 'USD', effectiveAt: 7 })).toEqual([
      {
        kind: 'on-demand',
        region: 'us-east-1',
        instanceType: 'm5.large',
        zone: '',
        effectiveAt: 7,
        pricePerHour: 0.096,
        currency: 'USD',
        source: 'pricing-api',
      },
      {
        kind: 'on-demand',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: '',
        effectiveAt: 7,
        pricePerHour: 0.17,
        currency: 'USD',
        source: 'pricing-api',
      },
    ]);
  });
});
