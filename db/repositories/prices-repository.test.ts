import { describe, expect, it } from 'vitest';
import { openDb } from '../open-db.js';
import { PriceBook } from './price-book.js';
import { createPricesRepository, type PriceRow } from './prices-repository.js';
import { HOUR_MS } from '../../core/time.js';
const spot = (zone: string, at: number, usdPerHour: number): PriceRow => ({
  kind: 'spot',
  region: 'us-east-1',
  instanceType: 'c5.xlarge',
  zone,
  effectiveAt: at,
  usdPerHour,
  source: 'spot-history',
});
const onDemand = (instanceType: string, at: number, usdPerHour: number): PriceRow => ({
  kind: 'on-demand',
  region: 'us-east-1',
  instanceType,
  zone: '',
  effectiveAt: at,
  usdPerHour,
  source: 'pricing-api',
});

function seeded() {
  const db = openDb({ path: ':memory:' });
  const repo = createPricesRepository(db);
  repo.insertPrices([
    spot('us-east-1b', 0, 0.07),
    spot('us-east-1b', 4.5 * HOUR_MS, 0.08),
    spot('us-east-1b', 9 * HOUR_MS, 0.065),
    onDemand('c5.xlarge', 0, 0.17),
    onDemand('c5.xlarge', 100 * HOUR_MS, 0.18),
  ]);
  return { db, repo };
}

describe('prices repository', () => {
  it.each([
    [0, 0.07],
    [4.5 * HOUR_MS - 1, 0.07],
    [4.5 * HOUR_MS, 0.08],
    [8 * HOUR_MS, 0.08],
    [9 * HOUR_MS, 0.065],
    [1000 * HOUR_MS, 0.065],
  ])('spot price in effect at %d ms is %d (latest change at or before t)', (t, usd) => {
    expect(seeded().repo.spotPriceAt('us-east-1', 'c5.xlarge', 'us-east-1b', t)?.usdPerHour).toBe(usd);
  });

  it('stores only changes with insertChangedPrices', () => {
    const { repo } = seeded();
    expect(repo.insertChangedPrices([onDemand('c5.xlarge', 200 * HOUR_MS, 0.18), onDemand('m5.large', 200 * HOUR_MS, 0.096)])).toBe(1);
    expect(
      repo
        .allPrices('us-east-1')
        .filter((r) => r.kind === 'on-demand')
        .map((r) => [r.instanceType, r.effectiveAt]),
    ).toEqual([
      ['c5.xlarge', 0],
      ['c5.xlarge', 100 * HOUR_MS],
      ['m5.large', 200 * HOUR_MS],
    ]);
    expect(repo.latestSpotChange('us-east-1')).toBe(9 * HOUR_MS);
  });
});

describe('PriceBook (built once from the table, binary search, fallbacks)', () => {
  const { db } = seeded();
  const book = PriceBook.fromDb(
    db,
    'us-east-1',
    new Map([
      ['m5.large', 0.096],
      ['c5.xlarge', 0.5],
    ]),
  );

  it.each([
    [
      'spot in its market',
      { capacityType: 'spot', instanceType: 'c5.xlarge', zone: 'us-east-1b' },
      5 * HOUR_MS,
      { usdPerHour: 0.08, source: 'spot-history' },
    ],
    [
      'spot before the history starts: its earliest point',
      { capacityType: 'spot', instanceType: 'c5.xlarge', zone: 'us-east-1b' },
      -HOUR_MS,
      { usdPerHour: 0.07, source: 'spot-history' },
    ],
    [
      'spot in an unknown market: on-demand',
      { capacityType: 'spot', instanceType: 'c5.xlarge', zone: 'us-east-1c' },
      5 * HOUR_MS,
      { usdPerHour: 0.17, source: 'pricing-api' },
    ],
    [
      'on-demand from the Pricing API, by time',
      { capacityType: 'on-demand', instanceType: 'c5.xlarge', zone: 'us-east-1a' },
      150 * HOUR_MS,
      { usdPerHour: 0.18, source: 'pricing-api' },
    ],
    [
      'on-demand missing from the API: static table',
      { capacityType: 'on-demand', instanceType: 'm5.large', zone: 'us-east-1a' },
      0,
      { usdPerHour: 0.096, source: 'static-table' },
    ],
    [
      'a capacity reservation at the on-demand rate',
      { capacityType: 'reserved', instanceType: 'c5.xlarge', zone: 'us-east-1a' },
      0,
      { usdPerHour: 0.17, source: 'pricing-api' },
    ],
  ] as const)('%s', (_name, node, at, quote) => {
    expect(book.price(node, at)).toEqual(quote);
  });

  it('says null when nothing knows the type', () => {
    expect(book.onDemand('x9.huge')).toBeNull();
  });
});
