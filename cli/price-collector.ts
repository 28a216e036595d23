import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { createPricingClient, pricingEndpointRegion } from '../collectors/pricing/client.js';
import { collectOnDemandPrices } from '../collectors/pricing/collect.js';
import { createEc2Client } from '../collectors/spot/client.js';
import { collectSpotPrices } from '../collectors/spot/collect.js';
import type { NodeRecord, PriceQuote } from '../core/model.js';
import { loadStaticOnDemandPrices } from '../core/static-prices.js';
import type { Db } from '../db/open-db.js';
import { PriceBook } from '../db/repositories/price-book.js';
import { HOUR_MS } from '../core/time.js';

/**
 * Keeps the prices a snapshot needs: on-demand once from the Pricing API, spot history for every market
 * (type x zone) the cluster uses — fetched the first time a market appears and refreshed hourly — and a
 * PriceBook over them rebuilt only when something new arrived.
 */
export class PriceCollector {
  private readonly pricing;
  private readonly ec2;
  private readonly staticTable: Map<string, number>;
  private readonly knownTypes = new Set<string>();
  private lastRefresh = -Infinity;
  private book: PriceBook;
  rowsWritten = 0;

  /** `clients` lets a caller pass its own SDK clients (e.g. with request counting attached). */
  constructor(
    private readonly db: Db,
    private readonly region: string,
    private readonly runId: number | null,
    clients: { pricing?: PricingClient; ec2?: EC2Client } = {},
  ) {
    this.pricing = clients.pricing ?? createPricingClient({ region: pricingEndpointRegion(region) });
    this.ec2 = clients.ec2 ?? createEc2Client({ region });
    this.staticTable = loadStaticOnDemandPrices(region);
    this.book = PriceBook.fromDb(db, region, this.staticTable);
  }

  async loadOnDemand(now = Date.now()): Promise<void> {
    const r = await collectOnDemandPrices({ db: this.db, pricing: this.pricing, region: this.region, now, runId: this.runId });
    this.rowsWritten += r.written;
    this.book = PriceBook.fromDb(this.db, this.region, this.staticTable);
  }

  /** Fetches spot history for spot types not seen before (from a day back), and refreshes all hourly. */
  async ensureSpotMarkets(nodes: NodeRecord[], now: number): Promise<void> {
    const fresh = [
      ...new Set(nodes.filter((n) => n.capacityType === 'spot' && !this.knownTypes.has(n.instanceType)).map((n) => n.instanceType)),
    ].sort();
    let changed = false;
    if (fresh.length > 0) {
      this.rowsWritten += (
        await collectSpotPrices(
          { db: this.db, ec2: this.ec2, region: this.region, now, runId: this.runId },
          { instanceTypes: fresh, since: now - 24 * HOUR_MS, until: now },
        )
      ).prices;
      fresh.forEach((t) => this.knownTypes.add(t));
      changed = true;
    }
    if (now - this.lastRefresh >= HOUR_MS && this.knownTypes.size > 0) {
      const since = Number.isFinite(this.lastRefresh) ? this.lastRefresh : now - HOUR_MS;
      this.rowsWritten += (
        await collectSpotPrices(
          { db: this.db, ec2: this.ec2, region: this.region, now, runId: this.runId },
          { instanceTypes: [...this.knownTypes].sort(), since, until: now },
        )
      ).prices;
      this.lastRefresh = now;
      changed = true;
    }
    if (changed) this.book = PriceBook.fromDb(this.db, this.region, this.staticTable);
  }

  /** On-demand USD/hour of a node's instance type, whatever its capacity type (spot savings); null when unknown. */
  onDemandUsdPerHour(n: NodeRecord, at: number): number | null {
    return this.book.onDemand(n.instanceType, at)?.usdPerHour ?? null;
  }

  quote(n: NodeRecord, at: number): PriceQuote {
    return this.book.price(n, at) ?? { usdPerHour: 0, source: 'unknown' };
  }
}
