import { describe, expect, it } from 'vitest';
import { pickParams, withParams } from './url-params';

describe('withParams', () => {
  describe.each([
    { search: '', updates: { range: '7d' }, expected: '?range=7d' },
    { search: '?range=7d&nodepool=general', updates: { nodepool: 'spot-batch' }, expected: '?range=7d&nodepool=spot-batch' },
    { search: '?range=7d&nodepool=general', updates: { nodepool: undefined }, expected: '?range=7d' },
    { search: '?range=7d', updates: { range: '' }, expected: '' },
    { search: 'a=1', updates: { b: 'x y' }, expected: '?a=1&b=x+y' },
  ])('$search + $updates', ({ search, updates, expected }) => {
    it(`-> "${expected}"`, () => expect(withParams(search, updates)).toBe(expected));
  });
});

describe('pickParams', () => {
  describe.each([
    { search: '?sort=age&range=14d&nodepool=general&page=3', keys: ['range', 'nodepool'], expected: '?range=14d&nodepool=general' },
    { search: '?sort=age', keys: ['range'], expected: '' },
    { search: '?nodepool=&range=1d', keys: ['nodepool', 'range'], expected: '?range=1d' },
  ])('$search', ({ search, keys, expected }) => {
    it(`-> "${expected}"`, () => expect(pickParams(search, keys)).toBe(expected));
  });
});
