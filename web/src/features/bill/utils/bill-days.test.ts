import { describe, expect, it } from 'vitest';
import type { BillLine } from '@schemas/bill';
import { dayBill, lineDays, parseBillPage, pickDay, sourceLabel, toggleLineUpdates, toggleResourceUpdates } from './bill-days';

const line = (day: string, nodePool: string, usd: number, estimated = false): BillLine => ({
  id: 1,
  currency: 'USD',
  source: 'cost-explorer',
  granularity: 'DAILY',
  periodStart: `${day}T00:00:00.000Z`,
  periodEnd: '',
  nodePool,
  groupBy: 'PURCHASE_TYPE',
  dimensionValue: 'On Demand Instances',
  unblendedUsd: usd,
  amortizedUsd: null,
  usageQuantity: null,
  usageUnit: null,
  estimated,
});

describe('parseBillPage', () => {
  it('defaults to your bill, newest day, question 1', () =>
    expect(parseBillPage(new URLSearchParams(''))).toEqual({
      mode: 'bill',
      source: undefined,
      day: undefined,
      groupBy: undefined,
      lines: [],
      resources: [],
      seed: 1,
    }));
  it('reads every key', () =>
    expect(
      parseBillPage(new URLSearchParams('mode=practice&seed=7&source=csv:costs-3&day=2026-11-09&groupBy=INSTANCE_TYPE&line=4,12')),
    ).toEqual({
      mode: 'practice',
      source: 'csv:costs-3',
      day: '2026-11-09',
      groupBy: 'INSTANCE_TYPE',
      lines: [4, 12],
      resources: [],
      seed: 7,
    }));
  it('reads the CUR mode and its expanded resources', () =>
    expect(parseBillPage(new URLSearchParams('mode=cur&day=2026-11-09&resource=i-0abc,vol-0def,bad%20id'))).toMatchObject({
      mode: 'cur',
      day: '2026-11-09',
      resources: ['i-0abc', 'vol-0def'],
    }));
  it('ignores what it cannot use', () =>
    expect(parseBillPage(new URLSearchParams('mode=quiz&seed=-1&source=s3:x&day=9 Nov&groupBy=TAG&line=a,0,3'))).toEqual({
      mode: 'bill',
      source: undefined,
      day: undefined,
      groupBy: undefined,
      lines: [3],
      resources: [],
      seed: 1,
    }));
});

describe('toggleLineUpdates', () => {
  const state = parseBillPage(new URLSearchParams('line=4,12'));
  it('adds a line', () => expect(toggleLineUpdates(state, 5)).toEqual({ line: '4,12,5' }));
  it('removes a line', () => expect(toggleLineUpdates(state, 4)).toEqual({ line: '12' }));
  it('clears the key with the last line', () =>
    expect(toggleLineUpdates(parseBillPage(new URLSearchParams('line=4')), 4)).toEqual({ line: undefined }));
});

describe('toggleResourceUpdates', () => {
  const state = parseBillPage(new URLSearchParams('mode=cur&resource=i-0abc'));
  it('adds a resource', () => expect(toggleResourceUpdates(state, 'vol-0def')).toEqual({ resource: 'i-0abc,vol-0def' }));
  it('clears the key with the last one', () => expect(toggleResourceUpdates(state, 'i-0abc')).toEqual({ resource: undefined }));
});

describe('days', () => {
  const lines = [
    line('2026-11-02', 'general', 10),
    line('2026-11-01', 'general', 7),
    line('2026-11-02', '', 1.5, true),
    line('2026-11-02', 'spot-batch', 3),
  ];
  it('lists the days, oldest first', () => expect(lineDays(lines)).toEqual(['2026-11-01', '2026-11-02']));
  describe.each([
    { wanted: undefined, expected: '2026-11-02' },
    { wanted: '2026-11-01', expected: '2026-11-01' },
    { wanted: '2026-10-01', expected: '2026-11-02' }, // not in the bill: the newest
  ])('pickDay($wanted)', ({ wanted, expected }) => it(`-> ${expected}`, () => expect(pickDay(lineDays(lines), wanted)).toBe(expected)));
  it('has no day without lines', () => expect(pickDay([], '2026-11-01')).toBeUndefined());
  it('totals a day: 10 + 1.5 + 3 = 14.5, NodePools largest first', () => {
    const d = dayBill(lines, '2026-11-02');
    expect(d.lines).toHaveLength(3);
    expect(d.totalUsd).toBeCloseTo(14.5, 10);
    expect(d.byNodePool).toEqual([
      { nodePool: 'general', usd: 10 },
      { nodePool: 'spot-batch', usd: 3 },
      { nodePool: '', usd: 1.5 },
    ]);
    expect(d.anyEstimated).toBe(true);
  });
  it("two clusters' default are two totals (lines naming their cluster): 4 + 2 in alpha, 3 in beta, never one 9", () => {
    const named = [
      { ...line('2026-11-02', 'default', 4), cluster: 'alpha' },
      { ...line('2026-11-02', 'default', 3), cluster: 'beta' },
      { ...line('2026-11-02', 'default', 2), cluster: 'alpha' },
    ];
    expect(dayBill(named, '2026-11-02').byNodePool).toEqual([
      { nodePool: 'default', cluster: 'alpha', usd: 6 },
      { nodePool: 'default', cluster: 'beta', usd: 3 },
    ]);
  });
});

describe('sourceLabel', () => {
  it('names synced and imported bills', () => {
    expect(sourceLabel({ source: 'cost-explorer', fileName: null })).toBe('Cost Explorer (synced)');
    expect(sourceLabel({ source: 'csv:costs', fileName: 'costs.csv' })).toBe('costs.csv (imported)');
    expect(sourceLabel({ source: 'csv:costs', fileName: null })).toBe('costs (imported)');
  });
});
