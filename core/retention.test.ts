import { describe, expect, it } from 'vitest';
import { horizonMs, parseRetentionPeriod, periodStartMs, rawBoundaryMs, RetentionSettingError, retentionSettings } from './retention.js';
import { DAY_MS, HOUR_MS, WEEK_MS } from './time.js';

const at = (iso: string): number => Date.parse(iso);

describe('parseRetentionPeriod', () => {
  it.each([
    ['14d', 14 * DAY_MS, 0],
    ['36h', 36 * HOUR_MS, 0],
    ['2w', 2 * WEEK_MS, 0],
    ['1d12h', 36 * HOUR_MS, 0],
    ['13mo', 0, 13],
    ['1y', 0, 12],
    [' 2y ', 0, 24],
  ])('%s', (text, ms, months) => {
    expect(parseRetentionPeriod(text)).toMatchObject({ ms, months });
  });

  it.each(['', '0', '0d', '-3d', '13', 'mo', '13 months', '1.5mo', '0mo', 'forever'])('refuses %j', (text) => {
    expect(parseRetentionPeriod(text)).toBeNull();
  });
});

describe('periodStartMs: months by the UTC calendar', () => {
  it.each([
    ['2027-03-31T10:20:00Z', '13mo', '2026-02-28T10:20:00Z'], // no 31 February: its last day
    ['2028-03-31T00:00:00Z', '1mo', '2028-02-29T00:00:00Z'], // a leap year's
    ['2027-01-15T06:00:00Z', '13mo', '2025-12-15T06:00:00Z'], // back over two year ends
    ['2027-01-15T06:00:00Z', '1y', '2026-01-15T06:00:00Z'],
    ['2027-01-15T06:00:00Z', '14d', '2027-01-01T06:00:00Z'],
  ])('%s less %s is %s', (now, period, expected) => {
    const p = parseRetentionPeriod(period);
    if (p === null) throw new Error(period);
    expect(new Date(periodStartMs(at(now), p)).toISOString()).toBe(new Date(at(expected)).toISOString());
  });
});

describe('retentionSettings', () => {
  it('defaults to 14 days of 5-minute rows and 13 months of everything', () => {
    expect(retentionSettings(undefined, undefined)).toMatchObject({
      raw: { text: '14d', ms: 14 * DAY_MS },
      keep: { text: '13mo', months: 13 },
    });
  });

  it.each([
    ['x', undefined, '--raw-retention must be a length of time like 14d, 36h or 2w, got "x"'],
    [undefined, '13 months', '--retention must be a length of time like 13mo, 1y, 400d or 8w, got "13 months"'],
    ['90m', undefined, '--raw-retention must be at least 2h (an hour is folded once it is over and its usage rolled up), got "90m"'],
    ['1d', '12h', '--retention must be at least 1d, got "12h"'],
    [
      '60d',
      '1mo',
      '--raw-retention (60d) must not be longer than --retention (1mo): 5-minute rows are folded into hourly ones, never kept past the hourly ones',
    ],
  ])('refuses --raw-retention %j --retention %j, saying why', (raw, keep, message) => {
    expect(() => retentionSettings(raw, keep)).toThrow(new RetentionSettingError(message));
  });

  it('takes a raw retention as long as the retention', () => {
    expect(retentionSettings('30d', '30d').raw.ms).toBe(30 * DAY_MS);
  });
});

describe('the instants retention cuts at', () => {
  const raw = retentionSettings('1d', '8w');

  it('folds whole hours older than the raw retention, never the hour of the newest snapshot', () => {
    const now = at('2027-01-15T06:40:00Z');
    expect(new Date(rawBoundaryMs(now, raw.raw, now - 60_000)).toISOString()).toBe('2027-01-14T06:00:00.000Z');
    // A collector that stopped for two days: its last snapshot (standing for no time yet) and its hour stay as taken.
    expect(new Date(rawBoundaryMs(now, raw.raw, at('2027-01-12T23:55:00Z'))).toISOString()).toBe('2027-01-12T23:00:00.000Z');
    expect(rawBoundaryMs(now, raw.raw, null)).toBe(at('2027-01-14T06:00:00Z'));
  });

  it('deletes before a multiple of 7 days from the epoch at or before now less the retention (as the week rollups cut)', () => {
    const now = at('2027-01-15T06:40:00Z');
    const h = horizonMs(now, raw.keep);
    expect(h % WEEK_MS).toBe(0);
    expect(h).toBeLessThanOrEqual(now - 8 * WEEK_MS);
    expect(h).toBeGreaterThan(now - 9 * WEEK_MS);
    // 1970-01-01 was a Thursday: so is every cut.
    expect(new Date(h).getUTCDay()).toBe(4);
  });
});
