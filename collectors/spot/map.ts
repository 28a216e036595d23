import type { SpotPrice } from '@aws-sdk/client-ec2';
import type { PriceRow } from '../../db/repositories/prices-repository.js';

/**
 * Pure: DescribeSpotPriceHistory items -> spot price rows, one per (type, zone, change time). Prices are
 * strings ("0.031200"); items missing a field or with an unreadable price are skipped rather than guessed.
 * Both Linux product descriptions price the same market, so they collapse into one row.
 */
export function mapSpotPrices(history: readonly SpotPrice[], region: string): PriceRow[] {
  const rows = new Map<string, PriceRow>();
  for (const item of history) {
    const { InstanceType: instanceType, AvailabilityZone: zone, SpotPrice: price, Timestamp: timestamp } = item;
    if (instanceType === undefined || zone === undefined || price === undefined || timestamp === undefined) continue;
    const usdPerHour = Number(price);
    const effectiveAt = timestamp.getTime();
    if (!Number.isFinite(usdPerHour) || usdPerHour < 0 || Number.isNaN(effectiveAt)) continue;
    const key = `${instanceType}|${zone}|${effectiveAt}`;
    if (!rows.has(key)) rows.set(key, { kind: 'spot', region, instanceType, zone, effectiveAt, usdPerHour, source: 'spot-history' });
  }
  return [...rows.values()].sort(
    (a, b) => a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone) || a.effectiveAt - b.effectiveAt,
  );
}
