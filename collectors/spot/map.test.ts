import type { RIProductDescription, SpotPrice } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { mapSpotPrices } from './map.js';

// DescribeSpotPriceHistory items as the SDK hands them over (Timestamp parsed to Date, price a string).
const item = (zone: string, at: string, price: string | undefined, description: RIProductDescription = 'Linux/UNIX'): SpotPrice => ({
  AvailabilityZone: zone,
  InstanceType: 'c5.xlarge',
  ProductDescription: description,
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
        usdPerHour: 0.071,
        source: 'spot-history',
      },
      {
        kind: 'spot',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: 'us-east-1b',
        effectiveAt: Date.UTC(2026, 10, 3, 4, 30),
        usdPerHour: 0.08,
        source: 'spot-history',
      },
      {
        kind: 'spot',
        region: 'us-east-1',
        instanceType: 'c5.xlarge',
        zone: 'us-east-1b',
        effectiveAt: Date.UTC(2026, 10, 3, 9),
        usdPerHour: 0.065,
        source: 'spot-history',
      },
    ]);
  });

  it.each([
    ['no price', item('us-east-1a', '2026-11-01T00:00:00.000Z', undefined)],
    ['an unreadable price', item('us-east-1a', '2026-11-01T00:00:00.000Z', 'n/a')],
    ['no zone', { InstanceType: 'c5.xlarge', SpotPrice: '0.07', Timestamp: new Date(0) } satisfies SpotPrice],
  ])('skips an item with %s', (_name, bad) => {
    expect(mapSpotPrices([bad], 'us-east-1')).toEqual([]);
  });
});
