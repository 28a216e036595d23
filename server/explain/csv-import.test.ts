import { describe, expect, it } from 'vitest';
import { toCsv } from '../csv/write-csv.js';
import { MAX_IMPORT_BYTES, parseCostExplorerCsv } from './csv-import.js';
import { BillImportError, firstInvalidUtf8, parseCsvRows } from './csv-syntax.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The shape the Cost Explorer console downloads: every cell quoted, a total row, one row per day, empty = no cost. */
const REAL_SHAPED = [
  '"karpenter.sh/nodepool","general($)","spot-batch($)","system($)","No tag key: karpenter.sh/nodepool($)","Total costs($)"',
  '"karpenter.sh/nodepool total","30.5","1.25","4.608","4.608","40.966"',
  '"2026-11-05","15.25","","2.304","2.304","19.858"',
  '"2026-11-06","15.25","1.25","2.304","2.304","21.108"',
].join('\n');

function refusal(bytes: Uint8Array, granularity?: 'DAILY' | 'MONTHLY' | 'HOURLY'): BillImportError {
  try {
    parseCostExplorerCsv(bytes, { granularity });
  } catch (err) {
    if (err instanceof BillImportError) return err;
    throw err;
  }
  throw new Error('the file was accepted');
}

describe('parseCostExplorerCsv: accepted files', () => {
  it('reads a console export grouped by the NodePool tag into one line per day and NodePool, untagged as ""', () => {
    const bill = parseCostExplorerCsv(utf8(REAL_SHAPED));
    expect(bill).toMatchObject({
      layout: 'ce-console-tag',
      granularity: 'DAILY',
      periods: 2,
      nodePools: ['', 'general', 'spot-batch', 'system'],
      fileTotalUsd: 40.966,
      warnings: [],
    });
    expect(bill.lines.map((l) => [l.periodStart, l.nodePool, l.unblendedUsd])).toEqual([
      ['2026-11-05', '', 2.304],
      ['2026-11-05', 'general', 15.25],
      ['2026-11-05', 'system', 2.304],
      ['2026-11-06', '', 2.304],
      ['2026-11-06', 'general', 15.25],
      ['2026-11-06', 'spot-batch', 1.25],
      ['2026-11-06', 'system', 2.304],
    ]);
    // 15.25 + 15.25 + 1.25 + 2.304 * 4 = 40.966
    expect(bill.totalUsd).toBeCloseTo(40.966, 10);
    expect(bill.lines[0].periodStartMs).toBe(Date.parse('2026-11-05T00:00:00Z'));
  });

  it('tolerates a UTF-8 byte-order mark, CRLF line ends and the older "tag$value" column names', () => {
    const older =
      '\uFEFF"karpenter.sh/nodepool","karpenter.sh/nodepool$general($)","karpenter.sh/nodepool$($)","Total costs($)"\r\n"2026-11-05","1.5","0.5","2"\r\n';
    const bill = parseCostExplorerCsv(utf8(older));
    expect(bill.lines.map((l) => [l.nodePool, l.unblendedUsd])).toEqual([
      ['', 0.5],
      ['general', 1.5],
    ]);
    expect(bill.warnings).toEqual(["No total row: the file's sums could not be checked against Cost Explorer's."]);
  });

  it('reads monthly exports (first-of-month periods a month apart) and hourly ones', () => {
    const monthly = parseCostExplorerCsv(
      utf8('"karpenter.sh/nodepool","general($)","Total costs($)"\n"2026-10-01","100","100"\n"2026-11-01","90","90"\n'),
    );
    expect(monthly.granularity).toBe('MONTHLY');
    const hourly = parseCostExplorerCsv(
      utf8('"karpenter.sh/nodepool","general($)","Total costs($)"\n"2026-11-05T10:00:00Z","0.5","0.5"\n'),
    );
    expect(hourly).toMatchObject({
      granularity: 'HOURLY',
      lines: [{ periodStart: '2026-11-05T10:00:00Z', nodePool: 'general', unblendedUsd: 0.5 }],
    });
  });

  it('keeps negative amounts (credits) as numbers', () => {
    const bill = parseCostExplorerCsv(utf8('"karpenter.sh/nodepool","general($)","Total costs($)"\n"2026-11-05","-1.5","-1.5"\n'));
    expect(bill.lines[0].unblendedUsd).toBe(-1.5);
  });
});

