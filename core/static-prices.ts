import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CURRENCIES, type Currency, regionFacts } from './partitions.js';

const CSV = join(dirname(fileURLToPath(import.meta.url)), '..', 'data', 'on-demand-prices.csv');

/**
 * Karpenter's static on-demand tables (data/on-demand-prices.csv, origin on its first line): price per hour by
 * instance type for the regions Karpenter ships one for (us-east-1, us-gov-east-1, us-gov-west-1 in USD,
 * cn-north-1 in CNY). The last resort when neither the Pricing API nor the database has a price.
 */
export interface StaticTable {
  /** The region the table was generated for (not necessarily the cluster's). */
  region: string;
  currency: Currency;
  /** Instance type -> price per hour, in `currency`. */
  prices: ReadonlyMap<string, number>;
}

const cache = new Map<string, Map<string, StaticTable>>();

/** Every table in the file, by region; a row whose currency disagrees with its region's table is an error. */
export function loadStaticTables(path = CSV): ReadonlyMap<string, StaticTable> {
  const hit = cache.get(path);
  if (hit) return hit;
  const tables = new Map<string, { region: string; currency: Currency; prices: Map<string, number> }>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('#') || line.startsWith('region,') || line.trim() === '') continue;
    const [region, type, price, rawCurrency] = line.split(',').map((s) => s.trim());
    const currency = CURRENCIES.find((c) => c === rawCurrency);
    if (currency === undefined) throw new Error(`${path}: unknown currency "${rawCurrency}" on line "${line}"`);
    let table = tables.get(region);
    if (!table) {
      table = { region, currency, prices: new Map() };
      tables.set(region, table);
    }
    if (table.currency !== currency) throw new Error(`${path}: ${region} mixes ${table.currency} and ${currency}`);
    table.prices.set(type, Number(price));
  }
  cache.set(path, tables);
  return tables;
}

/**
 * The table that prices a cluster in `region`: its own, else its partition's fallback (see regionFacts), and only
 * one in the partition's currency. Null when none fits.
 */
export function staticTableFor(region: string, path = CSV): StaticTable | null {
  const facts = regionFacts(region);
  const tables = loadStaticTables(path);
  for (const candidate of facts.staticTableRegions) {
    const table = tables.get(candidate);
    if (table && table.currency === facts.currency) return table;
  }
  return null;
}

/** The prices of exactly `region`'s own table (empty when Karpenter ships none for it), in that table's currency. */
export function loadStaticOnDemandPrices(region: string, path = CSV): Map<string, number> {
  return new Map(loadStaticTables(path).get(region)?.prices ?? []);
}
