import { describe, expect, it } from 'vitest';
import { coarsestFor, pieceParams, rangePieces } from './range-pieces.js';

const T = (iso: string) => Date.parse(iso);
const span = (a: string, b: string) => [T(a), T(b)];
const none = { raw: [], hours: [], quarters: [], days: [], weeks: null };

// Weeks are 7-day buckets aligned on the epoch (a Thursday): 2026-10-29, 2026-11-05, 2026-11-12, ...
describe('rangePieces', () => {
  it.each([
    [
      'whole days inside one week',
      '2026-11-06T00:00:00Z',
      '2026-11-09T00:00:00Z',
      { ...none, days: [span('2026-11-06T00:00:00Z', '2026-11-09T00:00:00Z')] },
    ],
    [
      '30 days: whole weeks with days either side',
      '2026-11-01T00:00:00Z',
      '2026-12-01T00:00:00Z',
      {
        ...none,
        days: [span('2026-11-01T00:00:00Z', '2026-11-05T00:00:00Z'), span('2026-11-26T00:00:00Z', '2026-12-01T00:00:00Z')],
        weeks: span('2026-11-05T00:00:00Z', '2026-11-26T00:00:00Z'),
      },
    ],
    [
      'weeks, days, hours and minutes either side',
      '2026-11-01T21:40:00Z',
      '2026-11-20T02:10:00Z',
      {
        raw: [span('2026-11-01T21:40:00Z', '2026-11-01T22:00:00Z'), span('2026-11-20T02:00:00Z', '2026-11-20T02:10:00Z')],
        hours: [span('2026-11-01T22:00:00Z', '2026-11-02T00:00:00Z'), span('2026-11-20T00:00:00Z', '2026-11-20T02:00:00Z')],
        quarters: [],
        days: [span('2026-11-02T00:00:00Z', '2026-11-05T00:00:00Z'), span('2026-11-19T00:00:00Z', '2026-11-20T00:00:00Z')],
        weeks: span('2026-11-05T00:00:00Z', '2026-11-19T00:00:00Z'),
      },
    ],
    [
      'less than a day, whole hours inside',
      '2026-11-01T10:30:00Z',
      '2026-11-01T13:00:00Z',
      {
        ...none,
        raw: [span('2026-11-01T10:30:00Z', '2026-11-01T11:00:00Z')],
        hours: [span('2026-11-01T11:00:00Z', '2026-11-01T13:00:00Z')],
      },
    ],
    [
      'across midnight with no whole day',
      '2026-11-01T22:00:00Z',
      '2026-11-02T03:00:00Z',
      { ...none, hours: [span('2026-11-01T22:00:00Z', '2026-11-02T03:00:00Z')] },
    ],
    [
      'straddling one hour boundary, no whole hour',
      '2026-11-01T23:30:00Z',
      '2026-11-02T00:20:00Z',
      {
        ...none,
        raw: [span('2026-11-01T23:30:00Z', '2026-11-02T00:00:00Z'), span('2026-11-02T00:00:00Z', '2026-11-02T00:20:00Z')],
      },
    ],
    [
      'inside one hour',
      '2026-11-01T10:05:00Z',
      '2026-11-01T10:50:00Z',
      { ...none, raw: [span('2026-11-01T10:05:00Z', '2026-11-01T10:50:00Z')] },
    ],
    ['empty', '2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z', none],
  ])('%s', (_name, from, to, expected) => {
    expect(rangePieces(T(from), T(to))).toEqual(expected);
  });

  it('stops at the coarsest rollup the buckets allow', () => {
    const [from, to] = [T('2026-11-01T21:40:00Z'), T('2026-11-20T00:00:00Z')];
    expect(rangePieces(from, to, 'day')).toEqual({
      ...none,
      raw: [span('2026-11-01T21:40:00Z', '2026-11-01T22:00:00Z')],
      hours: [span('2026-11-01T22:00:00Z', '2026-11-02T00:00:00Z')],
      days: [span('2026-11-02T00:00:00Z', '2026-11-20T00:00:00Z')],
    });
    expect(rangePieces(from, to, 'hour')).toEqual({
      ...none,
      raw: [span('2026-11-01T21:40:00Z', '2026-11-01T22:00:00Z')],
      hours: [span('2026-11-01T22:00:00Z', '2026-11-20T00:00:00Z')],
    });
    expect(rangePieces(from, to, 'none')).toEqual({ ...none, raw: [[from, to]] });
  });

  // Quarter days start at 00:00, 06:00, 12:00 and 18:00 UTC; only buckets in which days do not nest ask for them.
  it.each([
    [
      '90 days of 12-hour buckets: whole quarters, hours and minutes either side',
      '2026-08-03T21:40:00Z',
      '2026-11-01T09:10:00Z',
      {
        ...none,
        raw: [span('2026-08-03T21:40:00Z', '2026-08-03T22:00:00Z'), span('2026-11-01T09:00:00Z', '2026-11-01T09:10:00Z')],
        hours: [span('2026-08-03T22:00:00Z', '2026-08-04T00:00:00Z'), span('2026-11-01T06:00:00Z', '2026-11-01T09:00:00Z')],
        quarters: [span('2026-08-04T00:00:00Z', '2026-11-01T06:00:00Z')],
      },
    ],
    [
      'whole quarters only',
      '2026-11-01T06:00:00Z',
      '2026-11-02T18:00:00Z',
      { ...none, quarters: [span('2026-11-01T06:00:00Z', '2026-11-02T18:00:00Z')] },
    ],
    [
      'no whole quarter: hours',
      '2026-11-01T07:00:00Z',
      '2026-11-01T12:00:00Z',
      { ...none, hours: [span('2026-11-01T07:00:00Z', '2026-11-01T12:00:00Z')] },
    ],
  ])('quarter days: %s', (_name, from, to, expected) => {
    expect(rangePieces(T(from), T(to), 'quarter')).toEqual(expected);
  });

  it.each([
    [120_000, 'none'],
    [3_600_000, 'hour'],
    [3 * 3_600_000, 'hour'],
    [6 * 3_600_000, 'quarter'],
    [12 * 3_600_000, 'quarter'],
    [86_400_000, 'day'],
    [2 * 86_400_000, 'day'],
    [7 * 86_400_000, 'week'],
  ] as const)('bucket %d ms nests %s rollups', (bucketMs, coarsest) => {
    expect(coarsestFor(bucketMs)).toBe(coarsest);
  });

  // Origins: 2026-11-02 is a Monday (epoch weeks start on Thursdays); 10:00 is on an hour, 10:30 on none.
  it.each([
    [7 * 86_400_000, '2026-11-05T00:00:00Z', 'week'],
    [7 * 86_400_000, '2026-11-02T00:00:00Z', 'day'],
    [86_400_000, '2026-11-02T10:00:00Z', 'hour'],
    [86_400_000, '2026-11-02T18:00:00Z', 'quarter'],
    [12 * 3_600_000, '2026-11-02T10:00:00Z', 'hour'],
    [86_400_000, '2026-11-02T10:30:00Z', 'none'],
    [3_600_000, '2026-11-02T10:30:00Z', 'none'],
  ] as const)('bucket %d ms from %s nests %s rollups', (bucketMs, origin, coarsest) => {
    expect(coarsestFor(bucketMs, T(origin))).toBe(coarsest);
  });

  it('pads absent pieces as empty spans', () => {
    expect(pieceParams(rangePieces(T('2026-11-01T10:30:00Z'), T('2026-11-01T13:00:00Z')))).toEqual({
      r1lo: T('2026-11-01T10:30:00Z'),
      r1hi: T('2026-11-01T11:00:00Z'),
      r2lo: 0,
      r2hi: 0,
      h1lo: T('2026-11-01T11:00:00Z'),
      h1hi: T('2026-11-01T13:00:00Z'),
      h2lo: 0,
      h2hi: 0,
      qlo: 0,
      qhi: 0,
      d1lo: 0,
      d1hi: 0,
      d2lo: 0,
      d2hi: 0,
      wlo: 0,
      whi: 0,
    });
  });
});
