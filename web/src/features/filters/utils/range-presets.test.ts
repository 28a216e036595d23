import { describe, expect, it } from 'vitest';
import { overviewQuery, presetRange } from './range-presets';

describe.each([
  { days: 7, end: '2026-11-08T00:00:00.000Z', from: '2026-11-01T00:00:00.000Z' },
  { days: 30, end: '2026-03-01T00:00:00.000Z', from: '2026-01-30T00:00:00.000Z' },
])('presetRange($days, $end)', ({ days, end, from }) => {
  it(`-> from ${from}`, () => expect(presetRange(days, end)).toEqual({ from, to: end }));
});

describe('overviewQuery', () => {
  const status = { isPending: false, data: { defaultRange: { to: '2026-11-08T00:00:00.000Z' } } };
  it('waits for the status', () => expect(overviewQuery(7, undefined, { isPending: true })).toBeUndefined());
  it('anchors the preset at the end of the data', () =>
    expect(overviewQuery(7, 'general', status)).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-08T00:00:00.000Z', nodepool: 'general' }));
  it("falls back to the server's default range when the status failed", () =>
    expect(overviewQuery(7, undefined, { isPending: false })).toEqual({}));
});
