import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { buildApp } from '../../server/app.js';

/*
 * POST /api/bill/import against hostile and broken files, beyond the malformed-file cases of test/e2e/bill.test.ts:
 * formulas in every position and form, sizes around the 5 MB limit (raw and multipart), encodings that are almost
 * UTF-8, layouts that are almost Cost Explorer's, markup where a NodePool name goes, hostile import names. Each is
 * a 4xx saying why, and after each the database is exactly as before (no line, no import record) with an earlier
 * import of the same name untouched. Then a failure inside the write itself: nothing of the file is kept.
 */
const LIMIT = 5 * 1024 * 1024;
const enc = new TextEncoder();
let db: Db;
let app: FastifyInstance;

beforeAll(async () => {
  db = openDb({ path: join(mkdtempSync(join(tmpdir(), 'ledger-csv-import-')), 'ledger.db') });
  app = buildApp({ db, now: () => Date.parse('2026-11-20T00:00:00Z') });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  db?.close();
});

const HEADER = '"karpenter.sh/nodepool","general($)","No tag key: karpenter.sh/nodepool($)","Total costs($)"\n';
const csv = (...rows: string[]): string => HEADER + rows.join('');
const GOOD = csv(
  '"karpenter.sh/nodepool total","3","0.5","3.5"\n',
  '"2026-11-02","1.5","0.25","1.75"\n',
  '"2026-11-03","1.5","0.25","1.75"\n',
);

/** Many valid daily rows (for big files): day i of a long range, 1 USD general, no untagged. */
const rowsOf = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `"${new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)}","1","","1"\n`);

const post = (body: Uint8Array | string, opts: { type?: string; name?: string } = {}) =>
  app.inject({
    method: 'POST',
    url: `/api/bill/import?name=${opts.name ?? 'kept'}`,
    headers: opts.type === '' ? {} : { 'content-type': opts.type ?? 'text/csv' },
    payload: typeof body === 'string' ? Buffer.from(body) : Buffer.from(body),
  });

const BOUNDARY = 'ledgerBoundary7MA4YWxk';
const filePart = (file: Uint8Array | string, name = 'export.csv'): Buffer =>
  Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(file),
    Buffer.from('\r\n'),
  ]);
const twoFiles = (a: string, b: string): Buffer =>
  Buffer.concat([filePart(a, 'a.csv'), filePart(b, 'b.csv'), Buffer.from(`--${BOUNDARY}--\r\n`)]);

