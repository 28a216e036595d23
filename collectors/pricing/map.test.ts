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
    expect(parsePriceListItem(productDoc())).toEqual({ sku: SKU, instanceType: 'm5.large', regionCode: 'us-east-1', usdPerHour: 0.096 });
  });

  it('accepts the boxed String the SDK hands over', () => {
    expect(parsePriceListItem(Object(productDoc()))?.usdPerHour).toBe(0.096);
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
  it('gives one on-demand row per type of the region, first product winning', () => {
    const list = [
      productDoc(),
      productDoc({ type: 'c5.xlarge', onDemandUsd: '0.1700000000', reservedUsd: null }),
      productDoc({ region: 'us-west-2', onDemandUsd: '0.5' }),
      productDoc({ onDemandUsd: '9.9' }),
    ];
    expect(mapOnDemandPrices(list, { region: 'us-east-1', effectiveAt: 7 })).toEqual([
      {
        kind: 'on-demand',
        region: 'us-east-1',
        instanceType: 'm5.large',
        zone: '',
        effectiveAt: 7,
        usdPerHour: 0.096,
        source: 'pricing-api',
      },
      {
        kind: 'on-demand',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: '',
        effectiveAt: 7,
        usdPerHour: 0.17,
        source: 'pricing-api',
      },
    ]);
  });
});
