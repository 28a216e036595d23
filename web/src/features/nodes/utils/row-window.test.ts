import { describe, expect, it } from 'vitest';
import { chunksOf, rowWindow } from './row-window';

describe('rowWindow', () => {
  describe.each([
    // 600 px of 48 px rows from the top: rows 0..12.5 in view -> 0..13, +5 below.
    { scrolledPx: 0, viewportPx: 600, rowPx: 48, count: 5000, overscan: 5, expected: { start: 0, end: 18 } },
    // Scrolled 48,000 px = row 1000 at the top; 1000 + 600/48 = 1012.5 -> 1013; 5 either side.
    { scrolledPx: 48_000, viewportPx: 600, rowPx: 48, count: 5000, overscan: 5, expected: { start: 995, end: 1018 } },
    // At the bottom: 5000 rows end at 240,000 px; the viewport's last 600 px show rows 4987.5..5000.
    { scrolledPx: 239_400, viewportPx: 600, rowPx: 48, count: 5000, overscan: 5, expected: { start: 4982, end: 5000 } },
    // Fewer rows than the screen holds: all of them.
    { scrolledPx: 0, viewportPx: 600, rowPx: 48, count: 7, overscan: 5, expected: { start: 0, end: 7 } },
    // Scrolled past the end (the count shrank under a search): the last row at least, never an empty window.
    { scrolledPx: 48_000, viewportPx: 600, rowPx: 48, count: 20, overscan: 5, expected: { start: 19, end: 20 } },
    { scrolledPx: 0, viewportPx: 600, rowPx: 48, count: 0, overscan: 5, expected: { start: 0, end: 0 } },
  ])('scrolled $scrolledPx px of $count rows', ({ expected, ...input }) =>
    it(`-> ${expected.start}..${expected.end}`, () => expect(rowWindow(input)).toEqual(expected)),
  );
});

describe('chunksOf', () => {
  it('rows 995..1018 of 100-row chunks: chunks 9 and 10', () => expect(chunksOf({ start: 995, end: 1018 }, 100)).toEqual([9, 10]));
  it('rows 0..18: chunk 0', () => expect(chunksOf({ start: 0, end: 18 }, 100)).toEqual([0]));
  it('rows 100..200 end at 199: chunk 1 only', () => expect(chunksOf({ start: 100, end: 200 }, 100)).toEqual([1]));
  it('nothing drawn yet: chunk 0, whose answer says how many rows there are', () =>
    expect(chunksOf({ start: 0, end: 0 }, 100)).toEqual([0]));
});
