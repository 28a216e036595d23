import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv.js';
import { eventIdTime, parseWeights, parseWindow } from './query-params.js';
import { QueryParamError } from './range.js';

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['a,b', '"a,b"'],
    ['line\nbreak', '"line\nbreak"'],
    ['say "hi"', '"say ""hi"""'],
  ])('text %j -> %j', (input, out) => {
    expect(csvCell(input)).toBe(out);
  });
  it('numbers stay numbers, negative ones too; null is empty', () => {
    expect([csvCell(-0.25), csvCell(3), csvCell(null), csvCell(Number.NaN), csvCell(true)]).toEqual(['-0.25', '3', '', '', 'true']);
  });
});

describe('toCsv', () => {
  it('flattens nested objects into dotted columns and joins lists', () => {
    const csv = toCsv([
      { nodePool: 'general', before: { cpu: 0.5, memory: null }, replacements: ['a', 'b'] },
      { nodePool: '=cmd', before: { cpu: 0.75, memory: 0.25 }, replacements: [], extra: 1 },
    ]);
    expect(csv).toBe("nodePool,before.cpu,before.memory,replacements,extra\r\ngeneral,0.5,,a;b,\r\n'=cmd,0.75,0.25,,1\r\n");
  });
  it('an empty table is an empty header line', () => {
    expect(toCsv([])).toBe('\r\n');
  });
});

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
