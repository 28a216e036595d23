import { describe, expect, it } from 'vitest';
import { coarsestFor, pieceParams, rangePieces } from './range-pieces';

const T = (iso: string) => Date.parse(iso);
const span = (a: string, b: string) => [T(a), T(b)];

describe('rangePieces', () => {
  it.each([
    ['whole days', '2026-11-01T00:00:00Z', '2026-11-08T00:00:00Z', { raw: [], hours: [], days: span('2026-11-01T00:00:00Z', '2026-11-08T00:00:00Z') }],
    ['days with hours and minutes either side', '2026-11-01T21:40:00Z', '2026-11-04T02:10:00Z', {
      raw: [span('2026-11-01T21:40:00Z', '2026-11-01T22:00:00Z'), span('2026-11-04T02:00:00Z', '2026-11-04T02:10:00Z')],
      hours: [span('2026-11-01T22:00:00Z', '2026-11-02T00:00:00Z'), span('2026-11-04T00:00:00Z', '2026-11-04T02:00:00Z')],
      days: span('2026-11-02T00:00:00Z', '2026-11-04T00:00:00Z'),
    }],
    ['less than a day, whole hours inside', '2026-11-01T10:30:00Z', '2026-11-01T13:00:00Z', {
      raw: [span('2026-11-01T10:30:00Z', '2026-11-01T11:00:00Z')], hours: [span('2026-11-01T11:00:00Z', '2026-11-01T13:00:00Z')], days: null,
    }],
    ['across midnight with no whole day', '2026-11-01T22:00:00Z', '2026-11-02T03:00:00Z', {
      raw: [], hours: [span('2026-11-01T22:00:00Z', '2026-11-02T03:00:00Z')], days: null,
    }],
    ['straddling one hour boundary, no whole hour', '2026-11-01T23:30:00Z', '2026-11-02T00:20:00Z', {
      raw: [span('2026-11-01T23:30:00Z', '2026-11-02T00:00:00Z'), span('2026-11-02T00:00:00Z', '2026-11-02T00:20:00Z')], hours: [], days: null,
    }],
    ['inside one hour', '2026-11-01T10:05:00Z', '2026-11-01T10:50:00Z', { raw: [span('2026-11-01T10:05:00Z', '2026-11-01T10:50:00Z')], hours: [], days: null }],
    ['empty', '2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z', { raw: [], hours: [], days: null }],
  ])('%s', (_name, from, to, expected) => {
    expect(rangePieces(T(from), T(to))).toEqual(expected);
  });

  it('uses hours only, or the snapshots only, when buckets forbid days or hours', () => {
    expect(rangePieces(T('2026-11-01T21:40:00Z'), T('2026-11-04T00:00:00Z'), 'hour')).toEqual({
      raw: [span('2026-11-01T21:40:00Z', '2026-11-01T22:00:00Z')], hours: [span('2026-11-01T22:00:00Z', '2026-11-04T00:00:00Z')], days: null,
    });
    expect(rangePieces(T('2026-11-01T00:00:00Z'), T('2026-11-04T00:00:00Z'), 'none')).toEqual({ raw: [span('2026-11-01T00:00:00Z', '2026-11-04T00:00:00Z')], hours: [], days: null });
  });

  it.each([[120_000, 'none'], [3_600_000, 'hour'], [6 * 3_600_000, 'hour'], [86_400_000, 'day'], [7 * 86_400_000, 'day']] as const)('bucket %d ms nests %s rollups', (bucketMs, coarsest) => {
    expect(coarsestFor(bucketMs)).toBe(coarsest);
  });

  it('pads absent pieces as empty spans', () => {
    expect(pieceParams(rangePieces(T('2026-11-01T10:30:00Z'), T('2026-11-01T13:00:00Z')))).toEqual({
      r1lo: T('2026-11-01T10:30:00Z'), r1hi: T('2026-11-01T11:00:00Z'), r2lo: 0, r2hi: 0,
      h1lo: T('2026-11-01T11:00:00Z'), h1hi: T('2026-11-01T13:00:00Z'), h2lo: 0, h2hi: 0, dlo: 0, dhi: 0,
    });
  });
});
