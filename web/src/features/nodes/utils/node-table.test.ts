import { describe, expect, it } from 'vitest';
import { DEFAULT_NODE_TABLE, formatAge, nodesQuery, packingWidth, pageCount, parseNodeTable, sortUpdates } from './node-table';

const parse = (qs: string) => parseNodeTable(new URLSearchParams(qs));

describe('parseNodeTable', () => {
  it('defaults to the worst cpu packing first, 100 rows, newest snapshot', () => expect(parse('')).toEqual(DEFAULT_NODE_TABLE));
  it('reads every key', () =>
    expect(parse('sort=usdPerHour&order=desc&capacity=spot&page=3&size=250&at=2026-11-09T10:00:00Z&q=m5.')).toEqual({
      sort: 'usdPerHour',
      order: 'desc',
      capacityType: 'spot',
      page: 3,
      pageSize: 250,
      at: '2026-11-09T10:00:00Z',
      q: 'm5.',
    }));
  describe.each([
    { qs: 'sort=price', key: 'sort', expected: 'cpu' },
    { qs: 'order=up', key: 'order', expected: 'asc' },
    { qs: 'capacity=cheap', key: 'capacityType', expected: undefined },
    { qs: 'page=0', key: 'page', expected: 1 },
    { qs: 'page=2.5', key: 'page', expected: 1 },
    { qs: 'size=99', key: 'pageSize', expected: 100 },
    { qs: 'at=yesterday', key: 'at', expected: undefined },
    { qs: 'q=', key: 'q', expected: undefined },
    { qs: 'q=%01%1F%7F', key: 'q', expected: undefined },
    { qs: 'q=a%0Ab', key: 'q', expected: 'ab' },
    { qs: `q=${'x'.repeat(120)}`, key: 'q', expected: 'x'.repeat(100) },
  ])('ignores ?$qs', ({ qs, key, expected }) =>
    it(`${key} -> ${String(expected)}`, () => expect(parse(qs)[key as keyof typeof DEFAULT_NODE_TABLE]).toBe(expected)),
  );
});

describe('sortUpdates', () => {
  describe.each([
    { state: DEFAULT_NODE_TABLE, column: 'cpu' as const, expected: { sort: 'cpu', order: 'desc', page: undefined } }, // same column flips
    {
      state: { ...DEFAULT_NODE_TABLE, order: 'desc' as const },
      column: 'cpu' as const,
      expected: { sort: 'cpu', order: 'asc', page: undefined },
    },
    { state: DEFAULT_NODE_TABLE, column: 'usdPerHour' as const, expected: { sort: 'usdPerHour', order: 'desc', page: undefined } }, // priciest first
    { state: DEFAULT_NODE_TABLE, column: 'zone' as const, expected: { sort: 'zone', order: 'asc', page: undefined } },
  ])('$state.sort $state.order, click $column', ({ state, column, expected }) =>
    it('->', () => expect(sortUpdates(state, column)).toEqual(expected)),
  );
});

describe('pageCount and nodesQuery', () => {
  it('500 nodes at 100 a page: 5 pages; 501: 6; 0: 1', () => {
    expect(pageCount(500, 100)).toBe(5);
    expect(pageCount(501, 100)).toBe(6);
    expect(pageCount(0, 100)).toBe(1);
  });
  it('page 3 of 100 skips 200 rows', () =>
    expect(nodesQuery({ ...DEFAULT_NODE_TABLE, page: 3 }, 'general')).toEqual({
      sort: 'cpu',
      order: 'asc',
      nodepool: 'general',
      capacityType: undefined,
      at: undefined,
      q: undefined,
      limit: 100,
      offset: 200,
    }));
  it('passes the search on', () => expect(nodesQuery({ ...DEFAULT_NODE_TABLE, q: '50%' }, undefined).q).toBe('50%'));
});

describe('formatAge', () => {
  describe.each([
    { hours: 0.25, expected: '15 min' },
    { hours: 5.9, expected: '5 h' },
    { hours: 47.5, expected: '47 h' },
    { hours: 76, expected: '3 d 4 h' }, // 72 h + 4 h
    { hours: 96, expected: '4 d' },
  ])('$hours h', ({ hours, expected }) => it(`-> ${expected}`, () => expect(formatAge(hours)).toBe(expected)));
});

describe('packingWidth', () => {
  describe.each([
    { requested: 2, allocatable: 4, expected: { percent: 50, over: false } },
    { requested: 5, allocatable: 4, expected: { percent: 100, over: true } }, // 125 %, capped
    { requested: 1, allocatable: 0, expected: { percent: null, over: false } },
  ])('$requested / $allocatable', ({ requested, allocatable, expected }) =>
    it('->', () => expect(packingWidth(requested, allocatable)).toEqual(expected)),
  );
});
