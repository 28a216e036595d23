import type { PriceRow } from '../../db/repositories/prices-repository.js';

/**
 * Pure: GetProducts PriceList -> on-demand price rows. Each item is a JSON document sent as a string (the SDK
 * may hand it over boxed, hence String()). Only the fields needed are read, and only OnDemand terms: Reserved
 * terms sit beside them in the same document and must not be mistaken for the hourly price.
 */

export interface OnDemandProduct {
  sku: string;
  instanceType: string;
  regionCode: string;
  usdPerHour: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The hourly USD price of a product's OnDemand terms; null when it has none (or only a zero price). */
function onDemandUsd(terms: unknown): number | null {
  if (!isObject(terms) || !isObject(terms.OnDemand)) return null;
  for (const term of Object.values(terms.OnDemand)) {
    if (!isObject(term) || !isObject(term.priceDimensions)) continue;
    for (const dim of Object.values(term.priceDimensions)) {
      if (!isObject(dim) || dim.unit !== 'Hrs' || !isObject(dim.pricePerUnit)) continue;
      const usd = Number(dim.pricePerUnit.USD);
      if (Number.isFinite(usd) && usd > 0) return usd;
    }
  }
  return null;
}

/** One PriceList entry; null for entries without an instance type or an on-demand hourly price. */
export function parsePriceListItem(item: unknown): OnDemandProduct | null {
  const doc: unknown = JSON.parse(typeof item === 'string' ? item : String(item));
  if (!isObject(doc) || !isObject(doc.product) || !isObject(doc.product.attributes)) return null;
  const { attributes, sku } = doc.product;
  const instanceType = attributes.instanceType;
  const regionCode = attributes.regionCode;
  if (typeof instanceType !== 'string' || instanceType === '' || typeof regionCode !== 'string') return null;
  const usdPerHour = onDemandUsd(doc.terms);
  if (usdPerHour === null) return null;
  return { sku: typeof sku === 'string' ? sku : '', instanceType, regionCode, usdPerHour };
}

/**
 * Rows for the region (kind on-demand, zone '', source pricing-api). With the collector's filters there is one
 * product per type; should a loose filter let several through, the first one wins, as in Karpenter.
 */
export function mapOnDemandPrices(priceList: readonly unknown[], opts: { region: string; effectiveAt: number }): PriceRow[] {
  const rows = new Map<string, PriceRow>();
  for (const item of priceList) {
    const p = parsePriceListItem(item);
    if (!p || p.regionCode !== opts.region || rows.has(p.instanceType)) continue;
    rows.set(p.instanceType, {
      kind: 'on-demand',
      region: opts.region,
      instanceType: p.instanceType,
      zone: '',
      effectiveAt: opts.effectiveAt,
      usdPerHour: p.usdPerHour,
      source: 'pricing-api',
    });
  }
  return [...rows.values()];
}
