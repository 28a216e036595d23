import { createSpotCoverageRepository } from '../../db/repositories/spot-coverage-repository.js';
import { fetchSpotHistory, type SpotDeps } from './collect.js';
import type { SpotMarkets } from './markets.js';
import { nextSpotAskAt, planSpotAsks, type SpotPlanOptions } from './plan.js';

export interface SpotSyncResult {
  requests: number;
  items: number;
  /** Price rows stored (new or corrected). */
  prices: number;
  /** Asks made (each one or more pages). */
  asks: number;
  /** When the next ask falls due for these markets (nextSpotAskAt over the coverage after this sync). */
  nextAskAt: number;
}

/**
 * Brings the stored history of the wanted markets up to `deps.now`: the asks planSpotAsks makes from what is stored
 * (spot_price_coverage), each answer stored with the markets it covered in one transaction, so an ask that fails
 * part way stores nothing and the next sync asks it again.
 */
export async function syncSpotMarkets(deps: SpotDeps, wanted: SpotMarkets, o: SpotPlanOptions = {}): Promise<SpotSyncResult> {
  const coverage = createSpotCoverageRepository(deps.db);
  const asks = planSpotAsks(wanted, coverage.coverage(deps.region), deps.now, o);
  const out: SpotSyncResult = { requests: 0, items: 0, prices: 0, asks: asks.length, nextAskAt: -Infinity };
  for (const ask of asks) {
    const r = await fetchSpotHistory(deps, { instanceTypes: ask.instanceTypes, zones: ask.zones, since: ask.sinceMs, until: deps.now });
    out.requests += r.requests;
    out.items += r.items;
    out.prices += coverage.storeAnswer(deps.region, r.rows, { instanceTypes: ask.instanceTypes, zones: ask.zones, askedUntil: r.untilMs });
  }
  out.nextAskAt = nextSpotAskAt(wanted, coverage.coverage(deps.region), o);
  return out;
}
