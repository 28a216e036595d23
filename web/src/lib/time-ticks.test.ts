import { describe, expect, it } from 'vitest';
import { timeTicks } from './time-ticks';

describe('timeTicks', () => {
  const day = (d: number) => Date.parse(`2026-11-${String(d).padStart(2, '0')}T00:00:00Z`);
  describe.each([
    // 7 days: 7 ticks of 1 day fit in 12 -> every UTC midnight, both ends included.
    { what: '7 days', from: day(1), to: day(8), expected: [1, 2, 3, 4, 5, 6, 7, 8].map(day) },
    // 14 days: 1 day would be 14 > 12 -> every 2 days, aligned on the epoch (2026-11-01 is epoch day 20758, even).
    { what: '14 days', from: day(1), to: day(15), expected: [1, 3, 5, 7, 9, 11, 13, 15].map(day) },
    // 12 h: 1 h steps, 13 ticks would be 12 intervals -> fits (span / step = 12).
    { what: '12 hours', from: day(1), to: day(1) + 12 * 3_600_000, expected: Array.from({ length: 13 }, (_, i) => day(1) + i * 3_600_000) },
    { what: 'empty', from: day(1), to: day(1), expected: [] },
  ])('$what', ({ from, to, expected }) => {
    it('ticks on round UTC times', () => expect(timeTicks(from, to)).toEqual(expected));
  });
});
