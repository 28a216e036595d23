import type { SpotPrice } from '@aws-sdk/client-ec2';
import type { Currency } from '../../core/partitions.js';
import type { PriceRow } from '../../db/repositories/prices-repository.js';

/**
 * The product descriptions of a Linux spot market. EC2 files an account's Linux markets under `Linux/UNIX`, or
 * under `Linux/UNIX (Amazon VPC)` in accounts from the EC2-Classic era (Karpenter asks for both); SUSE, Red Hat
 * and Windows markets are priced differently and never price a Linux node.
 */
export const LINUX_PRODUCT_DESCRIPTIONS = ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'] as const;
const isLinux = (d: string | undefined): boolean => d !== undefined && (LINUX_PRODUCT_DESCRIPTIONS as readonly string[]).includes(d);

/**
 * Pure: DescribeSpotPriceHistory items -> spot price rows, one per (type, zone, change time). Prices are
 * strings ("0.031200"); items missing a field, with an unreadable price or of another product than Linux are
 * skipped rather than guessed. Both Linux descriptions price the same market, so they collapse into one row.
 * Spot prices are in the partition's currency (CNY in China).
 */
export function mapSpotPrices(history: readonly SpotPrice[], region: string, currency: Currency = 'USD'): PriceRow[] {
  const rows = new Map<string, PriceRow>();
  for (const item of history) {
    const { InstanceType: instanceType, AvailabilityZone: zone, SpotPrice: price, Timestamp: timestamp } = item;
    if (instanceType === undefined || zone === undefined || price === undefined || timestamp === undefined) continue;
    if (!isLinux(item.ProductDescription)) continue;
    const pricePerHour = Number(price);
    const effectiveAt = timestamp.getTime();
    if (!Number.isFinite(pricePerHour) || pricePerHour < 0 || Number.isNaN(effectiveAt)) continue;
    const key = `${instanceType}|${zone}|${effectiveAt}`;
    if (!rows.has(key))
      rows.set(key, { kind: 'spot', region, instanceType, zone, effectiveAt, pricePerHour, currency, source: 'spot-history' });
  }
  return [...rows.values()].sort(
    (a, b) => a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone) || a.effectiveAt - b.effectiveAt,
  );
}
