import { describe, expect, it } from 'vitest';
import { budgetBars, budgetLevel, declarationOf, EMPTY_FORM, formFromBudget } from './budget-form';

describe('declarationOf', () => {
  it('turns percents into shares and leaves a cluster unnamed', () => {
    expect(
      declarationOf({ ...EMPTY_FORM, name: ' c ', scopeKind: 'cluster', scopeName: 'x', amount: '250.5', thresholds: '50, 90%,100' }),
    ).toEqual({
      body: {
        name: 'c',
        scope: { kind: 'cluster' },
        period: 'monthly',
        amount: 250.5,
        costMetric: 'unblended',
        thresholds: [0.5, 0.9, 1],
        dollarLimit: false,
      },
    });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'a', amount: '-5' }, 'amount'],
    [{ name: 'a', amount: '5', thresholds: 'eighty' }, 'thresholds'],
    [{ name: 'a', amount: '5', scopeName: '' }, 'scopeName'],
  ])('%o: names %s', (patch, field) => {
    expect(declarationOf({ ...EMPTY_FORM, ...patch })).toMatchObject({ field });
  });

  it('a dollar limit only on a NodePool', () => {
    const d = declarationOf({ ...EMPTY_FORM, name: 't', scopeKind: 'team', scopeName: 'payments', amount: '5', dollarLimit: true });
    expect('body' in d && d.body.dollarLimit).toBe(false);
  });
});

describe('formFromBudget and budgetBars', () => {
  const budget = {
    name: 'general',
    scope: { kind: 'nodepool' as const, name: 'general' },
    period: 'monthly' as const,
    amount: 300,
    currency: 'USD' as const,
    costMetric: 'amortized' as const,
    thresholds: [0.8, 1],
    dollarLimit: true,
    source: 'file' as const,
    sourceFile: 'budgets.yaml',
  };
  it('shows thresholds as percents', () => {
    expect(formFromBudget(budget)).toMatchObject({ amount: '300', thresholds: '80, 100', costMetric: 'amortized', dollarLimit: true });
  });
  it('gives spent and forecast in percent of the amount, with the spread: 150/300, 330/300 (300..360)', () => {
    const bars = budgetBars([
      {
        budget,
        periodStart: '',
        periodEnd: '',
        spent: 150,
        spentFinal: 100,
        spentEstimated: 50,
        finalDays: 2,
        estimatedDays: 1,
        forecast: 330,
        forecastLow: 300,
        forecastHigh: 360,
        forecastMethod: '',
        spentShare: 0.5,
        forecastShare: 1.1,
        nodesBeforeLimit: 0,
        limitNote: null,
      },
    ]);
    expect(bars.map((b) => b.name)).toEqual(['general']);
    expect(bars[0]?.spentPct).toBeCloseTo(50, 9);
    expect(bars[0]?.forecastPct).toBeCloseTo(110, 9);
    expect(bars[0]?.spread[0]).toBeCloseTo(100, 9);
    expect(bars[0]?.spread[1]).toBeCloseTo(120, 9);
  });
  it.each([
    [0.5, 'ok'],
    [0.8, 'warn'],
    [1.2, 'over'],
  ] as const)('level at %s of [0.8, 1]: %s', (share, level) => {
    expect(budgetLevel(share, [0.8, 1])).toBe(level);
  });
});
