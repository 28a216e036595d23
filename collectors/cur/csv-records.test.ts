import { describe, expect, it } from 'vitest';
import { csvRecordBatches, CsvFormatError, CsvRecordParser } from './csv-records.js';

/*
 * Athena's result CSV (RFC 4180; every value quoted, NULL an empty unquoted field, per "Working with query results"
 * in the Athena user guide), parsed a piece at a time: wherever the pieces are cut, the records are the same.
 */

const TEXT =
  '"row_kind","namespace","unblended_usd","note"\n' +
  '"resource","","1.0E-4",\n' +
  '"split","team ""a""","0.25","two\nlines, one comma"\r\n' +
  '"unresourced",,"-5.0",""\n';
const RECORDS = [
  ['row_kind', 'namespace', 'unblended_usd', 'note'],
  ['resource', '', '1.0E-4', null],
  ['split', 'team "a"', '0.25', 'two\nlines, one comma'],
  ['unresourced', null, '-5.0', ''],
];

const parseIn = (pieces: string[]): (string | null)[][] => {
  const p = new CsvRecordParser();
  return [...pieces.flatMap((x) => p.push(x)), ...p.end()];
};

describe('CsvRecordParser', () => {
  it('reads quoted values, doubled quotes, commas and line breaks inside quotes, NULL as an empty unquoted field', () => {
    expect(parseIn([TEXT])).toEqual(RECORDS);
  });

  it('gives the same records wherever the text is cut (every cut point, and one character at a time)', () => {
    for (let cut = 0; cut <= TEXT.length; cut++) expect(parseIn([TEXT.slice(0, cut), TEXT.slice(cut)])).toEqual(RECORDS);
    expect(parseIn([...TEXT])).toEqual(RECORDS);
  });

  it('takes a last record without a line break, and skips blank lines', () => {
    expect(parseIn(['"a","b"\n\n"c",""'])).toEqual([
      ['a', 'b'],
      ['c', ''],
    ]);
  });

  it.each([
    ['a quote inside an unquoted value', '"a","b"\nx"y,"z"\n', 'line 2: a quote inside an unquoted value'],
    ['text after a closing quote', '"a","b"\n"x"y,"z"\n', 'line 2: "y" after a closing quote'],
    ['the end inside a quoted value', '"a","b"\n"x,z\n', 'line 3: the text ends inside a quoted value'],
  ])('refuses %s, naming the line', (_name, text, message) => {
    expect(() => parseIn([text])).toThrow(new CsvFormatError(message));
  });
});

describe('csvRecordBatches', () => {
  async function* bytes(text: string, size: number): AsyncGenerator<Uint8Array> {
    const all = new TextEncoder().encode(text);
    for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
  }

  it('hands over records keyed by the header, a batch at a time, across byte pieces that cut UTF-8 characters', async () => {
    const text = '"name","city"\n"a","Zürich"\n"b","Kraków"\n"c",\n';
    const batches: Record<string, string | null>[][] = [];
    const n = await csvRecordBatches(bytes(text, 3), (b) => batches.push(b), 2);
    expect(n).toBe(3);
    expect(batches).toEqual([
      [
        { name: 'a', city: 'Zürich' },
        { name: 'b', city: 'Kraków' },
      ],
      [{ name: 'c', city: null }],
    ]);
  });

  it('refuses a record whose field count is not the header’s, and a text without a header', async () => {
    await expect(csvRecordBatches(bytes('"a","b"\n"1"\n', 4), () => undefined)).rejects.toThrow(
      'record 1: 1 fields where the header has 2',
    );
    await expect(csvRecordBatches(bytes('', 4), () => undefined)).rejects.toThrow('no header row');
  });
});
