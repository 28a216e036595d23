import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '@schemas/api-routes';
import { savingsWaterfall } from './waterfall';

const row = (nodePool: string, headroomUsdPerMonth: number, spotUsdPerMonth: number) =>
  ({ nodePool, headroomUsdPerMonth, spotUsdPerMonth }) as ApiResponse<'/api/whatif/headroom'>['rows'][number];

// Today 1.00/h = 730 USD/month. general saves 146 by consolidation and 51.10 by spot; system 0 and 10.
const headroom = {
  totals: { todayUsdPerHour: 1 },
  rows: [row('general', 146, 51.1), row('system', 0, 10)],
} as ApiResponse<'/api/whatif/headroom'>;

describe('savingsWaterfall', () => {
  it('each lever floats from where the previous one ended: 730 → 584 → 532.9 → 532.9 → 522.9', () => {
    const steps = savingsWaterfall(headroom, null);
    expect(steps.map((s) => [s.label, s.kind, Number(s.baseUsd.toFixed(2)), Number(s.barUsd.toFixed(2))])).toEqual([
      ['Today', 'total', 0, 730],
      ['general · consolidation', 'saving', 584, 146],
      ['general · spot', 'saving', 532.9, 51.1],
      ['system · consolidation', 'saving', 532.9, 0],
      ['system · spot', 'saving', 522.9, 10],
      ['After', 'total', 0, 522.9],
    ]);
  });

  it('an edit that costs 20 more goes up from 522.9 to 542.9', () => {
    const steps = savingsWaterfall(headroom, { label: 'general arm64', savingsUsdPerMonth: -20 });
    const edit = steps.find((s) => s.key === 'edit');
    expect(edit).toMatchObject({ kind: 'increase', valueUsd: -20, barUsd: 20 });
    expect(edit?.baseUsd).toBeCloseTo(522.9, 9);
    expect(steps.at(-1)?.valueUsd).toBeCloseTo(542.9, 9);
  });

  it("every cluster of several: two clusters' general are two levers, keyed and labelled by cluster", () => {
    const both = {
      totals: { todayUsdPerHour: 1.5 },
      rows: [
        { ...row('general', 146, 51.1), cluster: 'week4' },
        { ...row('general', 0, 73), cluster: 'staging' },
      ],
    } as ApiResponse<'/api/whatif/headroom'>;
    const steps = savingsWaterfall(both, null);
    expect(new Set(steps.map((s) => s.key)).size).toBe(steps.length);
    // 1.5 USD/h = 1,095 a month, less 146 + 51.1 + 0 + 73 = 270.1: 824.9 after.
    expect(steps.map((s) => s.label).slice(1, 5)).toEqual([
      'week4/general · consolidation',
      'week4/general · spot',
      'staging/general · consolidation',
      'staging/general · spot',
    ]);
    expect(steps.at(-1)?.valueUsd).toBeCloseTo(824.9, 9);
  });
});
