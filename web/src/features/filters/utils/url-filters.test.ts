import { describe, expect, it } from 'vitest';
import { isDay, parseFilters, previousRange, rangeQuery, rangeUpdates, resolveRange, withMetric, type Filters } from './url-filters';

const parse = (qs: string) => parseFilters(new URLSearchParams(qs));

describe('parseFilters', () => {
  describe.each([
    { qs: '', expected: { range: { kind: 'preset', days: 7 }, nodePool: undefined, team: undefined, metric: undefined } },
    {
      qs: 'range=14d&nodepool=general&team=payments',
      expected: { range: { kind: 'preset', days: 14 }, nodePool: 'general', team: 'payments', metric: undefined },
    },
    { qs: 'range=5d', expected: { range: { kind: 'preset', days: 7 }, nodePool: undefined, team: undefined, metric: undefined } }, // not a preset
    {
      qs: 'range=7d&from=2026-11-03&to=2026-11-05',
      expected: {
        range: { kind: 'custom', fromDay: '2026-11-03', toDay: '2026-11-05' },
        nodePool: undefined,
        team: undefined,
        metric: undefined,
      },
    },
    {
      qs: 'from=2026-11-05&to=2026-11-03',
      expected: { range: { kind: 'preset', days: 7 }, nodePool: undefined, team: undefined, metric: undefined },
    }, // reversed
    { qs: 'from=2026-11-03', expected: { range: { kind: 'preset', days: 7 }, nodePool: undefined, team: undefined, metric: undefined } }, // half a range
    { qs: 'nodepool=&team=', expected: { range: { kind: 'preset', days: 7 }, nodePool: undefined, team: undefined, metric: undefined } },
    {
      qs: 'metric=net-amortized&nodepool=general',
      expected: { range: { kind: 'preset', days: 7 }, nodePool: 'general', team: undefined, metric: 'net-amortized' },
    },
    { qs: 'metric=blended', expected: { range: { kind: 'preset', days: 7 }, nodePool: undefined, team: undefined, metric: undefined } }, // not a metric we show
  ])('?$qs', ({ qs, expected }) => {
    it('parses', () => expect(parse(qs)).toEqual(expected));
  });
});

describe('isDay', () => {
  describe.each([
    { text: '2026-11-03', expected: true },
    { text: '2026-02-30', expected: false },
    { text: '2026-11-3', expected: false },
    { text: null, expected: false },
  ])('$text', ({ text, expected }) => it(`-> ${expected}`, () => expect(isDay(text)).toBe(expected)));
});

describe('rangeUpdates', () => {
  it('writes a preset and clears from/to; the default preset leaves the URL clean', () => {
    expect(rangeUpdates({ kind: 'preset', days: 14 })).toEqual({ range: '14d', from: undefined, to: undefined });
    expect(rangeUpdates({ kind: 'preset', days: 7 })).toEqual({ range: undefined, from: undefined, to: undefined });
  });
  it('writes a custom range and clears the preset', () => {
    expect(rangeUpdates({ kind: 'custom', fromDay: '2026-11-03', toDay: '2026-11-05' })).toEqual({
      range: undefined,
      from: '2026-11-03',
      to: '2026-11-05',
    });
  });
});

describe('resolveRange', () => {
  it('ends a preset at the end of the data: 7 days before Nov 15 is Nov 8', () =>
    expect(resolveRange({ kind: 'preset', days: 7 }, '2026-11-15T00:00:00.000Z')).toEqual({
      from: '2026-11-08T00:00:00.000Z',
      to: '2026-11-15T00:00:00.000Z',
    }));
  it('runs a custom range to the midnight after its last day: Nov 3..5 is 3 days', () =>
    expect(resolveRange({ kind: 'custom', fromDay: '2026-11-03', toDay: '2026-11-05' }, undefined)).toEqual({
      from: '2026-11-03T00:00:00.000Z',
      to: '2026-11-06T00:00:00.000Z',
    }));
  it('cannot place a preset without the data end', () => expect(resolveRange({ kind: 'preset', days: 1 }, undefined)).toBeUndefined());
});

describe('previousRange', () => {
  it('is the same length, just before: Nov 8..15 -> Nov 1..8', () =>
    expect(previousRange({ from: '2026-11-08T00:00:00.000Z', to: '2026-11-15T00:00:00.000Z' })).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-08T00:00:00.000Z',
    }));
});

describe('rangeQuery', () => {
  const filters: Filters = { range: { kind: 'preset', days: 7 }, nodePool: 'general', team: undefined, metric: undefined };
  const status = { isPending: false, data: { defaultRange: { to: '2026-11-08T00:00:00.000Z' } } };
  it('waits for the status for a preset', () => expect(rangeQuery(filters, { isPending: true })).toBeUndefined());
  it('does not wait for a custom range', () =>
    expect(rangeQuery({ ...filters, range: { kind: 'custom', fromDay: '2026-11-01', toDay: '2026-11-01' } }, { isPending: true })).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-02T00:00:00.000Z',
      nodepool: 'general',
    }));
  it('anchors the preset at the end of the data', () =>
    expect(rangeQuery(filters, status)).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-08T00:00:00.000Z', nodepool: 'general' }));
  it("falls back to the server's default range when the status failed", () =>
    expect(rangeQuery({ ...filters, nodePool: undefined }, { isPending: false })).toEqual({}));
});

describe('withMetric: the metric goes only to bill routes, and only when chosen', () => {
  it.each([
    [{ from: 'a' }, undefined, { from: 'a' }],
    [{ from: 'a' }, 'unblended' as const, { from: 'a', metric: 'unblended' }],
    [undefined, 'amortized' as const, undefined],
  ])('%j + %s -> %j', (query, metric, expected) => expect(withMetric(query, metric)).toEqual(expected));
});
