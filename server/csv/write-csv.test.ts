import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { csvCell, toCsv } from './write-csv.js';

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
  it('an empty table is an empty header line, or the named columns', () => {
    expect(toCsv([])).toBe('\r\n');
    expect(toCsv([], ['id', 'nodepool'])).toBe('id,nodepool\r\n');
  });
  it('named columns come first, in their order; columns the rows add follow', () => {
    expect(toCsv([{ b: 2, a: 1, c: 3 }], ['a', 'b'])).toBe('a,b,c\r\n1,2,3\r\n');
  });
  it('reads back cell for cell with a maintained RFC 4180 parser (csv-parse), defused cells keeping their text', () => {
    const rows = [
      { name: 'a,b', note: 'line\r\nbreak', quote: 'say "hi"', formula: '=1+1', n: -1.5, none: null },
      { name: '<img src=x>', note: '', quote: '""', formula: '@SUM(A1)', n: 0, none: null },
    ];
    expect(parse(toCsv(rows), { columns: true })).toEqual([
      { name: 'a,b', note: 'line\r\nbreak', quote: 'say "hi"', formula: "'=1+1", n: '-1.5', none: '' },
      { name: '<img src=x>', note: '', quote: '""', formula: "'@SUM(A1)", n: '0', none: '' },
    ]);
  });
});
