import type { ResultByTime } from '@aws-sdk/client-cost-explorer';
import { describe, expect, it } from 'vitest';
import { mapCostPeriods, mergePages, periodStartMs, tagValueOfKey } from './map.js';

// Real-shaped GetCostAndUsage pages: grouped (Total {}), the untagged key, one period split across two pages.
const page1: ResultByTime[] = [
  {
    TimePeriod: { Start: '2026-11-02', End: '2026-11-03' },
    Total: {},
    Groups: [
      {
        Keys: ['karpenter.sh/nodepool$', 'On Demand Instances'],
        Metrics: {
          AmortizedCost: { Amount: '4.608', Unit: 'USD' },
          UnblendedCost: { Amount: '4.608', Unit: 'USD' },
          UsageQuantity: { Amount: '24', Unit: 'Hrs' },
        },
      },
    ],
    Estimated: false,
  },
];
const page2: ResultByTime[] = [
  {
    TimePeriod: { Start: '2026-11-02', End: '2026-11-03' },
    Total: {},
    Groups: [
      {
        Keys: ['karpenter.sh/nodepool$general', 'On Demand Instances'],
        Metrics: {
          AmortizedCost: { Amount: '0.96', Unit: 'USD' },
          UnblendedCost: { Amount: '0.96', Unit: 'USD' },
          UsageQuantity: { Amount: '10', Unit: 'Hrs' },
        },
      },
    ],
    Estimated: false,
  },
  { TimePeriod: { Start: '2026-11-14', End: '2026-11-15' }, Total: {}, Groups: [], Estimated: true },
];

describe.each([
  ['karpenter.sh/nodepool$general', 'general'],
  ['karpenter.sh/nodepool$', ''],
  ['karpenter.sh/nodepool$a$b', 'a$b'],
  ['team$x', null],
])('tagValueOfKey(%s)', (key, value) => {
  it(`is ${String(value)}`, () => expect(tagValueOfKey(key)).toBe(value));
});

describe('mapCostPeriods', () => {
  const ctx = { source: 'cost-explorer', granularity: 'DAILY' as const, groupBy: 'PURCHASE_TYPE' as const, fetchedAt: 42 };

  it('merges a period split across pages and maps keys, amounts and the estimated flag', () => {
    const merged = mergePages([page1, page2]);
    expect(merged.map((p) => [p.start, p.groups.length, p.estimated])).toEqual([
      ['2026-11-02', 2, false],
      ['2026-11-14', 0, true],
    ]);
    const { lines, periods } = mapCostPeriods(merged, ctx);
    expect(lines).toEqual([
      {
        source: 'cost-explorer',
        granularity: 'DAILY',
        periodStart: '2026-11-02',
        periodStartMs: Date.UTC(2026, 10, 2),
        groupBy: 'PURCHASE_TYPE',
        nodePool: '',
        dimensionValue: 'On Demand Instances',
        unblendedUsd: 4.608,
        amortizedUsd: 4.608,
        // This page asked for no net metrics: unknown, not zero.
        netUnblendedUsd: null,
        netAmortizedUsd: null,
        usageQuantity: 24,
        usageUnit: 'Hrs',
        estimated: false,
        fetchedAt: 42,
        currency: 'USD',
      },
      expect.objectContaining({ nodePool: 'general', unblendedUsd: 0.96, usageQuantity: 10 }),
    ]);
    // An empty period is still recorded as fetched (so a final empty day is not asked for again).
    expect(periods).toEqual([
      { periodStart: '2026-11-02', periodStartMs: Date.UTC(2026, 10, 2), estimated: false, totalUnblendedUsd: 4.608 + 0.96 },
      { periodStart: '2026-11-14', periodStartMs: Date.UTC(2026, 10, 14), estimated: true, totalUnblendedUsd: 0 },
    ]);
  });

  it('keeps a metric the query did not ask for as null, not zero', () => {
    const merged = mergePages([
      [
        {
          TimePeriod: { Start: '2026-11-02', End: '2026-11-03' },
          Groups: [{ Keys: ['karpenter.sh/nodepool$general', 'm5.large'], Metrics: { UnblendedCost: { Amount: '1.5', Unit: 'USD' } } }],
          Estimated: false,
        },
      ],
    ]);
    expect(mapCostPeriods(merged, { ...ctx, groupBy: 'INSTANCE_TYPE' }).lines[0]).toMatchObject({
      dimensionValue: 'm5.large',
      unblendedUsd: 1.5,
      amortizedUsd: null,
      usageQuantity: null,
      usageUnit: null,
    });
  });

  it('refuses groups that are not [nodepool tag, dimension]', () => {
    const merged = mergePages([
      [{ TimePeriod: { Start: '2026-11-02', End: '2026-11-03' }, Groups: [{ Keys: ['On Demand Instances'], Metrics: {} }] }],
    ]);
    expect(() => mapCostPeriods(merged, ctx)).toThrow(/unexpected Cost Explorer group keys/);
  });

  it.each([
    ['2026-11-02', Date.UTC(2026, 10, 2)],
    ['2026-11-02T05:00:00Z', Date.UTC(2026, 10, 2, 5)],
  ])('reads period start %s', (text, ms) => expect(periodStartMs(text)).toBe(ms));
});
