import { describe, expect, it } from 'vitest';
import type { StatusResponse } from '@schemas/status';
import { storeText } from './store-text';

const store = (over: Partial<StatusResponse['store']> = {}): StatusResponse['store'] => ({
  fileBytes: 3 * 2 ** 30 + 2 ** 29,
  freeBytes: 0,
  autoVacuum: 'incremental',
  rawRetention: '14d',
  retention: '13mo',
  rawFrom: '2026-11-01T10:05:00.000Z',
  hourlyFrom: '2025-10-01T00:00:00.000Z',
  hourlyTo: '2026-11-01T10:00:00.000Z',
  lastRun: null,
  ...over,
});

describe('storeText', () => {
  it.each([
    [
      'folded: the hourly span, then the 5-minute one',
      store(),
      'Database 3.5 GiB · hourly Oct 1 00:00 UTC – Nov 1 10:00 UTC · 5-minute from Nov 1 10:05 UTC · 5-minute snapshots kept 14d, then hourly; everything kept 13mo',
    ],
    [
      'nothing folded yet',
      store({ fileBytes: 23 * 2 ** 20, hourlyFrom: null, hourlyTo: null }),
      'Database 23 MiB · 5-minute from Nov 1 10:05 UTC · 5-minute snapshots kept 14d, then hourly; everything kept 13mo',
    ],
    [
      'a file made before incremental vacuum, whose last pass failed',
      store({
        autoVacuum: 'none',
        rawFrom: null,
        hourlyFrom: null,
        hourlyTo: null,
        lastRun: {
          at: '2026-11-01T10:00:00.000Z',
          folded: 0,
          pending: 12,
          deleted: 0,
          pagesFreed: 0,
          longestTransactionMs: 0,
          rawBoundary: '2026-10-18T10:00:00.000Z',
          horizon: '2025-09-25T00:00:00.000Z',
          error: 'database or disk is full',
        },
      }),
      'Database 3.5 GiB · 5-minute snapshots kept 14d, then hourly; everything kept 13mo · does not shrink yet (the next collect switches on incremental vacuum) · last retention pass failed: database or disk is full',
    ],
  ])('%s', (_name, s, text) => {
    expect(storeText(s)).toBe(text);
  });
});
