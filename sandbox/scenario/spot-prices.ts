import { lastIndexAtOrBefore } from '../../core/time-search.js';
import type { Rng } from './rng.js';
import type { EpochMs, SpotPricePoint } from './types.js';
import type { ScenarioFile } from './scenario-file.js';
import { DAY_MS } from '../../core/time.js';

/**
 * Simulated spot prices: per (type, zone) a bounded random walk below on-demand, a few changes a day at
 * random minutes. Not real AWS prices: every consumer labels them as simulated.
 */
export function simulateSpotPrices(
  rng: Rng,
  cfg: ScenarioFile['spotPrices'],
  types: { name: string; onDemandUsdPerHour: number }[],
  zones: string[],
  start: EpochMs,
  end: EpochMs,
): SpotPricePoint[] {
  const out: SpotPricePoint[] = [];
  const [lo, hi] = cfg.boundsFractionOfOnDemand;
  for (const t of types) {
    for (const zone of zones) {
      let fraction = rng.uniform(cfg.initialFractionOfOnDemand[0], cfg.initialFractionOfOnDemand[1]);
      out.push({ at: start - DAY_MS, instanceType: t.name, zone, usdPerHour: round4(t.onDemandUsdPerHour * fraction) });
      const changes = Math.round(((end - start) / DAY_MS) * cfg.changesPerDay);
      const times = Array.from({ length: changes }, () => start + Math.floor(rng.next() * ((end - start) / 60_000)) * 60_000).sort(
        (a, b) => a - b,
      );
      for (const at of times) {
        fraction = Math.min(hi, Math.max(lo, fraction * (1 + rng.uniform(-cfg.stepFraction, cfg.stepFraction))));
        out.push({ at, instanceType: t.name, zone, usdPerHour: round4(t.onDemandUsdPerHour * fraction) });
      }
    }
  }
  return out;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Fast "price in effect at t" over the points of one scenario. */
export class SpotPriceIndex {
  private readonly byMarket = new Map<string, Map<string, SpotPricePoint[]>>();
  constructor(points: SpotPricePoint[]) {
    for (const p of points) {
      let zones = this.byMarket.get(p.instanceType);
      if (!zones) this.byMarket.set(p.instanceType, (zones = new Map()));
      const list = zones.get(p.zone) ?? [];
      list.push(p);
      zones.set(p.zone, list);
    }
    for (const zones of this.byMarket.values()) for (const list of zones.values()) list.sort((a, b) => a.at - b.at);
  }
  /** Points of one market, by time. */
  market(instanceType: string, zone: string): SpotPricePoint[] {
    return this.byMarket.get(instanceType)?.get(zone) ?? [];
  }
  priceAt(instanceType: string, zone: string, t: EpochMs): number | null {
    const list = this.market(instanceType, zone);
    const i = lastIndexAtOrBefore(list, t, (p) => p.at);
    return i < 0 ? null : list[i].usdPerHour;
  }
}
