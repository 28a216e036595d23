import { describe, expect, it } from 'vitest';
import { budgetPeriodAt } from './budget-period.js';
import { forecastBudget, nodesBeforeLimit } from './budget-forecast.js';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const at = (iso: string) => Date.parse(iso);

describe('budgetPeriodAt: UTC months and ISO weeks (Monday 00:00 UTC)', () => {
  it.each([
    ['monthly', '2026-11-10T12:00:00Z', '2026-11-01', '2026-12-01'],
    ['monthly', '2028-02-15T00:00:00Z', '2028-02-01', '2028-03-01'], // leap February: 29 days
    ['monthly', '2026-12-31T23:59:59Z', '2026-12-01', '2027-01-01'],
    ['weekly', '2026-12-02T06:00:00Z', '2026-11-30', '2026-12-07'], // a Wednesday; 2026-11-30 is a Monday
    ['weekly', '2026-12-06T23:00:00Z', '2026-11-30', '2026-12-07'], // Sunday closes the ISO week
    ['weekly', '2026-11-30T00:00:00Z', '2026-11-30', '2026-12-07'], // Monday 00:00 opens it
  ] as const)('%s at %s: [%s, %s)', (period, when, start, end) => {
    expect(budgetPeriodAt(period, at(when))).toEqual({ startMs: day(start), endMs: day(end) });
  });
});

describe('forecastBudget (worked by hand)', () => {
  it('November, looked at on the 10th at noon: 7 newest final days average 100/day (80..120)', () => {
    // Final: Oct 31 80 (before the period: only in the average), Nov 1 100, 2 100, 3 90, 4 110, 5 100, 6 120.
    // Estimated: Nov 7, 8, 9 at 130. Today so far 60 (12 h at 5/h).
    const days = [
      ['2026-10-31', 80, true],
      ['2026-11-01', 100, true],
      ['2026-11-02', 100, true],
      ['2026-11-03', 90, true],
      ['2026-11-04', 110, true],
      ['2026-11-05', 100, true],
      ['2026-11-06', 120, true],
      ['2026-11-07', 130, false],
      ['2026-11-08', 130, false],
      ['2026-11-09', 130, false],
    ].map(([d, amount, final]) => ({ dayStartMs: day(d as string), amount: amount as number, final: final as boolean }));
    const f = forecastBudget({
      periodStartMs: day('2026-11-01'),
      periodEndMs: day('2026-12-01'),
      atMs: at('2026-11-10T12:00:00Z'),
      days,
      todaySoFar: 60,
      runRatePerHour: 5,
    });
    // spent: final 100+100+90+110+100+120 = 620; estimated 3×130 + 60 = 450.
    expect(f.spentFinal).toBeCloseTo(620, 9);
    expect(f.spentEstimated).toBeCloseTo(450, 9);
    expect(f.spent).toBeCloseTo(1070, 9);
    expect([f.finalDays, f.estimatedDays]).toEqual([6, 3]);
    // average of Nov 6..Oct 31: (120+100+110+90+100+100+80)/7 = 700/7 = 100.
    expect(f.dailyAverage).toBeCloseTo(100, 9);
    expect(f.averageDays).toBe(7);
    // 1070 + 12 h × 5 + 20 days (Nov 11..30) × 100 = 3130.
    expect(f.forecast).toBeCloseTo(3130, 9);
    // low: 1070 + 12 × min(5, 80/24) + 20 × 80 = 1070 + 40 + 1600 = 2710; high: 1070 + 12 × 5 + 20 × 120 = 3530.
    expect(f.forecastLow).toBeCloseTo(2710, 9);
    expect(f.forecastHigh).toBeCloseTo(3530, 9);
    expect(f.forecastMethod).toContain('average of the 7 newest final days on the bill');
    expect(f.forecastMethod).toContain("today's run-rate of 5.00/h");
  });

  it('a week with no final day yet averages the estimated days (Wednesday 06:00)', () => {
    const days = [
      { dayStartMs: day('2026-11-29'), amount: 60, final: false },
      { dayStartMs: day('2026-11-30'), amount: 50, final: false },
      { dayStartMs: day('2026-12-01'), amount: 70, final: false },
    ];
    const f = forecastBudget({
      periodStartMs: day('2026-11-30'),
      periodEndMs: day('2026-12-07'),
      atMs: at('2026-12-02T06:00:00Z'),
      days,
      todaySoFar: 15,
      runRatePerHour: 2.5,
    });
    // spent 50 + 70 + 15 = 135, all estimated; average (70+50+60)/3 = 60, low 50, high 70.
    expect(f.spent).toBeCloseTo(135, 9);
    expect([f.spentFinal, f.finalDays, f.estimatedDays]).toEqual([0, 0, 2]);
    // 135 + 18 h × 2.5 + 4 days (Thu..Sun) × 60 = 135 + 45 + 240 = 420.
    expect(f.forecast).toBeCloseTo(420, 9);
    // low: 135 + 18 × min(2.5, 50/24) + 4 × 50 = 135 + 37.5 + 200; high: 135 + 18 × max(2.5, 70/24) + 4 × 70 = 135 + 52.5 + 280.
    expect(f.forecastLow).toBeCloseTo(372.5, 9);
    expect(f.forecastHigh).toBeCloseTo(467.5, 9);
    expect(f.forecastMethod).toContain('estimated days (none final yet)');
  });

  it("the first day of data: today's run-rate × 24 for the days left, no spread", () => {
    const f = forecastBudget({
      periodStartMs: day('2026-12-01'),
      periodEndMs: day('2027-01-01'),
      atMs: at('2026-12-01T06:00:00Z'),
      days: [],
      todaySoFar: 30,
      runRatePerHour: 5,
    });
    // 30 + 18 h × 5 + 30 days × 120 = 30 + 90 + 3600 = 3720.
    expect(f.forecast).toBeCloseTo(3720, 9);
    expect(f.forecastLow).toBeCloseTo(3720, 9);
    expect(f.forecastHigh).toBeCloseTo(3720, 9);
    expect(f.dailyAverage).toBeNull();
  });
});

describe('nodesBeforeLimit (worked by hand)', () => {
  it.each([
    // 4 nodes at 2.00/h together (0.50 per node-hour), 100 h left: they cost 200 more; each node more costs 50.
    // room 10000 - 6000 - 200 = 3800 -> 76 nodes.
    [{ amount: 10000, spent: 6000, runningNodes: 4, runningCostPerHour: 2, hoursLeft: 100 }, 76],
    // room exactly 50: one node fits.
    [{ amount: 6250, spent: 6000, runningNodes: 4, runningCostPerHour: 2, hoursLeft: 100 }, 1],
    // the running nodes alone go over: none fits.
    [{ amount: 6100, spent: 6000, runningNodes: 4, runningCostPerHour: 2, hoursLeft: 100 }, 0],
    // no node runs: no mix to price.
    [{ amount: 6100, spent: 6000, runningNodes: 0, runningCostPerHour: 0, hoursLeft: 100 }, null],
  ])('%o -> %s', (input, expected) => {
    expect(nodesBeforeLimit(input)).toBe(expected);
  });
});
