import type { Db } from '../open-db.js';

/**
 * The stored prices in effect at a snapshot, as the what-if catalogue (server/analytics/whatif/catalogue.ts) prices
 * the engine's instance types with: per type the newest on-demand price at or before the snapshot, per type and zone
 * the newest spot price. Read-only. The snapshot itself comes from cluster-snapshot-repository.ts.
 */

export interface SnapshotPrices {
  /** On-demand per hour by instance type, in effect at the snapshot. */
  onDemand: Map<string, number>;
  /** Spot per hour keyed `${instanceType}/${zone}`, in effect at the snapshot. */
  spot: Map<string, number>;
  /** The currency of the stored prices; null when none is stored for the region. */
  currency: string | null;
}

export function createSnapshotPricesRepository(db: Db) {
  const pricesAt = db.prepare(`
    SELECT p.kind, p.instance_type AS instanceType, p.zone, p.usd_per_hour AS price, p.currency
    FROM prices p
    JOIN (SELECT kind, instance_type, zone, MAX(effective_at) AS at FROM prices
          WHERE region = @region AND effective_at <= @at GROUP BY kind, instance_type, zone) latest
      ON latest.kind = p.kind AND latest.instance_type = p.instance_type AND latest.zone = p.zone AND latest.at = p.effective_at
    WHERE p.region = @region`);
  return {
    /** Stored on-demand and spot prices in effect at `at` in a region. */
    pricesAt(region: string, at: number): SnapshotPrices {
      const onDemand = new Map<string, number>();
      const spot = new Map<string, number>();
      let currency: string | null = null;
      for (const r of pricesAt.all({ region, at }) as {
        kind: string;
        instanceType: string;
        zone: string;
        price: number;
        currency: string;
      }[]) {
        currency = r.currency;
        if (r.kind === 'spot') spot.set(`${r.instanceType}/${r.zone}`, r.price);
        else onDemand.set(r.instanceType, r.price);
      }
      return { onDemand, spot, currency };
    },
  };
}

export type SnapshotPricesRepository = ReturnType<typeof createSnapshotPricesRepository>;
