import { describe, expect, it } from 'vitest';
import { openDb } from '../open-db.js';
import { type CostLine, createCostLinesRepository } from './cost-lines-repository.js';

const line = (o: Partial<CostLine>): CostLine => ({
  source: 'cost-explorer',
  granularity: 'DAILY',
  periodStart: '2026-11-02',
  periodStartMs: Date.UTC(2026, 10, 2),
  groupBy: 'PURCHASE_TYPE',
  nodePool: 'general',
  dimensionValue: 'On Demand Instances',
  unblendedUsd: 1,
  amortizedUsd: 1,
  usageQuantity: 10,
  usageUnit: 'Hrs',
  estimated: true,
  fetchedAt: 1,
  ...o,
});

describe('cost lines repository', () => {
  it('upserts by the UNIQUE key: a refreshed estimate replaces the earlier line', () => {
    const repo = createCostLinesRepository(openDb({ path: ':memory:' }));
    repo.upsertCostLines([line({}), line({ dimensionValue: 'Spot Instances', unblendedUsd: 0.5 })]);
    repo.upsertCostLines([line({ unblendedUsd: 1.25, estimated: false, fetchedAt: 2 })]);
    const rows = repo.listCostLines({
      source: 'cost-explorer',
      granularity: 'DAILY',
      groupBy: 'PURCHASE_TYPE',
      fromMs: 0,
      toMs: Date.UTC(2027, 0),
    });
    expect(rows.map((r) => [r.dimensionValue, r.unblendedUsd, r.estimated, r.fetchedAt])).toEqual([
      ['On Demand Instances', 1.25, false, 2],
      ['Spot Instances', 0.5, true, 1],
    ]);
  });

  it('sums per day, NodePool and purchase type, hourly lines included when asked', () => {
    const repo = createCostLinesRepository(openDb({ path: ':memory:' }));
    const hour = (h: number, usd: number) =>
      line({
        granularity: 'HOURLY',
        periodStart: `2026-11-02T0${h}:00:00Z`,
        periodStartMs: Date.UTC(2026, 10, 2, h),
        unblendedUsd: usd,
        amortizedUsd: usd,
        usageQuantity: 1,
      });
    repo.upsertCostLines([hour(1, 0.25), hour(2, 0.5), hour(3, 0.125)]);
    expect(repo.costPerNodePoolPerDay({ fromMs: 0, toMs: Date.UTC(2027, 0), granularity: 'HOURLY' })).toEqual([
      {
        dayMs: Date.UTC(2026, 10, 2),
        day: '2026-11-02',
        nodePool: 'general',
        purchaseType: 'On Demand Instances',
        unblendedUsd: 0.875,
        amortizedUsd: 0.875,
        usageQuantity: 3,
        estimated: true,
      },
    ]);
  });

  it('replaces whole periods: a group gone from the refreshed period is removed; coverage marks final days', () => {
    const repo = createCostLinesRepository(openDb({ path: ':memory:' }));
    const batch = (lines: CostLine[], estimated: boolean) => ({
      source: 'cost-explorer',
      granularity: 'DAILY' as const,
      groupBy: 'PURCHASE_TYPE' as const,
      fetchedAt: 3,
      periods: [{ periodStart: '2026-11-02', periodStartMs: Date.UTC(2026, 10, 2), estimated, totalUnblendedUsd: 0 }],
      lines,
    });
    repo.replaceCostPeriods(batch([line({}), line({ nodePool: 'gone' })], true));
    repo.replaceCostPeriods(batch([line({ estimated: false })], false));
    const q = {
      source: 'cost-explorer',
      granularity: 'DAILY' as const,
      groupBy: 'PURCHASE_TYPE' as const,
      fromMs: 0,
      toMs: Date.UTC(2027, 0),
    };
    expect(repo.listCostLines(q).map((r) => r.nodePool)).toEqual(['general']);
    expect([...repo.finalPeriodStarts(q)]).toEqual(['2026-11-02']);
    expect(repo.latestFinalPeriod(q)).toBe('2026-11-02');
  });
});
