import { describe, expect, it } from 'vitest';
import { costOverSpan, type PricePoint } from './price-timeline.js';

const T = (s: string): number => Date.parse(s);
const spot: PricePoint[] = [
  { atMs: T('2026-11-03T00:00:00Z'), usdPerHour: 0.07, source: 'spot-history' },
  { atMs: T('2026-11-03T04:30:00Z'), usdPerHour: 0.08, source: 'spot-history' },
  { atMs: T('2026-11-03T09:00:00Z'), usdPerHour: 0.065, source: 'spot-history' },
];

describe('costOverSpan', () => {
  describe.each([
    // 4.5 h x 0.07 + 4.5 h x 0.08 + 3 h x 0.065 = 0.315 + 0.36 + 0.195.
    {
      what: 'three spot prices over 12 h',
      from: '2026-11-03T00:00:00Z',
      to: '2026-11-03T12:00:00Z',
      usd: 0.87,
      hours: 12,
      changes: 2,
      // Hour-start: 00-04 at 0.07 (0.28), 04-05 at 0.07 (0.07), 05-09 at 0.08 (0.32), 09-12 at 0.065 (0.195).
      hourStartUsd: 0.865,
    },
    // 30 min at 0.07 + 60 min at 0.08 = 0.035 + 0.08.
    {
      what: 'a span across one change',
      from: '2026-11-03T04:00:00Z',
      to: '2026-11-03T05:30:00Z',
      usd: 0.115,
      hours: 1.5,
      changes: 1,
      hourStartUsd: 0.07 + 0.5 * 0.08,
    },
    // Before the history starts, the first price applies: 2 h x 0.07.
    {
      what: 'a span before the first point',
      from: '2026-11-02T22:00:00Z',
      to: '2026-11-03T00:00:00Z',
      usd: 0.14,
      hours: 2,
      changes: 0,
      hourStartUsd: 0.14,
    },
    // After the last point it stays in effect: 10 h x 0.065.
    {
      what: 'a span after the last point',
      from: '2026-11-04T00:00:00Z',
      to: '2026-11-04T10:00:00Z',
      usd: 0.65,
      hours: 10,
      changes: 0,
      hourStartUsd: 0.65,
    },
  ])('$what', ({ from, to, usd, hours, changes, hourStartUsd }) => {
    it(`costs ${usd} over ${hours} h`, () => {
      const c = costOverSpan(spot, T(from), T(to));
      expect(c.usd).toBeCloseTo(usd, 12);
      expect(c.hours).toBe(hours);
      expect(c.changes).toBe(changes);
      expect(c.hourStartUsd).toBeCloseTo(hourStartUsd, 12);
      expect(c.averageUsdPerHour).toBeCloseTo(usd / hours, 12);
      expect(c.source).toBe('spot-history');
    });
  });

  it('an empty history or an empty span costs nothing and says the price is unknown', () => {
    expect(costOverSpan([], 0, 3_600_000)).toMatchObject({ usd: 0, hours: 1, source: 'unknown' });
    expect(costOverSpan(spot, T('2026-11-03T01:00:00Z'), T('2026-11-03T01:00:00Z'))).toMatchObject({ usd: 0, hours: 0 });
  });
});