describe('parseCostExplorerCsv: refused files say why, with the HTTP status', () => {
  const header = '"karpenter.sh/nodepool","general($)","Total costs($)"\n';
  describe.each([
    { what: 'empty', bytes: utf8(''), status: 400, says: 'empty' },
    { what: 'only whitespace', bytes: utf8('\n\n  \n'), status: 400, says: 'empty' },
    { what: 'over the 5 MB limit', bytes: new Uint8Array(MAX_IMPORT_BYTES + 1).fill(0x41), status: 413, says: '5 MB' },
    { what: 'UTF-16 with a BOM', bytes: new Uint8Array([0xff, 0xfe, 0x22, 0x00, 0x6b, 0x00]), status: 415, says: 'UTF-16' },
    { what: 'UTF-16 without a BOM', bytes: new Uint8Array([0x22, 0x00, 0x6b, 0x00, 0x22, 0x00]), status: 415, says: 'NUL' },
    {
      what: 'Latin-1 bytes',
      bytes: Uint8Array.from([...utf8(header), ...utf8('"2026-11-05","1","1"\n"caf'), 0xe9, ...utf8('","1","1"\n')]),
      status: 415,
      says: 'line 3',
    },
    {
      what: 'an unclosed quote (cut short)',
      bytes: utf8(`${header}"2026-11-05","1","1\n`),
      status: 400,
      says: 'opened on line 2 is never closed',
    },
    {
      what: 'text after a closing quote',
      bytes: utf8(`${header}"2026-11-05,"1","1"\n`),
      status: 400,
      says: 'line 2: text after a closing quote',
    },
    { what: 'a header only', bytes: utf8(header), status: 422, says: 'no period rows' },
    {
      what: 'a Cost and Usage Report',
      bytes: utf8('identity/LineItemId,lineItem/UsageStartDate,lineItem/UnblendedCost\nabc,2026-11-05T00:00:00Z,1\n'),
      status: 422,
      says: 'Cost and Usage Report',
    },
    {
      what: 'grouped by Service',
      bytes: utf8('"Service","EC2-Instances($)","Total costs($)"\n"2026-11-05","1","1"\n'),
      status: 422,
      says: 'grouped by Service',
    },
    {
      what: 'grouped by another tag',
      bytes: utf8('"team","payments($)","No tag key: team($)","Total costs($)"\n"2026-11-05","1","1","2"\n'),
      status: 422,
      says: 'grouped by tag team',
    },
    {
      what: 'no Total costs column',
      bytes: utf8('"karpenter.sh/nodepool","general($)","system($)"\n"2026-11-05","1","1"\n'),
      status: 422,
      says: 'Total costs($)',
    },
    {
      what: 'a group column without ($)',
      bytes: utf8('"karpenter.sh/nodepool","general","Total costs($)"\n"2026-11-05","1","1"\n'),
      status: 422,
      says: 'does not end in "($)"',
    },
    {
      what: 'semicolons',
      bytes: utf8('karpenter.sh/nodepool;general($);Total costs($)\n2026-11-05;1;1\n'),
      status: 422,
      says: 'semicolons',
    },
    {
      what: 'a formula in a cell',
      bytes: utf8(`${header}"2026-11-05","=HYPERLINK(""http://x"")","1"\n`),
      status: 422,
      says: 'B2 starts with "="',
    },
    {
      what: 'a formula in the header',
      bytes: utf8('"karpenter.sh/nodepool","@SUM(A1)($)","Total costs($)"\n"2026-11-05","1","1"\n'),
      status: 422,
      says: 'starts with "@"',
    },
    { what: 'a +formula disguised as a number', bytes: utf8(`${header}"2026-11-05","+1","1"\n`), status: 422, says: 'starts with "+"' },
    { what: 'text where an amount goes', bytes: utf8(`${header}"2026-11-05","N/A","1"\n`), status: 422, says: 'not an amount' },
    { what: 'a row total that does not add up', bytes: utf8(`${header}"2026-11-05","1","2"\n`), status: 422, says: 'add up' },
    {
      what: 'a total row that does not add up (cut short)',
      bytes: utf8(`${header}"karpenter.sh/nodepool total","5","5"\n"2026-11-05","1","1"\n`),
      status: 422,
      says: 'cut short',
    },
    { what: 'a row with too few cells', bytes: utf8(`${header}"2026-11-05","1"\n`), status: 422, says: 'Row 2 has 2 cells' },
    { what: 'a date that does not exist', bytes: utf8(`${header}"2026-02-30","1","1"\n`), status: 422, says: 'not a period start' },
    {
      what: 'the same day twice',
      bytes: utf8(`${header}"2026-11-05","1","1"\n"2026-11-05","1","1"\n`),
      status: 422,
      says: 'appears twice',
    },
    {
      what: 'a column that is not a NodePool name',
      bytes: utf8('"karpenter.sh/nodepool","gen eral!($)","Total costs($)"\n"2026-11-05","1","1"\n'),
      status: 422,
      says: 'not a NodePool name',
    },
  ])('$what', ({ bytes, status, says }) => {
    it(`-> ${status}`, () => {
      const err = refusal(bytes);
      expect(err.statusCode).toBe(status);
      expect(err.message).toContain(says);
    });
  });

  it('refuses granularity=MONTHLY for days that are not firsts of months', () => {
    const err = refusal(utf8(`${header}"2026-11-05","1","1"\n`), 'MONTHLY');
    expect([err.statusCode, err.message]).toEqual([
      422,
      'granularity=MONTHLY was asked for, but some periods do not start on the first of a month.',
    ]);
  });
});

