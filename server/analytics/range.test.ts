import { describe, expect, it } from 'vitest';
import { defaultEndMs, parseInstant, QueryParamError, resolveRange } from './range.js';

const at = (iso: string): number => Date.parse(iso);
const noData = { lastSnapshotMs: null, lastCostDayMs: null };
const now = at('2026-11-20T15:00:00Z');

describe('parseInstant', () => {
  describe.each([
    { value: '2026-11-01', expected: at('2026-11-01T00:00:00Z') },
    { value: '2026-11-01T10:00:00Z', expected: at('2026-11-01T10:00:00Z') },
    { value: '2026-11-01T10:00:00+02:00', expected: at('2026-11-01T08:00:00Z') },
    { value: '2028-02-29', expected: at('2028-02-29T00:00:00Z') },
  ])('$value', ({ value, expected }) => {
    it('parses', () => expect(parseInstant('from', value)).toBe(expected));
  });

  describe.each(['2026-02-30', '2026-13-01', '2027-02-29', '2026-11-01T25:00:00Z', 'garbage'])('%s', (value) => {
    it('throws a QueryParamError naming the parameter', () => {
      expect(() => parseInstant('from', value)).toThrow(QueryParamError);
      expect(() => parseInstant('from', value)).toThrow(/^from: /);
    });
  });
});

describe('defaultEndMs', () => {
  describe.each([
    { what: 'no data: midnight after now', extent: noData, expected: at('2026-11-21T00:00:00Z') },
    {
      what: 'midnight after the last snapshot',
      extent: { lastSnapshotMs: at('2026-11-10T23:59:00Z'), lastCostDayMs: null },
      expected: at('2026-11-11T00:00:00Z'),
    },
    {
      what: 'a snapshot exactly at midnight opens that day',
      extent: { lastSnapshotMs: at('2026-11-10T00:00:00Z'), lastCostDayMs: null },
      expected: at('2026-11-11T00:00:00Z'),
    },
    {
      what: 'the later of snapshots and bill',
      extent: { lastSnapshotMs: at('2026-11-10T12:00:00Z'), lastCostDayMs: at('2026-11-12T00:00:00Z') },
      expected: at('2026-11-13T00:00:00Z'),
    },
  ])('$what', ({ extent, expected }) => {
    it('-> expected midnight', () => expect(defaultEndMs(extent, now)).toBe(expected));
  });
});

describe('resolveRange', () => {
  it('defaults to the 14 days ending at the midnight after the data', () => {
    expect(resolveRange({}, { lastSnapshotMs: at('2026-11-10T12:00:00Z'), lastCostDayMs: null }, now)).toEqual({
      fromMs: at('2026-10-28T00:00:00Z'),
      toMs: at('2026-11-11T00:00:00Z'),
    });
  });
  it('takes both bounds as given', () => {
    expect(resolveRange({ from: '2026-11-01', to: '2026-11-02T06:00:00Z' }, noData, now)).toEqual({
      fromMs: at('2026-11-01T00:00:00Z'),
      toMs: at('2026-11-02T06:00:00Z'),
    });
  });
  it('rejects to before from, naming to', () => {
    expect(() => resolveRange({ from: '2026-11-05', to: '2026-11-01' }, noData, now)).toThrow(/^to: /);
  });
  it('rejects a from after the default end, naming from', () => {
    expect(() => resolveRange({ from: '2027-01-01' }, noData, now)).toThrow(/^from: /);
  });
  it('rejects more than 731 days', () => {
    expect(() => resolveRange({ from: '2020-01-01', to: '2026-01-01' }, noData, now)).toThrow(/^from: .*731/);
  });
});
