import type { PriceQuote, PriceSource } from '../../core/model.js';
import { type Currency, staticTableSource } from '../../core/partitions.js';
import type { StaticTable } from '../../core/static-prices.js';
import { lastIndexAtOrBefore } from '../../core/time-search.js';
import type { Db } from '../open-db.js';
import { createPricesRepository, type PriceRow } from './prices-repository.js';

/**
 * Price lookups at snapshot time without a query per node: every price row of a region loaded once into sorted
 * arrays, "in effect at t" by binary search. Fallbacks, in order: on-demand from the Pricing API rows, then
 * Karpenter's static table (the region's, else its partition's: the source names which); spot from the zone's
 * history (its earliest point if t predates it, since history can start after a node did), then on-demand. The
 * source always says where the number came from, the currency what it is in.
 */

export type { PriceQuote };

interface Point {
  at: number;
  pricePerHour: number;
  currency: Currency;
  source: PriceSource;
}

const key = (instanceType: string, zone: string): string => `${instanceType}|${zone}`;

/** Index of the last point with at <= t, or -1. */
const lastAtOrBefore = (points: readonly Point[], t: number): number => lastIndexAtOrBefore(points, t, (p) => p.at);

const quoteOf = (p: Point): PriceQuote => ({ pricePerHour: p.pricePerHour, currency: p.currency, source: p.source });

export class PriceBook {
  private readonly onDemandByType = new Map<string, Point[]>();
  private readonly spotByMarket = new Map<string, Point[]>();

  constructor(
    rows: readonly PriceRow[],
    private readonly staticTable: StaticTable | null = null,
  ) {
    for (const r of rows) {
      const map = r.kind === 'spot' ? this.spotByMarket : this.onDemandByType;
      const k = r.kind === 'spot' ? key(r.instanceType, r.zone) : r.instanceType;
      const list = map.get(k);
      const point = { at: r.effectiveAt, pricePerHour: r.pricePerHour, currency: r.currency, source: r.source };
      if (list) list.push(point);
      else map.set(k, [point]);
    }
    for (const list of [...this.onDemandByType.values(), ...this.spotByMarket.values()]) list.sort((a, b) => a.at - b.at);
  }

  /** Built once from the prices table (one query), with the static table as the last resort. */
  static fromDb(db: Db, region: string, staticTable: StaticTable | null = null): PriceBook {
    return new PriceBook(createPricesRepository(db).allPrices(region), staticTable);
  }

  /** On-demand price per hour in effect at `at` (default: the latest known). */
  onDemand(instanceType: string, at = Number.MAX_SAFE_INTEGER): PriceQuote | null {
    const points = this.onDemandByType.get(instanceType);
    if (points && points.length > 0) return quoteOf(points[Math.max(0, lastAtOrBefore(points, at))]);
    const fallback = this.staticTable?.prices.get(instanceType);
    if (fallback === undefined || this.staticTable === null) return null;
    return { pricePerHour: fallback, currency: this.staticTable.currency, source: staticTableSource(this.staticTable.region) };
  }

  /** Spot price per hour of a type in a zone at `at`, falling back to on-demand when the market is unknown. */
  spot(instanceType: string, zone: string, at: number): PriceQuote | null {
    const points = this.spotByMarket.get(key(instanceType, zone));
    if (points && points.length > 0) return quoteOf(points[Math.max(0, lastAtOrBefore(points, at))]);
    return this.onDemand(instanceType, at);
  }

  /** The price of a node: spot from its market, on-demand and capacity reservations at the on-demand rate. */
  price(node: { capacityType: string; instanceType: string; zone: string }, at: number): PriceQuote | null {
    return node.capacityType === 'spot' ? this.spot(node.instanceType, node.zone, at) : this.onDemand(node.instanceType, at);
  }
}
