import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { createPricingClient } from '../collectors/pricing/client.js';
import { collectOnDemandPrices } from '../collectors/pricing/collect.js';
import { createEc2Client } from '../collectors/spot/client.js';
import { collectSpotPrices } from '../collectors/spot/collect.js';
import type { NodeRecord, PriceQuote } from '../core/model.js';
import { type RegionFacts, regionFacts } from '../core/partitions.js';
import { type StaticTable, staticTableFor } from '../core/static-prices.js';
import type { Db } from '../db/open-db.js';
import { PriceBook } from '../db/repositories/price-book.js';
import { HOUR_MS } from '../core/time.js';
import { CLUSTER_REGION_SETTING, createRunsRepository } from '../db/repositories/runs-repository.js';

/**
 * Keeps the prices a snapshot needs: on-demand from the Pricing API where the partition has one (not in
 * GovCloud or the isolated partitions, as in Karpenter), spot history for every market (type x zone) the cluster
 * uses — fetched the first time a market appears and refreshed hourly — and a PriceBook over them rebuilt only
 * when something new arrived. What neither prices, Karpenter's static table does: the region's, else its
 * partition's (us-east-1 in the commercial partition), the quote naming the table.
 */
export class PriceCollector {
  readonly facts: RegionFacts;
  readonly staticTable: StaticTable | null;
  private readonly pricing: PricingClient | null;
  private readonly ec2;
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
    this.facts = regionFacts(region);
    const endpoint = this.facts.pricing.region;
    this.pricing = endpoint === null ? null : (clients.pricing ?? createPricingClient({ region: endpoint }));
    this.ec2 = clients.ec2 ?? createEc2Client({ region });
    this.staticTable = staticTableFor(region);
    this.book = PriceBook.fromDb(db, region, this.staticTable);
    // The dashboard says where prices came from and in what currency from this.
    createRunsRepository(db).setSetting(CLUSTER_REGION_SETTING, region);
  }

  /** Why the Pricing API is not asked in this region (GovCloud, isolated partitions), or null when it is. */
  get pricingSkippedBecause(): string | null {
    return this.facts.pricing.region === null ? this.facts.pricing.why : null;
  }

  /** On-demand prices from the Pricing API; nothing to do where the partition has none (the static table prices). */
  async loadOnDemand(now = Date.now()): Promise<void> {
    if (this.pricing === null) return;
    const r = await collectOnDemandPrices({
      db: this.db,
      pricing: this.pricing,
      region: this.region,
      currency: this.facts.currency,
      now,
      runId: this.runId,
    });
    this.rowsWritten += r.written;
    this.book = PriceBook.fromDb(this.db, this.region, this.staticTable);
  }

  /** Fetches spot history for spot types not seen before (from a day back), and refreshes all hourly. */
  async ensureSpotMarkets(nodes: NodeRecord[], now: number): Promise<void> {
    const fresh = [
      ...new Set(nodes.filter((n) => n.capacityType === 'spot' && !this.knownTypes.has(n.instanceType)).map((n) => n.instanceType)),
    ].sort();
    const deps = { db: this.db, ec2: this.ec2, region: this.region, currency: this.facts.currency, now, runId: this.runId };
    let changed = false;
    if (fresh.length > 0) {
      this.rowsWritten += (await collectSpotPrices(deps, { instanceTypes: fresh, since: now - 24 * HOUR_MS, until: now })).prices;
      fresh.forEach((t) => this.knownTypes.add(t));
      changed = true;
    }
    if (now - this.lastRefresh >= HOUR_MS && this.knownTypes.size > 0) {
      const since = Number.isFinite(this.lastRefresh) ? this.lastRefresh : now - HOUR_MS;
      this.rowsWritten += (await collectSpotPrices(deps, { instanceTypes: [...this.knownTypes].sort(), since, until: now })).prices;
      this.lastRefresh = now;
      changed = true;
    }
    if (changed) this.book = PriceBook.fromDb(this.db, this.region, this.staticTable);
  }

  /** On-demand price per hour of a node's instance type, whatever its capacity type (spot savings); null when unknown. */
  onDemandPricePerHour(n: NodeRecord, at: number): number | null {
    return this.book.onDemand(n.instanceType, at)?.pricePerHour ?? null;
  }

  quote(n: NodeRecord, at: number): PriceQuote {
    return this.book.price(n, at) ?? { pricePerHour: 0, currency: this.facts.currency, source: 'unknown' };
  }
}
