import type { Db } from '../open-db.js';
import { createPricesRepository, type PriceRow } from './prices-repository.js';

/**
 * All SQL for spot_price_coverage (migration 0023): per spot market (region, type, zone) how far its history is
 * stored, so the next DescribeSpotPriceHistory starts there. Zone '*': asked without a zone filter.
 */

export const ANY_ZONE = '*';

export function createSpotCoverageRepository(db: Db) {
  const all = db.prepare('SELECT instance_type AS instanceType, zone, asked_until AS askedUntil FROM spot_price_coverage WHERE region = ?');
  const upsert = db.prepare(`
    INSERT INTO spot_price_coverage (region, instance_type, zone, asked_until) VALUES (@region, @instanceType, @zone, @askedUntil)
    ON CONFLICT (region, instance_type, zone) DO UPDATE SET asked_until = MAX(asked_until, excluded.asked_until)`);
  const prices = createPricesRepository(db);

  /** The prices of one answer and the markets it covered, together or not at all. */
  const store = db.transaction(
    (
      region: string,
      rows: readonly PriceRow[],
      covered: { instanceTypes: readonly string[]; zones: readonly string[]; askedUntil: number },
    ) => {
      prices.insertPrices(rows);
      for (const instanceType of covered.instanceTypes)
        for (const zone of covered.zones.length === 0 ? [ANY_ZONE] : covered.zones)
          upsert.run({ region, instanceType, zone, askedUntil: covered.askedUntil });
      return rows.length;
    },
  );

  return {
    /** `type|zone` -> asked until (epoch ms), for a region. */
    coverage(region: string): Map<string, number> {
      const out = new Map<string, number>();
      for (const r of all.all(region) as { instanceType: string; zone: string; askedUntil: number }[])
        out.set(`${r.instanceType}|${r.zone}`, r.askedUntil);
      return out;
    },
    /** Stores an answer's price rows and marks its markets (types × zones; none: every zone) asked until `askedUntil`. */
    storeAnswer(
      region: string,
      rows: readonly PriceRow[],
      covered: { instanceTypes: readonly string[]; zones: readonly string[]; askedUntil: number },
    ): number {
      return store(region, rows, covered);
    },
  };
}

export type SpotCoverageRepository = ReturnType<typeof createSpotCoverageRepository>;
