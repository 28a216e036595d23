import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { staticTableFor } from '../../core/static-prices.js';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { PriceBook } from './price-book.js';
import { createPricesRepository, type PriceRow } from './prices-repository.js';
import { HOUR_MS } from '../../core/time.js';
const spot = (zone: string, at: number, pricePerHour: number): PriceRow => ({
  kind: 'spot',
  region: 'us-east-1',
  instanceType: 'c5.xlarge',
  zone,
  effectiveAt: at,
  pricePerHour,
  currency: 'USD',
  source: 'spot-history',
});
const onDemand = (instanceType: string, at: number, pricePerHour: number): PriceRow => ({
  kind: 'on-demand',
  region: 'us-east-1',
  instanceType,
  zone: '',
  effectiveAt: at,
  pricePerHour,
  currency: 'USD',
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
    expect(seeded().repo.spotPriceAt('us-east-1', 'c5.xlarge', 'us-east-1b', t)?.pricePerHour).toBe(usd);
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
  const book = PriceBook.fromDb(db, 'us-east-1', {
    region: 'us-east-1',
    currency: 'USD',
    prices: new Map([
      ['m5.large', 0.096],
      ['c5.xlarge', 0.5],
    ]),
  });

  it.each([
    [
      'spot in its market',
      { capacityType: 'spot', instanceType: 'c5.xlarge', zone: 'us-east-1b' },
      5 * HOUR_MS,
      { pricePerHour: 0.08, currency: 'USD', source: 'spot-history' },
    ],
    [
      'spot before the history starts: its earliest point',
      { capacityType: 'spot', instanceType: 'c5.xlarge', zone: 'us-east-1b' },
      -HOUR_MS,
      { pricePerHour: 0.07, currency: 'USD', source: 'spot-history' },
    ],
    [
      'spot in an unknown market: on-demand',
      { capacityType: 'spot', instanceType: 'c5.xlarge', zone: 'us-east-1c' },
      5 * HOUR_MS,
      { pricePerHour: 0.17, currency: 'USD', source: 'pricing-api' },
    ],
    [
      'on-demand from the Pricing API, by time',
      { capacityType: 'on-demand', instanceType: 'c5.xlarge', zone: 'us-east-1a' },
      150 * HOUR_MS,
      { pricePerHour: 0.18, currency: 'USD', source: 'pricing-api' },
    ],
    [
      'on-demand missing from the API: static table',
      { capacityType: 'on-demand', instanceType: 'm5.large', zone: 'us-east-1a' },
      0,
      { pricePerHour: 0.096, currency: 'USD', source: 'static-table (us-east-1)' },
    ],
    [
      'a capacity reservation at the on-demand rate',
      { capacityType: 'reserved', instanceType: 'c5.xlarge', zone: 'us-east-1a' },
      0,
      { pricePerHour: 0.17, currency: 'USD', source: 'pricing-api' },
    ],
  ] as const)('%s', (_name, node, at, quote) => {
    expect(book.price(node, at)).toEqual(quote);
  });

  it('says null when nothing knows the type', () => {
    expect(book.onDemand('x9.huge')).toBeNull();
  });
});

describe('currencies (migration 0012)', () => {
  it('reads rows written before the currency column as USD', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 12),
    );
    db.prepare(
      `INSERT INTO prices (kind, region, instance_type, zone, effective_at, usd_per_hour, source) VALUES ('on-demand', 'us-east-1', 'm5.large', '', 0, 0.096, 'static-table')`,
    ).run();
    db.prepare(`INSERT INTO snapshots (taken_at, node_count, pod_count) VALUES (0, 0, 0)`).run();
    migrate(db, all);
    const repo = createPricesRepository(db);
    expect(repo.onDemandPrice('us-east-1', 'm5.large')).toMatchObject({ pricePerHour: 0.096, currency: 'USD', source: 'static-table' });
    expect(repo.storedCurrencies()).toEqual(['USD']);
  });

  it('keeps CNY rows CNY, and a price that only changed currency is a change', () => {
    const db = openDb({ path: ':memory:' });
    const repo = createPricesRepository(db);
    const cny: PriceRow = { ...onDemand('c5.large', 0, 0.81), region: 'cn-north-1', currency: 'CNY' };
    repo.insertChangedPrices([cny]);
    expect(repo.insertChangedPrices([{ ...cny, effectiveAt: HOUR_MS }])).toBe(0);
    expect(repo.insertChangedPrices([{ ...cny, effectiveAt: 2 * HOUR_MS, currency: 'USD' }])).toBe(1);
    expect(repo.onDemandPrice('cn-north-1', 'c5.large', HOUR_MS)).toMatchObject({ pricePerHour: 0.81, currency: 'CNY' });
  });
});

describe('PriceBook fallback tables name themselves', () => {
  it.each([
    // eu-west-1 has no table of its own: us-east-1's, as Karpenter (pricing.go:457).
    ['eu-west-1', 'm5.large', { pricePerHour: 0.096, currency: 'USD', source: 'static-table (us-east-1)' }],
    // cn-northwest-1 has none either: China's own table, never a USD one.
    ['cn-northwest-1', 'c3.2xlarge', { pricePerHour: 4.217, currency: 'CNY', source: 'static-table (cn-north-1)' }],
    ['us-gov-west-1', 'm5.large', { currency: 'USD', source: 'static-table (us-gov-west-1)' }],
  ] as const)('%s %s', (region, type, quote) => {
    const book = PriceBook.fromDb(openDb({ path: ':memory:' }), region, staticTableFor(region));
    expect(book.price({ capacityType: 'on-demand', instanceType: type, zone: `${region}a` }, 0)).toMatchObject(quote);
  });
});
