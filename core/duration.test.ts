import { describe, expect, it } from 'vitest';
import { NEVER, parseCalendarDuration, parseGoDuration, parseKarpenterDuration } from './duration.js';

describe('parseGoDuration (Go time.ParseDuration, in ms)', () => {
  it.each([
    ['720h', 720 * 3_600_000], // expireAfter default: 30 days
    ['168h', 168 * 3_600_000],
    ['30m', 30 * 60_000],
    ['1m', 60_000],
    ['60s', 60_000],
    ['1h30m', 90 * 60_000],
    ['1h0m0s', 3_600_000], // how Go prints an hour
    ['2h45m10s', (2 * 3600 + 45 * 60 + 10) * 1000],
    ['1.5h', 90 * 60_000],
    ['.5m', 30_000],
    ['1.h', 3_600_000],
    ['300ms', 300],
    ['1500us', 1.5],
    ['1500\u00b5s', 1.5],
    ['2000000ns', 2],
    ['-30s', -30_000],
    ['+5m', 300_000],
    ['0', 0],
    ['0s', 0],
    ['8h', 8 * 3_600_000], // a budget's duration in Karpenter's docs
  ])('%s = %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(['', '1', '10', 'h', '.h', '1d', '1w', '30 m', ' 30m', '1h 30m', '1hour', 'Never', '1..5h', '--1s', 'm30'])(
    '"%s" is not a Go duration',
    (text) => {
      expect(parseGoDuration(text)).toBeNull();
    },
  );
});

describe('parseKarpenterDuration (NillableDuration)', () => {
  it.each([
    ['720h', 2_592_000_000],
    ['1m', 60_000],
    [NEVER, Number.POSITIVE_INFINITY],
  ])('%s', (text, ms) => {
    expect(parseKarpenterDuration(text)).toBe(ms);
  });
  it.each(['never', 'NEVER', '30d', ''])('"%s" is refused (the word is case-sensitive, Go has no days)', (text) => {
    expect(parseKarpenterDuration(text)).toBeNull();
  });
});

describe('parseCalendarDuration (Go units plus d and w, for the CLI)', () => {
  it.each([
    ['90d', 90 * 86_400_000],
    ['2w', 14 * 86_400_000],
    ['1d12h', 36 * 3_600_000],
    ['5m', 300_000],
    ['500ms', 500],
  ])('%s = %d ms', (text, ms) => {
    expect(parseCalendarDuration(text)).toBe(ms);
  });
  it.each(['90', 'd', '1y', '3 days'])('"%s" is refused', (text) => {
    expect(parseCalendarDuration(text)).toBeNull();
  });
});
