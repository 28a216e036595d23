import type { PriceSource } from '../../core/model.js';
import { CURRENCIES, type Currency } from '../../core/partitions.js';
import type { Db } from '../open-db.js';

/** All SQL for prices: on-demand (zone '') and spot (per zone) price history, per hour in the row's currency. */

export type PriceKind = 'on-demand' | 'spot';
export type { PriceSource };

export interface PriceRow {
  kind: PriceKind;
  region: string;
  instanceType: string;
  /** '' for on-demand. */
  zone: string;
  /** From when the price applies (epoch ms). */
  effectiveAt: number;
  pricePerHour: number;
  currency: Currency;
  source: PriceSource;
}

interface RawPrice {
  kind: PriceKind;
  region: string;
  instance_type: string;
  zone: string;
  effective_at: number;
  usd_per_hour: number;
  currency: string;
  source: PriceSource;
}

/** Rows written before migration 0012 have USD by default; anything unreadable is refused, not guessed. */
const currencyOf = (text: string): Currency => {
  const c = CURRENCIES.find((x) => x === text);
  if (c === undefined) throw new Error(`prices: unknown currency "${text}"`);
  return c;
};

const fromRaw = (r: RawPrice): PriceRow => ({
  kind: r.kind,
  region: r.region,
  instanceType: r.instance_type,
  zone: r.zone,
  effectiveAt: r.effective_at,
  pricePerHour: r.usd_per_hour,
  currency: currencyOf(r.currency),
  source: r.source,
});

const toParams = (r: PriceRow) => ({
  kind: r.kind,
  region: r.region,
  instanceType: r.instanceType,
  zone: r.zone,
  effectiveAt: r.effectiveAt,
  pricePerHour: r.pricePerHour,
  currency: r.currency,
  source: r.source,
});

export function createPricesRepository(db: Db) {
  const insert = db.prepare(`
    INSERT INTO prices (kind, region, instance_type, zone, effective_at, usd_per_hour, currency, source)
    VALUES (@kind, @region, @instanceType, @zone, @effectiveAt, @pricePerHour, @currency, @source)
    ON CONFLICT (kind, region, instance_type, zone, effective_at) DO UPDATE SET
      usd_per_hour = excluded.usd_per_hour, currency = excluded.currency, source = excluded.source`);
  const latestAtOrBefore = db.prepare(`
    SELECT * FROM prices
    WHERE kind = @kind AND region = @region AND instance_type = @instanceType AND zone = @zone AND effective_at <= @at
    ORDER BY effective_at DESC LIMIT 1`);
  const all = db.prepare(`
    SELECT * FROM prices WHERE region = @region ORDER BY kind, instance_type, zone, effective_at`);
  const latestSpotTime = db.prepare(`SELECT MAX(effective_at) FROM prices WHERE kind = 'spot' AND region = @region`).pluck();
  const storedCurrencies = db
    .prepare(
      `SELECT currency FROM prices UNION SELECT currency FROM snapshots UNION SELECT currency FROM cost_lines WHERE source = 'cost-explorer'`,
    )
    .pluck();

  const insertAll = db.transaction((rows: readonly PriceRow[]): number => {
    for (const r of rows) insert.run(toParams(r));
    return rows.length;
  });

  // A price that did not change is not a new row: history stays one row per change.
  const insertChanged = db.transaction((rows: readonly PriceRow[]): number => {
    let written = 0;
    for (const r of rows) {
      const current = latestAtOrBefore.get({ ...toParams(r), at: r.effectiveAt }) as RawPrice | undefined;
      if (current && current.usd_per_hour === r.pricePerHour && current.currency === r.currency) continue;
      insert.run(toParams(r));
      written += 1;
    }
    return written;
  });

  return {
    /** Inserts (or corrects) rows by their key, in one transaction. */
    insertPrices: (rows: readonly PriceRow[]): number => insertAll(rows),
    /** Inserts only rows whose price differs from the one in effect at their time. Returns rows written. */
    insertChangedPrices: (rows: readonly PriceRow[]): number => insertChanged(rows),

    /** The on-demand price in effect at `at` (default: the latest). */
    onDemandPrice(region: string, instanceType: string, at = Number.MAX_SAFE_INTEGER): PriceRow | null {
      const r = latestAtOrBefore.get({ kind: 'on-demand', region, instanceType, zone: '', at }) as RawPrice | undefined;
      return r ? fromRaw(r) : null;
    },
    /** The spot price in effect at `at` for a type in a zone: the latest change at or before it. */
    spotPriceAt(region: string, instanceType: string, zone: string, at: number): PriceRow | null {
      const r = latestAtOrBefore.get({ kind: 'spot', region, instanceType, zone, at }) as RawPrice | undefined;
      return r ? fromRaw(r) : null;
    },
    /** Every row of a region, sorted by kind, type, zone, time (to build a PriceBook). */
    allPrices(region: string): PriceRow[] {
      return (all.all({ region }) as RawPrice[]).map(fromRaw);
    },
    /** The newest spot change stored (where an incremental spot sync can resume), or null. */
    latestSpotChange(region: string): number | null {
      return (latestSpotTime.get({ region }) as number | null) ?? null;
    },
    /** The currencies of every price, snapshot and Cost Explorer line stored (one, or none, in a sound file). */
    storedCurrencies(): string[] {
      return (storedCurrencies.all() as string[]).sort();
    },
  };
}

export type PricesRepository = ReturnType<typeof createPricesRepository>;
