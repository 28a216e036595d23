import { createPricingClient } from '../../collectors/pricing/client.js';
import { createEc2Client } from '../../collectors/spot/client.js';
import type { KubeSnapshot } from '../../core/model.js';
import { HOUR_MS } from '../../core/time.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { PriceCollector } from '../price-collector.js';
import { UsageError } from '../usage-error.js';
import { type CollectContext, errorText } from './context.js';

/** Karpenter refreshes on-demand prices every 12 h. */
const ON_DEMAND_REFRESH_MS = 12 * HOUR_MS;

/**
 * The prices stage: on-demand (Pricing API, every 12 h) and spot (EC2 history of the markets the snapshot's
 * NodePools could launch) before each snapshot is written, since the snapshot's rows are priced with them. It runs
 * with each snapshot rather than on the loop's clock. Its failures are its own: the snapshot is still written with
 * the last good prices (or Karpenter's static table).
 */
export class PricesStage {
  readonly name = 'prices';
  private prices: PriceCollector | null = null;
  private run: { id: number; failure: string | null } | null = null;
  private lastOnDemandAt = -Infinity;

  constructor(private readonly ctx: CollectContext) {}

  /** The price source, created once the region is known (from the flag, the environment or the nodes). */
  private collector(nodes: KubeSnapshot['nodes']): PriceCollector {
    if (this.prices) return this.prices;
    const ctx = this.ctx;
    const region = ctx.region ?? nodes.map((n) => n.labels['topology.kubernetes.io/region']).find((r) => r !== undefined);
    if (!region)
      throw new UsageError(
        "cannot tell the cluster's region (no --region, no $AWS_REGION, no topology.kubernetes.io/region label on the nodes): pass --region",
      );
    ctx.region = region;
    const facts = ctx.facts();
    if (facts === null) throw new Error('unreachable: the region was just set');
    ctx.checkCurrency(facts);
    const runId = createRunsRepository(ctx.db).startRun('pricing', ctx.source);
    this.run = { id: runId, failure: null };
    const ec2 = ctx.keep(ctx.counter.attach(createEc2Client({ region }), 'ec2'));
    let pricing;
    if (facts.pricing.region !== null) {
      // The Pricing API allows about 5 requests a second: adaptive retries also slow the client down after throttling.
      pricing = ctx.keep(ctx.counter.attach(createPricingClient({ region: facts.pricing.region, retryMode: 'adaptive' }), 'pricing'));
    }
    this.prices = new PriceCollector(ctx.db, region, runId, { pricing, ec2 });
    const table = this.prices.staticTable;
    const tableText = table
      ? `Karpenter's static table (${table.region}, ${table.currency})`
      : 'no static table (Karpenter ships none for this partition)';
    if (facts.pricing.region === null)
      ctx.note(`no Pricing API call in ${region}: ${facts.pricing.why}; on-demand prices from ${tableText}`);
    return this.prices;
  }

  /**
   * Brings the prices the snapshot needs up to date and returns their source. On-demand and spot apart: a Pricing
   * API that refuses (or is down) must not cost the spot markets their prices.
   */
  async priceSnapshot(snapshot: KubeSnapshot): Promise<PriceCollector> {
    const prices = this.collector(snapshot.nodes);
    const tally = (this.ctx.summary.stages[this.name] ??= { runs: 0, failures: 0 });
    tally.runs += 1;
    const before = prices.rowsWritten;
    const failed = (what: string, err: unknown): void => {
      if (this.run) this.run.failure = errorText(err);
      this.ctx.fail(this.name, what, err);
    };
    try {
      if (snapshot.takenAt - this.lastOnDemandAt >= ON_DEMAND_REFRESH_MS) {
        await prices.loadOnDemand(snapshot.takenAt);
        this.lastOnDemandAt = snapshot.takenAt;
      }
    } catch (err) {
      const table = prices.staticTable;
      failed(`prices: on-demand (the last stored prices${table ? ` or Karpenter's static table (${table.region})` : ''} are used)`, err);
    }
    try {
      await prices.ensureSpotMarkets(snapshot, snapshot.takenAt);
    } catch (err) {
      failed('prices: spot (the last stored history, else the on-demand price, is used)', err);
    }
    this.ctx.summary.priceRows += prices.rowsWritten - before;
    return prices;
  }

  /** Closes the pricing run (one per invocation, opened with the first snapshot priced). */
  finish(): void {
    if (!this.run) return;
    createRunsRepository(this.ctx.db).finishRun(
      this.run.id,
      this.run.failure === null ? 'ok' : 'failed',
      this.ctx.summary.priceRows,
      this.run.failure,
    );
  }
}
