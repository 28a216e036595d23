import { afterEach, describe, expect, it } from 'vitest';
import {
  currencyCode,
  formatUsd,
  setDisplayCurrency,
  formatAgo,
  formatBytes,
  formatUtcSpan,
  formatDayShort,
  formatMillicores,
  formatSignedFraction,
  formatUsdPerHour,
  formatUtcDateTime,
  nodePoolLabel,
} from './format';

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

describe('resource and price formats', () => {
  describe.each([
    { v: 1.5 * 2 ** 30, f: formatBytes, expected: '1.5 GiB' },
    { v: 16 * 2 ** 30, f: formatBytes, expected: '16 GiB' },
    { v: 512 * 2 ** 20, f: formatBytes, expected: '512 MiB' },
    { v: 250, f: formatMillicores, expected: '250m' },
    { v: 3920, f: formatMillicores, expected: '3.92 vCPU' },
    { v: 0.0416, f: formatUsdPerHour, expected: '$0.0416' },
    { v: 1.536, f: formatUsdPerHour, expected: '$1.54' },
  ])('$v', ({ v, f, expected }) => it(`-> ${expected}`, () => expect(f(v)).toBe(expected)));
});

describe('formatUtcSpan', () => {
  describe.each([
    { from: '2026-11-14T00:00:00.000Z', to: '2026-11-15T00:00:00.000Z', expected: '00:00–24:00' },
    { from: '2026-11-14T10:15:00.000Z', to: '2026-11-14T17:00:00.000Z', expected: '10:15–17:00' },
    { from: '2026-11-14T00:00:00.000Z', to: '2026-11-14T00:00:00.000Z', expected: '00:00–00:00' },
  ])('$from .. $to', ({ from, to, expected }) => it(`-> ${expected}`, () => expect(formatUtcSpan(from, to)).toBe(expected)));
});

describe('money in the data currency', () => {
  afterEach(() => setDisplayCurrency('USD'));
  it.each([
    ['USD', 0.0416, '$0.0416', 2.5, '$2.50'],
    ['CNY', 0.483, 'CN¥0.4830', 1234.5, 'CN¥1,234.50'],
  ] as const)('%s', (currency, hourly, hourlyText, amount, amountText) => {
    setDisplayCurrency(currency);
    expect(currencyCode()).toBe(currency);
    expect(formatUsdPerHour(hourly)).toBe(hourlyText);
    expect(formatUsd(amount)).toBe(amountText);
  });
});
