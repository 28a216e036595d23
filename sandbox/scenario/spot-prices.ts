import { lastIndexAtOrBefore } from '../../core/time-search.js';
import { Rng } from './rng.js';
import type { EpochMs, Scenario, SpotPricePoint } from './types.js';
import type { ScenarioFile } from './scenario-file.js';
import { DAY_MS } from '../../core/time.js';
import { loadOnDemandPrices } from './catalog.js';

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

/** The walk of a market nobody launched in: the shipped scenarios' settings (sandbox/scenarios/*.json). */
const UNLAUNCHED_WALK: ScenarioFile['spotPrices'] = {
  initialFractionOfOnDemand: [0.28, 0.45],
  changesPerDay: 3,
  stepFraction: 0.06,
  boundsFractionOfOnDemand: [0.2, 0.7],
};

/** FNV-1a, 32 bits: a seed per market from the scenario's seed and the market's name. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const unlaunchedCache = new WeakMap<Scenario, SpotPricePoint[]>();

/**
 * Spot history for every market the sandbox's EC2 must answer beyond those the simulation priced: every instance
 * type a NodePool admits (whatever its capacity types: Karpenter prices them all), in every zone of the scenario,
 * that `scenario.spotPrices` has no point for. Each market is its own walk, seeded by the scenario's seed and the
 * market's name, so the markets the simulation priced (and the bill charged) stay byte for byte what they were, and
 * adding a NodePool moves no other market. Types without an on-demand price are left out. Sorted by (type, zone, at).
 */
export function unlaunchedSpotPrices(scenario: Scenario): SpotPricePoint[] {
  const cached = unlaunchedCache.get(scenario);
  if (cached) return cached;
  const priced = new Set(scenario.spotPrices.map((p) => `${p.instanceType}|${p.zone}`));
  const staticPrices = loadOnDemandPrices(scenario.region);
  const out: SpotPricePoint[] = [];
  for (const type of [...new Set(scenario.nodePools.flatMap((p) => p.instanceTypes))].sort()) {
    const onDemandUsdPerHour = scenario.onDemandUsdPerHour[type] ?? staticPrices[type];
    if (onDemandUsdPerHour === undefined) continue;
    for (const zone of [...scenario.zones].sort()) {
      if (priced.has(`${type}|${zone}`)) continue;
      const rng = new Rng(fnv1a(`${scenario.seed}|${type}|${zone}`));
      out.push(...simulateSpotPrices(rng, UNLAUNCHED_WALK, [{ name: type, onDemandUsdPerHour }], [zone], scenario.start, scenario.end));
    }
  }
  unlaunchedCache.set(scenario, out);
  return out;
}

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
