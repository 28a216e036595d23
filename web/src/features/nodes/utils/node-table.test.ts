import { describe, expect, it } from 'vitest';
import { chunkQuery, DEFAULT_NODE_TABLE, formatAge, nodesQuery, packingWidth, parseNodeTable, sortUpdates } from './node-table';

const parse = (qs: string) => parseNodeTable(new URLSearchParams(qs));

describe('parseNodeTable', () => {
  it('defaults to the worst cpu packing first, newest snapshot', () => expect(parse('')).toEqual(DEFAULT_NODE_TABLE));
  it('reads every key (and no page: the table scrolls; old links with page and size still open it)', () =>
    expect(parse('sort=usdPerHour&order=desc&capacity=spot&page=3&size=250&at=2026-11-09T10:00:00Z&q=m5.')).toEqual({
      sort: 'usdPerHour',
      order: 'desc',
      capacityType: 'spot',
      at: '2026-11-09T10:00:00Z',
      q: 'm5.',
    }));
  describe.each([
    { qs: 'sort=price', key: 'sort', expected: 'cpu' },
    { qs: 'order=up', key: 'order', expected: 'asc' },
    { qs: 'capacity=cheap', key: 'capacityType', expected: undefined },
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
    { state: DEFAULT_NODE_TABLE, column: 'cpu' as const, expected: { sort: 'cpu', order: 'desc' } }, // same column flips
    {
      state: { ...DEFAULT_NODE_TABLE, order: 'desc' as const },
      column: 'cpu' as const,
      expected: { sort: 'cpu', order: 'asc' },
    },
    { state: DEFAULT_NODE_TABLE, column: 'usdPerHour' as const, expected: { sort: 'usdPerHour', order: 'desc' } }, // priciest first
    { state: DEFAULT_NODE_TABLE, column: 'zone' as const, expected: { sort: 'zone', order: 'asc' } },
  ])('$state.sort $state.order, click $column', ({ state, column, expected }) =>
    it('->', () => expect(sortUpdates(state, column)).toEqual(expected)),
  );
});

describe('nodesQuery and chunkQuery', () => {
  it('asks for every matching node; chunk 3 of 100 rows skips 300', () => {
    const q = nodesQuery(DEFAULT_NODE_TABLE, 'general');
    expect(q).toEqual({ sort: 'cpu', order: 'asc', nodepool: 'general', capacityType: undefined, at: undefined, q: undefined });
    expect(chunkQuery(q, 3)).toEqual({ ...q, limit: 100, offset: 300 });
  });
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
