import { describe, expect, it } from 'vitest';
import type { DailyCostResponse } from '@schemas/cost';
import type { EfficiencySummaryResponse, EfficiencySummaryRow } from '@schemas/efficiency';
import { compareFigures, periodFigures, type PeriodFigures } from './period-delta';

const summaryRow = (p: Partial<EfficiencySummaryRow>): EfficiencySummaryRow => ({
  scope: 'cluster',
  nodePool: null,
  nodesAvg: 0,
  nodeHours: 0,
  costUsd: 0,
  usdPerHourAvg: 0,
  cpu: null,
  memory: null,
  pods: null,
  gpu: null,
  costWeightedCpu: null,
  costWeightedMemory: null,
  costWeightedPods: null,
  costWeightedGpu: null,
  idleVcpuAvg: 0,
  idleMemoryGiBAvg: 0,
  idleUsdPerHourAvg: 0,
  idleRates: { usdPerVcpuHour: null, usdPerGiBHour: null, usdPerGpuHour: null },
  ...p,
});
const summary = (rows: EfficiencySummaryRow[], hours = 24): EfficiencySummaryResponse => ({
  from: 'a',
  to: 'b',
  hours,
  snapshots: 96,
  idleWeighting: 'relative price',
  rows,
});
const cost = (billUsd: number | null, estimateUsd: number | null): DailyCostResponse => ({
  from: '2026-11-01',
  to: '2026-11-02',
  currency: 'USD',
  metric: 'unblended',
  commitments: false,
  rows: [
    {
      day: '2026-11-01',
      nodePool: 'general',
      purchaseType: null,
      capacityType: 'on-demand',
      band: 'compute',
      billUsd,
      billUnblendedUsd: billUsd,
      billAmortizedUsd: null,
      billNetUnblendedUsd: null,
      billNetAmortizedUsd: null,
      billEstimated: false,
      estimateReservedUsd: null,
      estimateUsd,
    },
  ],
  totals: { billUsd: billUsd ?? 0, estimateUsd: estimateUsd ?? 0, storageNetworkUsd: 0 },
});

describe('periodFigures', () => {
  const rows = [
    summaryRow({ nodesAvg: 10, cpu: 0.6, memory: 0.4, idleUsdPerHourAvg: 2 }),
    summaryRow({ scope: 'nodepool', nodePool: 'general', nodesAvg: 4, cpu: 0.7, memory: 0.5, idleUsdPerHourAvg: 0.5 }),
  ];
  it('takes the cluster row without a NodePool filter', () =>
    expect(periodFigures(cost(100, 98), summary(rows), undefined)).toEqual({
      billUsd: 100,
      estimateUsd: 98,
      nodesAvg: 10,
      cpu: 0.6,
      memory: 0.4,
      idleUsdPerHour: 2,
    }));
  it("takes the NodePool's row with one", () =>
    expect(periodFigures(cost(100, 98), summary(rows), 'general')).toMatchObject({ nodesAvg: 4, cpu: 0.7 }));
  it('has nothing for a period before the data (no hours covered, no lines)', () =>
    expect(periodFigures(cost(null, null), summary(rows, 0), undefined)).toEqual({
      billUsd: null,
      estimateUsd: null,
      nodesAvg: null,
      cpu: null,
      memory: null,
      idleUsdPerHour: null,
    }));
});

describe('compareFigures', () => {
  const previous: PeriodFigures = { billUsd: 200, estimateUsd: 190, nodesAvg: 10, cpu: 0.5, memory: 0.4, idleUsdPerHour: 2 };
  const current: PeriodFigures = { billUsd: 150, estimateUsd: 190.5, nodesAvg: 8, cpu: 0.62, memory: 0.398, idleUsdPerHour: null };
  const byKey = Object.fromEntries(compareFigures(current, previous).map((d) => [d.key, d]));
  describe.each([
    // bill 150 vs 200: -50, -25 %, lower money is better
    { key: 'billUsd', change: -50, relative: -0.25, verdict: 'better' },
    // estimate 190.5 vs 190: +0.5, +0.26 % (< 0.5 %): same
    { key: 'estimateUsd', change: 0.5, relative: 0.5 / 190, verdict: 'same' },
    // nodes: a count, neither better nor worse
    { key: 'nodesAvg', change: -2, relative: -0.2, verdict: 'same' },
    // cpu 62 % vs 50 %: +12 points, better
    { key: 'cpu', change: 0.12, relative: 0.24, verdict: 'better' },
    // memory 39.8 % vs 40 %: -0.2 points (< 0.5): same
    { key: 'memory', change: -0.002, relative: -0.005, verdict: 'same' },
    { key: 'idleUsdPerHour', change: null, relative: null, verdict: 'unknown' },
  ])('$key', ({ key, change, relative, verdict }) => {
    it(`changes by ${change} (${verdict})`, () => {
      const d = byKey[key];
      if (change === null) expect(d?.change).toBeNull();
      else expect(d?.change).toBeCloseTo(change, 10);
      if (relative === null) expect(d?.relative).toBeNull();
      else expect(d?.relative).toBeCloseTo(relative, 10);
      expect(d?.verdict).toBe(verdict);
    });
  });
  it('calls a rise in cost worse', () => expect(compareFigures({ ...previous, billUsd: 220 }, previous)[0]?.verdict).toBe('worse'));
});
