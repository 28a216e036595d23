import { describe, expect, it } from 'vitest';
import { T, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { unlaunchedSpotPrices } from './spot-prices.js';

describe('unlaunchedSpotPrices: the markets EC2 answers beyond the ones the simulation priced', () => {
  it('every admitted type in every zone without a simulated market; the simulated ones (c5.xlarge) are left as they are', () => {
    const s = tinyScenario();
    const points = unlaunchedSpotPrices(s);
    const markets = [...new Set(points.map((p) => `${p.instanceType} ${p.zone}`))];
    // general admits m5.large (on-demand only), spot-batch c5.xlarge, which the scenario prices itself.
    expect(markets).toEqual(['m5.large us-east-1a', 'm5.large us-east-1b', 'm5.large us-east-1c']);
    // A walk between 20 % and 70 % of m5.large's on-demand 0.096, from a day before the scenario.
    expect(points[0].at).toBe(T('2026-10-31T00:00:00Z'));
    for (const p of points) {
      expect(p.usdPerHour).toBeGreaterThanOrEqual(0.096 * 0.2 - 1e-4);
      expect(p.usdPerHour).toBeLessThanOrEqual(0.096 * 0.7 + 1e-4);
    }
  });

  it('a market’s walk depends on the seed and its own name only: another NodePool added leaves m5.large’s history byte for byte', () => {
    const s = tinyScenario();
    const more = { ...s, nodePools: [...s.nodePools, { ...s.nodePools[0], name: 'big', instanceTypes: ['m5.2xlarge'] }] };
    const m5 = (pts: ReturnType<typeof unlaunchedSpotPrices>) => JSON.stringify(pts.filter((p) => p.instanceType === 'm5.large'));
    expect(m5(unlaunchedSpotPrices(more))).toBe(m5(unlaunchedSpotPrices(s)));
    expect(unlaunchedSpotPrices(more).some((p) => p.instanceType === 'm5.2xlarge')).toBe(true);
    expect(m5(unlaunchedSpotPrices({ ...s, seed: 2 }))).not.toBe(m5(unlaunchedSpotPrices(s)));
  });
});
