import type { RIProductDescription, SpotPrice } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { mapSpotPrices } from './map.js';

// DescribeSpotPriceHistory items as the SDK hands them over (Timestamp parsed to Date, price a string).
const item = (zone: string, at: string, price: string | undefined, description: string = 'Linux/UNIX'): SpotPrice => ({
  AvailabilityZone: zone,
  InstanceType: 'c5.xlarge',
  // The SDK types the field by a closed list that lacks some names EC2 returns ("Red Hat Enterprise Linux").
  ProductDescription: description as RIProductDescription,
  SpotPrice: price,
  Timestamp: new Date(at),
});

describe('mapSpotPrices', () => {
  it('gives one spot row per type, zone and change time, sorted, with both Linux descriptions collapsed', () => {
    const rows = mapSpotPrices(
      [
        item('us-east-1b', '2026-11-03T09:00:00.000Z', '0.065000'),
        item('us-east-1b', '2026-11-03T04:30:00.000Z', '0.080000'),
        item('us-east-1b', '2026-11-03T04:30:00.000Z', '0.080000', 'Linux/UNIX (Amazon VPC)'),
        item('us-east-1a', '2026-11-01T00:00:00.000Z', '0.071000'),
      ],
      'us-east-1',
    );
    expect(rows).toEqual([
      {
        kind: 'spot',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: 'us-east-1a',
        effectiveAt: Date.UTC(2026, 10, 1),
        pricePerHour: 0.071,
        currency: 'USD',
        source: 'spot-history',
      },
      {
        kind: 'spot',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: 'us-east-1b',
        effectiveAt: Date.UTC(2026, 10, 3, 4, 30),
        pricePerHour: 0.08,
        currency: 'USD',
        source: 'spot-history',
      },
      {
        kind: 'spot',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: 'us-east-1b',
        effectiveAt: Date.UTC(2026, 10, 3, 9),
        pricePerHour: 0.065,
        currency: 'USD',
        source: 'spot-history',
      },
    ]);
  });

  // Rows EC2 returns for other products (aws/aws-cli@3096efeb awscli/examples/ec2/describe-spot-price-history.rst: SUSE
  // Linux rows; boto/boto@426cc036 tests/unit/ec2/test_connection.py: a Windows (Amazon VPC) row) never price a Linux node,
  // even when they are the only or the newest row of the market.
  it('keeps only the Linux descriptions: SUSE, Red Hat and Windows rows are dropped and never win', () => {
    const rows = mapSpotPrices(
      [
        item('us-east-1b', '2026-11-03T05:00:00.000Z', '0.104000', 'Windows (Amazon VPC)'),
        item('us-east-1b', '2026-11-03T04:30:00.000Z', '0.080000'),
        item('us-east-1b', '2026-11-03T04:30:00.000Z', '0.087000', 'SUSE Linux'),
        item('us-east-1c', '2026-11-03T04:30:00.000Z', '0.091000', 'Red Hat Enterprise Linux'),
        item('us-east-1c', '2026-11-03T04:40:00.000Z', '0.060000', 'Linux/UNIX (Amazon VPC)'),
      ],
      'us-east-1',
    );
    expect(rows.map((r) => [r.zone, r.effectiveAt, r.pricePerHour])).toEqual([
      ['us-east-1b', Date.UTC(2026, 10, 3, 4, 30), 0.08],
      ['us-east-1c', Date.UTC(2026, 10, 3, 4, 40), 0.06],
    ]);
  });

  it('carries the currency it is given (CNY in China)', () => {
    expect(mapSpotPrices([item('cn-north-1a', '2026-11-01T00:00:00.000Z', '0.300000')], 'cn-north-1', 'CNY')[0]).toMatchObject({
      currency: 'CNY',
      pricePerHour: 0.3,
    });
  });

  it.each([
    ['no product description', { ...item('us-east-1a', '2026-11-01T00:00:00.000Z', '0.07'), ProductDescription: undefined }],
    ['no price', item('us-east-1a', '2026-11-01T00:00:00.000Z', undefined)],
    ['an unreadable price', item('us-east-1a', '2026-11-01T00:00:00.000Z', 'n/a')],
    ['no zone', { InstanceType: 'c5.xlarge', SpotPrice: '0.07', Timestamp: new Date(0) } satisfies SpotPrice],
  ])('skips an item with %s', (_name, bad) => {
    expect(mapSpotPrices([bad], 'us-east-1')).toEqual([]);
  });
});
