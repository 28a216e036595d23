import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { createPricingClient } from '../collectors/pricing/client.js';
import { collectOnDemandPrices } from '../collectors/pricing/collect.js';
import { createEc2Client } from '../collectors/spot/client.js';
import { admittedInstanceTypes, spotMarkets, type SpotMarkets, type SpotMarketsInput } from '../collectors/spot/markets.js';
import { syncSpotMarkets } from '../collectors/spot/sync.js';
import { loadInstanceCatalog } from '../core/instance-catalog.js';
import type { NodeRecord, PriceQuote } from '../core/model.js';
import { type RegionFacts, regionFacts } from '../core/partitions.js';
import { type StaticTable, staticTableFor } from '../core/static-prices.js';
import type { Db } from '../db/open-db.js';
import { PriceBook } from '../db/repositories/price-book.js';
import { CLUSTER_REGION_SETTING, createRunsRepository } from '../db/repositories/runs-repository.js';

/**
 * Keeps the prices a snapshot needs: on-demand from the Pricing API where the partition has one (not in
 * GovCloud or the isolated partitions, as in Karpenter), spot history for every market Karpenter could launch —
 * every instance type a NodePool admits (and every type running as spot) in every zone the cluster names
 * (collectors/spot/markets.ts) — fetched the first time a market appears and refreshed hourly from where its stored
 * history ends (collectors/spot/plan.ts, kept across runs in spot_price_coverage), and a PriceBook over them rebuilt
 * only when something new arrived. What neither prices, Karpenter's static table does: the region's, else its
 * partition's (us-east-1 in the commercial partition), the quote naming the table.
 */
export class PriceCollector {
  readonly facts: RegionFacts;
  readonly staticTable: StaticTable | null;
  private readonly pricing: PricingClient | null;
  private readonly ec2;
  private book: PriceBook;
  /** The types the NodePools last seen admit. */
  private admitted: { key: string; types: string[] } | null = null;
  /** The markets of the last sync and when their next ask falls due: until then, a snapshot asks nothing. */
  private spotDue: { key: string; at: number } | null = null;
  rowsWritten = 0;
  /** DescribeSpotPriceHistory requests made by this collector. */
  spotRequests = 0;

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

  /** The spot markets a cluster needs priced (types its NodePools admit and types running as spot, in its zones). */
  spotMarkets(cluster: Omit<SpotMarketsInput, 'region'>): SpotMarkets {
    // Admission is judged again only when the NodePools change (1,363 types against each NodePool's requirements).
    const key = JSON.stringify(cluster.nodePools.map((p) => p.requirements));
    if (this.admitted?.key !== key) {
      // A type without an on-demand price in the region (stored, else the static table) is not offered there: the
      // what-if catalogue leaves it out too.
      const priced = (t: string): boolean => this.book.onDemand(t) !== null;
      this.admitted = { key, types: admittedInstanceTypes(cluster.nodePools, loadInstanceCatalog(), priced) };
    }
    return spotMarkets({ ...cluster, region: this.region }, this.admitted.types);
  }

  /**
   * Brings the spot history of every market the cluster could launch up to `now`: markets never asked for at once
   * (from a day back), the others hourly from where their stored history ends.
   */
  async ensureSpotMarkets(cluster: Omit<SpotMarketsInput, 'region'>, now: number): Promise<void> {
    const wanted = this.spotMarkets(cluster);
    const key = `${wanted.instanceTypes.join(',')}|${wanted.zones.join(',')}|${(wanted.runningSpot ?? []).join(',')}`;
    if (this.spotDue?.key === key && now < this.spotDue.at) return;
    const deps = { db: this.db, ec2: this.ec2, region: this.region, currency: this.facts.currency, now, runId: this.runId };
    const r = await syncSpotMarkets(deps, wanted);
    this.spotDue = { key, at: r.nextAskAt };
    this.spotRequests += r.requests;
    this.rowsWritten += r.prices;
    if (r.asks > 0) this.book = PriceBook.fromDb(this.db, this.region, this.staticTable);
  }

  /** On-demand price per hour of a node's instance type, whatever its capacity type (spot savings); null when unknown. */
  onDemandPricePerHour(n: NodeRecord, at: number): number | null {
    return this.book.onDemand(n.instanceType, at)?.pricePerHour ?? null;
  }

  quote(n: NodeRecord, at: number): PriceQuote {
    return this.book.price(n, at) ?? { pricePerHour: 0, currency: this.facts.currency, source: 'unknown' };
  }
}
