import { describe, expect, it } from 'vitest';
import { eventIdTime, parseWeights, parseWindow } from './query-params.js';
import { QueryParamError } from './range.js';

describe('query parameters', () => {
  it.each([
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['90m', 5_400_000],
    ['24h', 86_400_000],
  ])('window %s', (v, ms) => {
    expect(parseWindow('window', v)).toBe(ms);
  });
  it.each(['4m', '25h', '1d', '0h'])('window %s is refused naming the parameter', (v) => {
    expect(() => parseWindow('window', v)).toThrow(QueryParamError);
    expect(() => parseWindow('window', v)).toThrow(/^window: /);
  });
  it('weights add up to 1', () => {
    expect(parseWeights('weights', '0.7,0.3')).toEqual({ cpu: 0.7, memory: 0.3 });
    expect(parseWeights('weights', '1,0')).toEqual({ cpu: 1, memory: 0 });
    expect(() => parseWeights('weights', '0.7,0.7')).toThrow(/weights: .*add up to 1/);
  });
  it('event ids carry their time', () => {
    expect(eventIdTime('event', '1793523600000-general-5xzjd')).toBe(1793523600000);
    expect(() => eventIdTime('event', 'general-5xzjd')).toThrow(/^event: /);
  });
});
