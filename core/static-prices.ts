import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CSV = join(dirname(fileURLToPath(import.meta.url)), '..', 'data', 'on-demand-prices.csv');

/**
 * Karpenter's static on-demand table (data/on-demand-prices.csv, origin on its first line): USD per hour by
 * instance type for one region, the last-resort price when neither the Pricing API nor the database has one.
 * Regions priced in another currency (cn-*) give an empty table rather than mixing currencies.
 */
export function loadStaticOnDemandPrices(region: string, path = CSV): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('#') || line.startsWith('region,') || line.trim() === '') continue;
    const [r, type, price, currency] = line.split(',');
    if (r === region && currency?.trim() === 'USD') out.set(type, Number(price));
  }
  return out;
}