const multipart = (file: Uint8Array | string): { body: Buffer; type: string } => {
  const boundary = BOUNDARY;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="export.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  return {
    body: Buffer.concat([head, Buffer.from(file), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
};

const state = () => ({
  lines: db
    .prepare("SELECT source, period_start, nodepool, unblended_usd FROM cost_lines WHERE source LIKE 'csv:%' ORDER BY 1, 2, 3")
    .all(),
  imports: db.prepare('SELECT * FROM bill_imports ORDER BY source').all(),
});

describe('the import refuses, saying why, and keeps nothing', () => {
  let before: ReturnType<typeof state>;
  beforeAll(async () => {
    const first = await post(GOOD);
    expect(first.statusCode).toBe(201);
    before = state();
    expect(before.lines).toHaveLength(4);
  });

  const longRow = (cell: string) => csv(`"2026-11-02",${cell},"0","1"\n`);
  const cases: { what: string; body: () => Uint8Array | string; type?: string; name?: string; status: number; says: RegExp }[] = [
    // Formulas, every start character and place.
    { what: '= in an amount', body: () => longRow('"=1+1"'), status: 422, says: /formulas are refused/ },
    { what: '+ in an amount', body: () => longRow('"+cmd|\' /C calc\'!A0"'), status: 422, says: /formulas are refused/ },
    { what: '- text in an amount', body: () => longRow('"-cmd"'), status: 422, says: /formulas are refused/ },
    { what: '@ in an amount', body: () => longRow('"@SUM(A1:A9)"'), status: 422, says: /formulas are refused/ },
    { what: 'a tab before =', body: () => longRow('"\t=1+1"'), status: 422, says: /formulas are refused/ },
    { what: 'a formula as the period', body: () => csv('"=NOW()","1","0","1"\n'), status: 422, says: /formulas are refused/ },
    {
      what: 'a formula as a column name',
      body: () => '"karpenter.sh/nodepool","=HYPERLINK(""x"")($)","Total costs($)"\n"2026-11-02","1","1"\n',
      status: 422,
      says: /formulas are refused/,
    },
    {
      what: 'a formula in row 3000 of a long file',
      body: () =>
        HEADER.replace(',"No tag key: karpenter.sh/nodepool($)"', '') +
        [...rowsOf(2999).map((r) => r.replace(',"",', ',')), '"2031-01-01","=1+2","3"\n'].join(''),
      status: 422,
      says: /Cell .*3001.* formulas are refused|formulas are refused/,
    },
    // Markup where a NodePool name goes.
    {
      what: 'markup as a NodePool column',
      body: () => '"karpenter.sh/nodepool","<img src=x onerror=alert(1)>($)","Total costs($)"\n"2026-11-02","1","1"\n',
      status: 422,
      says: /is not a NodePool name/,
    },
    // Sizes.
    { what: '1 byte over 5 MB (raw)', body: () => HEADER + 'x'.repeat(LIMIT + 1 - HEADER.length), status: 413, says: /5 MB/ },
    {
      what: '1 byte over 5 MB (multipart)',
      body: () => multipart(HEADER + 'x'.repeat(LIMIT + 1 - HEADER.length)).body,
      type: multipart('').type,
      status: 413,
      says: /5 MB/,
    },
    { what: '20 MB', body: () => new Uint8Array(20 * 1024 * 1024).fill(0x31), status: 413, says: /5 MB/ },
    // Multipart, streamed by @fastify/multipart with its limits: the file part is cut at 5 MB, one file per form.
    {
      what: '20 MB (multipart)',
      body: () => multipart(new Uint8Array(20 * 1024 * 1024).fill(0x31)).body,
      type: multipart('').type,
      status: 413,
      says: /5 MB/,
    },
    {
      what: 'UTF-16 with a BOM (multipart)',
      body: () => multipart(Uint8Array.from([0xff, 0xfe, ...[...GOOD].flatMap((c) => [c.charCodeAt(0), 0])])).body,
      type: multipart('').type,
      status: 415,
      says: /UTF-16/,
    },
    {
      what: 'Latin-1 (multipart)',
      body: () => multipart(Uint8Array.from([...enc.encode(GOOD), 0xe9, 0x0a])).body,
      type: multipart('').type,
      status: 415,
      says: /byte 0xe9 at offset \d+ \(line 5\)/,
    },
    {
      what: 'a form without a file (multipart)',
      body: () => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`,
      type: multipart('').type,
      status: 400,
      says: /has no file/,
    },
    {
      what: 'two files in one form (multipart)',
      body: () => twoFiles(GOOD, GOOD),
      type: multipart('').type,
      status: 400,
      says: /more than one file/,
    },
    {
      what: 'a form cut short (multipart)',
      body: () => multipart(GOOD).body.subarray(0, 200),
      type: multipart('').type,
      status: 400,
      says: /cut short/,
    },
    // Encodings.
    {
      what: 'UTF-16 big-endian with a BOM',
      body: () => Uint8Array.from([0xfe, 0xff, ...[...GOOD].flatMap((c) => [0, c.charCodeAt(0)])]),
      status: 415,
      says: /UTF-16/,
    },
    {
      what: 'UTF-16 without a BOM',
      body: () => Uint8Array.from([...GOOD].flatMap((c) => [c.charCodeAt(0), 0])),
      status: 415,
      says: /NUL bytes/,
    },
    {
      what: 'Windows-1252 curly quotes',
      body: () => Uint8Array.from([...enc.encode(GOOD), 0x93, 0x94, 0x0a]),
      status: 415,
      says: /not valid UTF-8/,
    },
    {
      what: 'an overlong UTF-8 encoding of "<"',
      body: () => Uint8Array.from([...enc.encode(GOOD), 0xc0, 0xbc, 0x0a]),
      status: 415,
      says: /not valid UTF-8/,
    },
    {
      what: 'a PNG',
      body: () => Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      status: 415,
      says: /NUL bytes|not valid UTF-8/,
    },
    // Layouts that are almost Cost Explorer's.
    {
      what: 'a Cost and Usage Report',
      body: () => 'identity/LineItemId,lineItem/UnblendedCost,lineItem/UsageStartDate\nabc,1,2026-11-02\n',
      status: 422,
      says: /Cost and Usage Report/,
    },
    {
      what: 'semicolons between quoted cells (a European spreadsheet)',
      body: () => GOOD.replaceAll(',', ';'),
      status: 400,
      says: /semicolons: re-save with commas/,
    },
    {
      what: 'semicolons between bare cells',
      body: () => GOOD.replaceAll('"', '').replaceAll(',', ';'),
      status: 422,
      says: /semicolons: re-save with commas/,
    },
    { what: 'a header and no rows', body: () => HEADER, status: 422, says: /no period rows/ },
    { what: 'a short row', body: () => csv('"2026-11-02","1"\n'), status: 422, says: /Row 2 has 2 cells/ },
    {
      what: 'a total that does not add up (cut short)',
      body: () => csv('"karpenter.sh/nodepool total","30","0","30"\n', '"2026-11-02","1.5","0","1.5"\n'),
      status: 422,
      says: /looks edited or cut short/,
    },
    {
      what: 'the same NodePool twice',
      body: () => '"karpenter.sh/nodepool","general($)","general($)","Total costs($)"\n"2026-11-02","1","1","2"\n',
      status: 422,
      says: /two columns/,
    },
    {
      what: 'a period twice',
      body: () => csv('"2026-11-02","1","0","1"\n', '"2026-11-02","1","0","1"\n'),
      status: 422,
      says: /appears twice/,
    },
    { what: 'a quote in the wrong place', body: () => csv('"2026-11-02,"1","0","1"\n'), status: 400, says: /CSV syntax error on line 2/ },
    { what: 'a quote left open', body: () => csv('"2026-11-02","1","0","1\n'), status: 400, says: /CSV syntax error/ },
    {
      what: '1,001 columns',
      body: () => `"karpenter.sh/nodepool",${Array.from({ length: 999 }, (_, i) => `"p${i}($)"`).join(',')},"Total costs($)"\n`,
      status: 422,
      says: /at most 1000/,
    },
    // Requests that are not a CSV upload, and hostile names.
    { what: 'JSON', body: () => '{"lines":[]}', type: 'application/json', status: 415, says: /text\/csv or multipart/ },
    { what: 'no content type', body: () => GOOD, type: '', status: 415, says: /text\/csv or multipart/ },
    { what: 'multipart without a boundary', body: () => GOOD, type: 'multipart/form-data', status: 400, says: /boundary/ },
    { what: 'a path as the import name', body: () => GOOD, name: '..%2F..%2Fetc%2Fpasswd', status: 400, says: /"name"/ },
    { what: 'markup as the import name', body: () => GOOD, name: '%3Cscript%3Ealert(1)%3C%2Fscript%3E', status: 400, says: /"name"/ },
  ];

  it.each(cases)('$what: $status', async (c) => {
    const res = await post(c.body(), { type: c.type, name: c.name });
    expect(res.statusCode).toBe(c.status);
    const body = res.json() as { statusCode: number; message: string };
    expect(body.statusCode).toBe(c.status);
    expect(body.message).toMatch(c.says);
    expect(body.message.length).toBeLessThan(600); // says why, does not echo the file
    expect(state()).toEqual(before);
  });

  it('accepts what is valid at the edges: a BOM, negative amounts (credits), a file of exactly 5 MB', async () => {
    expect((await post(`\ufeff${GOOD}`, { name: 'bom' })).statusCode).toBe(201);
    expect((await post(csv('"2026-11-02","-1.5","0","-1.5"\n'), { name: 'credit' })).statusCode).toBe(201);
    const head = HEADER.replace(',"No tag key: karpenter.sh/nodepool($)"', '');
    const rows = rowsOf(3000).map((r) => r.replace(',"",', ','));
    // The last amount written with trailing zeros ("1.000…") brings the file to exactly 5 MB.
    const short = LIMIT - Buffer.byteLength(head + rows.join(''));
    rows[rows.length - 1] = rows[rows.length - 1].replace('","1","1"', `","1.${'0'.repeat(short - 1)}","1"`);
    const text = head + rows.join('');
    expect(Buffer.byteLength(text)).toBe(LIMIT);
    const res = await post(text, { name: 'five-mb' });
    expect([res.statusCode, (res.json() as { lines?: number }).lines]).toEqual([201, 3000]);
  });
});

describe('a failure inside the write', () => {
  it('keeps nothing of the file and leaves the earlier import of that name as it was', async () => {
    expect((await post(GOOD, { name: 'atomic' })).statusCode).toBe(201);
    const before = state();
    // The 3rd line written fails (as a full disk would, part way through the transaction).
    db.exec(`CREATE TEMP TRIGGER fail_third_line BEFORE INSERT ON cost_lines
      WHEN NEW.source = 'csv:atomic' AND (SELECT COUNT(*) FROM cost_lines WHERE source = 'csv:atomic') >= 2
      BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END`);
    try {
      const bigger = csv('"2026-11-02","2","1","3"\n', '"2026-11-03","2","1","3"\n', '"2026-11-04","2","1","3"\n');
      const res = await post(bigger, { name: 'atomic' });
      expect(res.statusCode).toBe(500);
      expect((res.json() as { message: string }).message).not.toContain('simulated'); // 5xx details stay in the log
    } finally {
      db.exec('DROP TRIGGER fail_third_line');
    }
    expect(state()).toEqual(before);
  });
});
