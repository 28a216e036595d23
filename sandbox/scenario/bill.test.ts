import { describe, expect, it } from 'vitest';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { computeBill, formatCeAmount, nodePoolCostByHand } from './bill.js';

const sumBy = (lines: ReturnType<typeof computeBill>, pool: string | null): number =>
  lines.filter((l) => l.nodePool === pool).reduce((s, l) => s + l.unblendedUsd, 0);

describe('computeBill on the tiny scenario (numbers worked by hand in tiny-scenario.ts)', () => {
  const scenario = tinyScenario();
  const lines = computeBill(scenario, TINY_END);

  it.each([
    // pool, hand-worked USD
    ['general', 10 * 0.096],
    ['spot-batch', 4.5 * 0.07 + 4.5 * 0.08 + 3 * 0.065],
    [null, 336 * 0.192],
  ] as const)('NodePool %s costs %d', (pool, usd) => {
    expect(sumBy(lines, pool)).toBeCloseTo(usd, 10);
    expect(nodePoolCostByHand(scenario, TINY_END).get(pool ?? '')).toBeCloseTo(usd, 10);
  });

  it('splits partial hours: the on-demand node starts and ends on a half hour', () => {
    const general = lines.filter((l) => l.nodePool === 'general');
    expect(general).toHaveLength(11);
    expect(general[0]).toMatchObject({ hourStart: T('2026-11-02T06:00:00Z'), usageHours: 0.5, nodeClaim: 'general-abcde' });
    expect(general[0].unblendedUsd).toBeCloseTo(0.048, 12);
    expect(general[10]).toMatchObject({ hourStart: T('2026-11-02T16:00:00Z'), usageHours: 0.5 });
  });

  it('integrates a spot price that changes mid-hour (04:30)', () => {
    const hour4 = lines.find((l) => l.nodePool === 'spot-batch' && l.hourStart === T('2026-11-03T04:00:00Z'));
    expect(hour4?.usageHours).toBe(1);
    expect(hour4?.unblendedUsd).toBeCloseTo(0.5 * 0.07 + 0.5 * 0.08, 12);
  });

  it('bills nothing after asOf (a partial current hour counts its part)', () => {
    const asOf = T('2026-11-02T07:15:00Z');
    const early = computeBill(scenario, asOf);
    expect(early.every((l) => l.hourStart < asOf)).toBe(true);
    expect(sumBy(early, 'general')).toBeCloseTo(0.75 * 0.096, 12);
    expect(sumBy(early, null)).toBeCloseTo((24 + 7.25) * 0.192, 10);
  });

  it('matches the independent per-node computation at an arbitrary time', () => {
    const asOf = T('2026-11-03T05:20:00Z');
    const byHand = nodePoolCostByHand(scenario, asOf);
    const bill = computeBill(scenario, asOf);
    for (const [pool, usd] of byHand) expect(sumBy(bill, pool === '' ? null : pool)).toBeCloseTo(usd, 10);
  });
});

describe.each([
  [0.96, '0.96'],
  [0, '0'],
  [64.51200000000001, '64.512'],
  [12.345678901234, '12.3456789012'],
  [0.00003001724, '0.0000300172'],
  [100, '100'],
])('formatCeAmount(%d)', (value, text) => {
  it(`prints ${text}`, () => expect(formatCeAmount(value)).toBe(text));
});
