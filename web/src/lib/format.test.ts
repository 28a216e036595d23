import { describe, expect, it } from 'vitest';
import { formatAgo, formatDayShort, formatSignedFraction, formatUtcDateTime, nodePoolLabel } from './format';

describe('formatSignedFraction', () => {
  describe.each([
    { v: -0.043, expected: '-4.3 %' },
    { v: 0.042, expected: '+4.2 %' },
    { v: -0.0001, expected: '0.0 %' }, // rounds to zero: no sign
    { v: 0, expected: '0.0 %' },
  ])('$v', ({ v, expected }) => {
    it(`-> ${expected}`, () => expect(formatSignedFraction(v)).toBe(expected));
  });
});

describe('dates are shown in UTC', () => {
  it('formats a day and an instant', () => {
    expect(formatDayShort('2026-11-01')).toBe('Nov 1');
    expect(formatUtcDateTime(Date.parse('2026-11-07T23:45:00Z'))).toBe('Nov 7 23:45');
  });
  describe.each([
    { minutesAgo: 0, expected: 'just now' },
    { minutesAgo: 3, expected: '3 min ago' },
    { minutesAgo: 180, expected: '3 h ago' },
    { minutesAgo: 3 * 24 * 60, expected: '3 days ago' },
  ])('formatAgo $minutesAgo min', ({ minutesAgo, expected }) => {
    it(`-> ${expected}`, () => {
      const now = Date.parse('2026-11-10T12:00:00Z');
      expect(formatAgo(new Date(now - minutesAgo * 60_000).toISOString(), now)).toBe(expected);
    });
  });
});

describe('nodePoolLabel', () => {
  it("names '' for what it is", () => {
    expect(nodePoolLabel('', 'bill')).toBe('(untagged)');
    expect(nodePoolLabel('', 'nodes')).toBe('(no NodePool)');
    expect(nodePoolLabel('general', 'nodes')).toBe('general');
  });
});
