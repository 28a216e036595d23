import { describe, expect, it } from 'vitest';
import type { DailyCostRow } from '@schemas/cost';
import { daysBetween, toDailyStacks } from './daily-stacks';

const row = (p: Partial<DailyCostRow> & Pick<DailyCostRow, 'day' | 'nodePool'>): DailyCostRow => ({
  purchaseType: null,
  capacityType: 'on-demand',
  band: 'compute',
  billUsd: null,
  billUnblendedUsd: null,
  billAmortizedUsd: null,
  billNetUnblendedUsd: null,
  billNetAmortizedUsd: null,
  billEstimated: false,
  estimateUsd: null,
  estimateReservedUsd: null,
  ...p,
});

describe('daysBetween', () => {
  describe.each([
    { from: '2026-11-01', to: '2026-11-04', expected: ['2026-11-01', '2026-11-02', '2026-11-03'] },
    { from: '2026-10-31', to: '2026-11-01', expected: ['2026-10-31'] },
    { from: '2026-11-01', to: '2026-11-01', expected: [] },
  ])('$from .. $to', ({ from, to, expected }) => {
    it('lists each UTC day, end exclusive', () => expect(daysBetween(from, to)).toEqual(expected));
  });
});

describe('toDailyStacks', () => {
  const stacks = toDailyStacks(
    [
      row({ day: '2026-11-01', nodePool: 'general', billUsd: 20, estimateUsd: 18 }),
      row({ day: '2026-11-01', nodePool: 'general', capacityType: 'spot', billUsd: 4, estimateUsd: 5 }),
      row({ day: '2026-11-01', nodePool: '', billUsd: 1 }),
      row({ day: '2026-11-03', nodePool: 'batch', billUsd: 5, estimateUsd: 4, billEstimated: true }),
      row({ day: '2026-12-01', nodePool: 'outside', billUsd: 99 }),
    ],
    '2026-11-01',
    '2026-11-04',
  );

  it('keeps a segment per NodePool and capacity type per day', () => {
    expect(stacks.days[0]).toEqual({
      day: '2026-11-01',
      bill: { 'general|on-demand': 20, 'general|spot': 4, '|on-demand': 1 },
      estimate: { 'general|on-demand': 18, 'general|spot': 5 },
      billTotalUsd: 25,
      estimateTotalUsd: 23,
      billNotFinal: false,
    });
  });
  it('keeps empty days of the range and drops rows outside it', () => {
    expect(stacks.days.map((d) => d.day)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(stacks.days[1]).toMatchObject({ bill: {}, estimate: {}, billTotalUsd: 0 });
    expect(stacks.nodePools).toEqual(['batch', 'general', '']);
  });
  it('orders segments by NodePool (untagged last), then on-demand before spot', () => {
    expect(stacks.segments.map((s) => s.key)).toEqual(['batch|on-demand', 'general|on-demand', 'general|spot', '|on-demand']);
  });
  it("puts purchase types without a capacity type (Savings Plans) in 'other'", () => {
    const s = toDailyStacks(
      [row({ day: '2026-11-01', nodePool: 'a', capacityType: null, purchaseType: 'Savings Plans', billUsd: 2 })],
      '2026-11-01',
      '2026-11-02',
    );
    expect(s.segments).toEqual([{ key: 'a|other', nodePool: 'a', kind: 'other' }]);
    expect(s.days[0]?.bill).toEqual({ 'a|other': 2 });
  });
  it('splits the estimate of an On Demand row into its capacity-reservation part (reserved) and the rest; the bill stays on-demand', () => {
    const s = toDailyStacks(
      [row({ day: '2026-11-01', nodePool: 'system', billUsd: 4.608, estimateUsd: 4.608, estimateReservedUsd: 2.304 })],
      '2026-11-01',
      '2026-11-02',
    );
    expect(s.segments.map((x) => x.key)).toEqual(['system|on-demand', 'system|reserved']);
    expect(s.days[0]?.bill).toEqual({ 'system|on-demand': 4.608 });
    expect(s.days[0]?.estimate).toEqual({ 'system|on-demand': 2.304, 'system|reserved': 2.304 });
    expect(s.estimateVsBill).toBe(0);
  });
  it('a NodePool wholly in reservations shows only a reserved estimate segment, and the bill as on-demand', () => {
    const s = toDailyStacks(
      [row({ day: '2026-11-01', nodePool: 'system', estimateUsd: 2.304, estimateReservedUsd: 2.304 })],
      '2026-11-01',
      '2026-11-02',
    );
    expect(s.segments.map((x) => x.key)).toEqual(['system|reserved']);
    expect(s.days[0]?.estimate).toEqual({ 'system|reserved': 2.304 });
  });
  it('flags days Cost Explorer has not finalised', () => {
    expect(stacks.days.map((d) => d.billNotFinal)).toEqual([false, false, true]);
  });
  it('totals: bill 25 + 5 = 30, estimate 23 + 4 = 27, estimate 10 % under the bill', () => {
    expect(stacks.billTotalUsd).toBe(30);
    expect(stacks.estimateTotalUsd).toBe(27);
    expect(stacks.estimateVsBill).toBeCloseTo(-0.1, 10);
  });
  it('has no comparison without a bill', () => {
    expect(
      toDailyStacks([row({ day: '2026-11-01', nodePool: 'a', estimateUsd: 3 })], '2026-11-01', '2026-11-02').estimateVsBill,
    ).toBeNull();
  });
});

describe("toDailyStacks: the NodePool's volumes and data transfer are a band of their own", () => {
  it('general: on-demand 10 + storage and network 0.5 = 10.5 billed on the day, after its compute in the stack', () => {
    const stacks = toDailyStacks(
      [
        row({ day: '2026-11-01', nodePool: 'general', purchaseType: 'On Demand Instances', billUsd: 10, estimateUsd: 9.9 }),
        row({
          day: '2026-11-01',
          nodePool: 'general',
          purchaseType: 'EC2 - Other',
          capacityType: null,
          band: 'storage-network',
          billUsd: 0.5,
        }),
      ],
      '2026-11-01',
      '2026-11-02',
    );
    expect(stacks.segments.map((s) => s.key)).toEqual(['general|on-demand', 'general|storage-network']);
    expect(stacks.days[0].bill).toEqual({ 'general|on-demand': 10, 'general|storage-network': 0.5 });
    expect(stacks.billTotalUsd).toBe(10.5);
    expect(stacks.estimateTotalUsd).toBe(9.9);
  });
});