describe('CSV syntax and export', () => {
  it('parses quoted cells with commas, doubled quotes and newlines', () => {
    expect(parseCsvRows('a,"b,c","d""e"\r\n"f\ng",h\n')).toEqual([
      ['a', 'b,c', 'd"e'],
      ['f\ng', 'h'],
    ]);
  });

  it('reads back what the one CSV writer writes, defused formula cells included', () => {
    const text = toCsv([
      { name: '=evil', usd: 1.25 },
      { name: 'plain, with comma', usd: null },
      { name: 'say "hi"', usd: -1.5 },
    ]);
    expect(parseCsvRows(text)).toEqual([
      ['name', 'usd'],
      ["'=evil", '1.25'],
      ['plain, with comma', ''],
      ['say "hi"', '-1.5'],
    ]);
  });
});

describe('firstInvalidUtf8 (a fatal TextDecoder says whether, halving says where)', () => {
  it.each([
    // bytes, offset of the first bad byte, worked by hand
    [[0x61, 0x62], -1],
    [[0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac], -1], // a, é, €
    [[0x61, 0x93, 0x62], 1], // Windows-1252 left quote: a continuation byte with no lead
    [[0x61, 0xc3, 0xa9, 0x93], 3], // é is whole, the stray byte after it is the bad one
    [[0x61, 0xe0, 0x41], 1], // a 3-byte lead cut off by "A": the lead is the bad one
    [[0xc0, 0xbc], 0], // overlong "<"
    [[0xed, 0xa0, 0x80], 0], // a UTF-16 surrogate (U+D800)
    [[0xf4, 0x90, 0x80, 0x80], 0], // past U+10FFFF
    [[0x61, 0xf0, 0x9f, 0x98], 1], // a 4-byte emoji cut by the end of the file
    [[0x61, 0xff], 1],
  ])('%j: %i', (bytes, offset) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });

  it('finds the one bad byte of a megabyte', () => {
    const bytes = new Uint8Array(1 << 20).fill(0x61);
    bytes[777_777] = 0x93;
    expect(firstInvalidUtf8(bytes)).toBe(777_777);
  });
});
