import { describe, expect, it } from 'vitest';
import { T, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { hypotheticalBill } from './hypothetical-bill.js';

/**
 * The tiny scenario's days 11-02 and 11-03, worked by hand (see its fixture):
 * - 11-02: general m5.large 06:30-16:30 = 10 h x 0.096 = 0.96; the untagged m5.xlarge 24 h x 0.192 = 4.608.
 * - 11-03: spot-batch c5.xlarge 00:00-12:00 = 0.315 + 0.36 + 0.195 = 0.87; the untagged m5.xlarge 4.608.
 */
const sc = tinyScenario();
const window = { fromMs: T('2026-11-02T00:00:00Z'), toMs: T('2026-11-04T00:00:00Z'), seed: 7 };

describe('hypotheticalBill', () => {
  it('is the sandbox bill as the Cost Explorer console CSV, untouched', () => {
    const b = hypotheticalBill(sc, { ...window, perturbation: 'none' });
    expect(b.days.map((d) => [d.day, d.nodePool, Number(d.usd.toFixed(10))])).toEqual([
      ['2026-11-02', '', 4.608],
      ['2026-11-02', 'general', 0.96],
      ['2026-11-03', '', 4.608],
      ['2026-11-03', 'spot-batch', 0.87],
    ]);
    expect(b.csv).toBe(
      [
        '"karpenter.sh/nodepool","No tag key: karpenter.sh/nodepool($)","general($)","spot-batch($)","Total costs($)"',
        '"karpenter.sh/nodepool total","9.216","0.96","0.87","11.046"',
        '"2026-11-02","4.608","0.96","","5.568"',
        '"2026-11-03","4.608","","0.87","5.478"',
        '',
      ].join('\n'),
    );
  });

  it("untagged-node moves one NodeClaim's hours to the untagged column and says which", () => {
    const b = hypotheticalBill(sc, { ...window, perturbation: 'untagged-node' });
    expect(b.touched?.nodeClaim).toMatch(/^(general-abcde|spot-batch-fghij)$/);
    const moved = b.touched?.nodeClaim === 'general-abcde' ? 0.96 : 0.87;
    const untagged = b.days.filter((d) => d.nodePool === '').reduce((s, d) => s + d.usd, 0);
    expect(untagged).toBeCloseTo(9.216 + moved, 10);
    expect(b.whatChanged).toContain(b.touched?.instanceId ?? 'none');
  });

  it('spot-hourly-price charges each spot hour at its starting price: 04:00-05:00 at 0.07 -> 0.865', () => {
    const b = hypotheticalBill(sc, { ...window, perturbation: 'spot-hourly-price' });
    expect(b.days.find((d) => d.nodePool === 'spot-batch')?.usd).toBeCloseTo(0.865, 10);
    expect(b.days.find((d) => d.nodePool === 'general')?.usd).toBeCloseTo(0.96, 10);
  });

  it('tags-inactive bills everything untagged', () => {
    const b = hypotheticalBill(sc, { ...window, perturbation: 'tags-inactive' });
    expect(new Set(b.days.map((d) => d.nodePool))).toEqual(new Set(['']));
    expect(b.days.reduce((s, d) => s + d.usd, 0)).toBeCloseTo(11.046, 10);
  });

  it('is deterministic and refuses days outside the scenario', () => {
    expect(hypotheticalBill(sc, { ...window, perturbation: 'untagged-node' }).csv).toBe(
      hypotheticalBill(sc, { ...window, perturbation: 'untagged-node' }).csv,
    );
    expect(() =>
      hypotheticalBill(sc, { fromMs: T('2026-11-20T00:00:00Z'), toMs: T('2026-11-21T00:00:00Z'), seed: 1, perturbation: 'none' }),
    ).toThrow(/covers 2026-11-01 to 2026-11-14/);
  });
});
