import { describe, expect, it } from 'vitest';
import { lastIndexAtOrBefore } from './time-search.js';

const atOf = (p: { at: number }): number => p.at;
const points = (...ats: number[]) => ats.map((at) => ({ at }));

describe('lastIndexAtOrBefore', () => {
  it.each([
    // items (times)      t      index: worked by hand
    [[], 5, -1], //                 nothing at all
    [[10], 9, -1], //               before the only point
    [[10], 10, 0], //               exactly on it
    [[10], 11, 0], //               after it
    [[10, 20, 30], 5, -1], //       before the first
    [[10, 20, 30], 10, 0],
    [[10, 20, 30], 19, 0], //       between 10 and 20: 10 is in effect
    [[10, 20, 30], 20, 1],
    [[10, 20, 30], 29, 1],
    [[10, 20, 30], 30, 2],
    [[10, 20, 30], 1e15, 2], //     far past the last
    [[10, 20, 20, 20, 30], 20, 3], // equal times: the last of them
    [[10, 20, 20, 20, 30], 19, 0],
    [[-5, 0, 5], 0, 1], //          negative and zero times
    [[1, 2, 3, 4, 5, 6, 7, 8], 6.5, 5], // an even length: the upper half is searched
  ] as const)('times %j, t = %d -> %d', (ats, t, index) => {
    expect(lastIndexAtOrBefore(points(...ats), t, atOf)).toBe(index);
  });

  it('reads the time through the accessor (a field named otherwise)', () => {
    const rows = [{ atMs: 100 }, { atMs: 200 }];
    expect(lastIndexAtOrBefore(rows, 150, (r) => r.atMs)).toBe(0);
    expect(lastIndexAtOrBefore(rows, 200, (r) => r.atMs)).toBe(1);
  });

  it('agrees with a linear scan over 500 seeded random sorted lists', () => {
    let seed = 42;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 500; round++) {
      const ats = Array.from({ length: next(12) }, () => next(50)).sort((a, b) => a - b);
      const t = next(60) - 5;
      expect(lastIndexAtOrBefore(points(...ats), t, atOf), `times ${ats.join(',')} t=${t}`).toBe(ats.findLastIndex((at) => at <= t));
    }
  });
});
