import type { Currency } from '../../core/partitions.js';
import type { PriceRow } from '../../db/repositories/prices-repository.js';

/**
 * Pure: GetProducts PriceList -> on-demand price rows. Each item is a JSON document sent as a string (the SDK
 * may hand it over boxed, hence String()). Only the fields needed are read, as Karpenter does: the instance type
 * and the OnDemand terms' price in the partition's currency (`pricePerUnit.USD`, `pricePerUnit.CNY` in China).
 * The query already chose the region, OS, tenancy and market, so an item is not second-guessed for lacking
 * `regionCode` (older price lists have none) or a `unit` (Karpenter's own test items have none); Reserved
 * terms sit beside the OnDemand ones in the same document and are never read.
 */

export interface OnDemandProduct {
  sku: string;
  instanceType: string;
  /** Absent from price lists published before regionCode existed (2021 and earlier). */
  regionCode: string | null;
  pricePerHour: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Units a per-hour price is given in; a dimension without a unit is taken as hourly (the query asked for instances). */
const isHourly = (unit: unknown): boolean => unit === undefined || (typeof unit === 'string' && /^(hrs?|hours?)$/i.test(unit));

/** The hourly price of a product's OnDemand terms in `currency`; null when it has none (or only a zero price). */
function onDemandPrice(terms: unknown, currency: Currency): number | null {
  if (!isObject(terms) || !isObject(terms.OnDemand)) return null;
  for (const term of Object.values(terms.OnDemand)) {
    if (!isObject(term) || !isObject(term.priceDimensions)) continue;
    for (const dim of Object.values(term.priceDimensions)) {
      if (!isObject(dim) || !isHourly(dim.unit) || !isObject(dim.pricePerUnit)) continue;
      const text = dim.pricePerUnit[currency];
      if (typeof text !== 'string' || text.trim() === '') continue;
      const price = Number(text);
      if (Number.isFinite(price) && price > 0) return price;
    }
  }
  return null;
}

/** One PriceList entry; null for entries without an instance type or an on-demand hourly price in `currency`. */
export function parsePriceListItem(item: unknown, currency: Currency = 'USD'): OnDemandProduct | null {
  const doc: unknown = JSON.parse(typeof item === 'string' ? item : String(item));
  if (!isObject(doc) || !isObject(doc.product) || !isObject(doc.product.attributes)) return null;
  const { attributes, sku } = doc.product;
  const instanceType = attributes.instanceType;
  if (typeof instanceType !== 'string' || instanceType === '') return null;
  const pricePerHour = onDemandPrice(doc.terms, currency);
  if (pricePerHour === null) return null;
  const regionCode = typeof attributes.regionCode === 'string' ? attributes.regionCode : null;
  return { sku: typeof sku === 'string' ? sku : '', instanceType, regionCode, pricePerHour };
}

/**
 * Rows for the region (kind on-demand, zone '', source pricing-api). An item that names another region is not
 * the region's price (the query filters by regionCode; such an item can only come from a loose filter). With the
 * collector's filters there is one product per type; should several come through, the first one wins.
 */
export function mapOnDemandPrices(
  priceList: readonly unknown[],
  opts: { region: string; currency: Currency; effectiveAt: number },
): PriceRow[] {
  const rows = new Map<string, PriceRow>();
  for (const item of priceList) {
    const p = parsePriceListItem(item, opts.currency);
    if (!p || (p.regionCode !== null && p.regionCode !== opts.region) || rows.has(p.instanceType)) continue;
    rows.set(p.instanceType, {
      kind: 'on-demand',
      region: opts.region,
      instanceType: p.instanceType,
      zone: '',
      effectiveAt: opts.effectiveAt,
      pricePerHour: p.pricePerHour,
      currency: opts.currency,
      source: 'pricing-api',
    });
  }
  return [...rows.values()];
}
