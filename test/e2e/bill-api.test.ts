import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../db/open-db.js';
import { createBillLinesRepository } from '../../db/repositories/bill-lines-repository.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { PRACTICE_NOT_SERVED } from '../../server/services/bill-practice.js';
import type { BillLinesResponse, ImportResponse } from '../../server/schemas/bill.js';

/** The bill API's contract on a fresh database: 4xx messages that name the problem, whole imports or none. */
let db: Db;
let app: FastifyInstance;
const NOW = Date.parse('2026-11-15T00:00:00Z');
const CSV =
  '"karpenter.sh/nodepool","general($)","No tag key: karpenter.sh/nodepool($)","Total costs($)"\n"karpenter.sh/nodepool total","3","1","4"\n"2026-11-02","1","0.5","1.5"\n"2026-11-03","2","0.5","2.5"\n';

beforeAll(async () => {
  db = openDb({ path: join(mkdtempSync(join(tmpdir(), 'ledger-bill-api-')), 'ledger.db') });
  app = buildApp({ db, now: () => NOW });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  db?.close();
});

const message = (body: string): string => (JSON.parse(body) as { message: string }).message;

describe('bad requests name the parameter', () => {
  it.each([
    ['/api/bill/lines?groupBy=SERVICE', 'groupBy'],
    ['/api/bill/lines?from=2026-02-30', 'from'],
    ['/api/bill/lines?source=s3', 'source'],
    ['/api/bill/explain?lineId=0', 'lineId'],
    ['/api/bill/explain', 'lineId'],
    ['/api/bill/explain?period=yesterday', 'period'],
    ['/api/bill/practice?perturbation=flood', 'perturbation'],
    ['/api/bill/practice?day=11/05/2026', 'day'],
  ])('%s -> 400 naming %s', async (url, param) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(400);
    expect(message(res.body)).toContain(`"${param}"`);
  });

  it('an unknown line is a 404 that says which', async () => {
    const missing = await app.inject({ url: '/api/bill/explain?lineId=4242' });
    expect([missing.statusCode, message(missing.body)]).toEqual([404, 'No bill line with id 4242.']);
  });

  it('practice bills: 501 saying they need the demo on a server started without the sandbox (serve)', async () => {
    for (const url of ['/api/bill/practice', '/api/bill/practice/answers?seed=2']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(501);
      expect(JSON.parse(res.body)).toEqual({ statusCode: 501, error: 'Not Implemented', message: PRACTICE_NOT_SERVED });
    }
  });

  it('practice bills: 409 with the sandbox but a database not seeded from it', async () => {
    const withSandbox = buildApp({ db, now: () => NOW, practiceBills: sandboxPracticeBills });
    try {
      const practice = await withSandbox.inject({ url: '/api/bill/practice' });
      expect(practice.statusCode).toBe(409);
      expect(message(practice.body)).toContain('seeded from the sandbox');
    } finally {
      await withSandbox.close();
    }
  });
});

describe('POST /api/bill/import', () => {
  it('stores a console export as csv:<name> and lists it with its totals', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/bill/import?name=nov',
      headers: { 'content-type': 'text/csv' },
      payload: CSV,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json<ImportResponse>()).toMatchObject({
      source: 'csv:nov',
      lines: 4,
      periods: 2,
      totalUsd: 4,
      fileTotalUsd: 4,
      replaced: false,
    });
    const lines = (await app.inject({ url: '/api/bill/lines?source=csv:nov&from=2026-11-01&to=2026-11-08' })).json<BillLinesResponse>();
    expect(lines).toMatchObject({
      groupBy: 'NONE',
      granularity: 'DAILY',
      totals: {
        unblendedUsd: 4,
        byNodePool: [
          { nodePool: '', unblendedUsd: 1, lines: 2 },
          { nodePool: 'general', unblendedUsd: 3, lines: 2 },
        ],
      },
    });
    expect(lines.sources.find((s) => s.source === 'csv:nov')).toMatchObject({ kind: 'csv', lines: 4, groupBys: ['NONE'] });
    const csv = await app.inject({ url: '/api/bill/lines.csv?source=csv:nov&from=2026-11-01&to=2026-11-08' });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.trimEnd().split('\r\n')).toHaveLength(5);
  });

  it('refuses bad names and forms without a file, naming what is wrong', async () => {
    const badName = await app.inject({
      method: 'POST',
      url: '/api/bill/import?name=../etc',
      headers: { 'content-type': 'text/csv' },
      payload: CSV,
    });
    expect(badName.statusCode).toBe(400);
    expect(message(badName.body)).toContain('"name"');
    const noFile = await app.inject({
      method: 'POST',
      url: '/api/bill/import',
      headers: { 'content-type': 'multipart/form-data; boundary=B' },
      payload: '--B\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--B--\r\n',
    });
    expect([noFile.statusCode, message(noFile.body)]).toEqual([
      400,
      'The form has no file: send the CSV as a file field (e.g. curl -F file=@costs.csv).',
    ]);
  });

  it('writes an import in one transaction: a failure half way leaves the earlier import of that name whole', () => {
    const repo = createBillLinesRepository(db);
    const before = repo.listLines({ source: 'csv:nov', groupBy: 'NONE', granularity: 'DAILY', fromMs: 0, toMs: NOW });
    expect(before).toHaveLength(4);
    const meta = {
      source: 'csv:nov',
      fileName: null,
      layout: 'ce-console-tag',
      granularity: 'DAILY' as const,
      sha256: 'x',
      bytes: 1,
      periods: 1,
      totalUsd: 2,
      fileTotalUsd: null,
      importedAt: NOW,
    };
    const line = { periodStart: '2026-11-04', periodStartMs: Date.parse('2026-11-04T00:00:00Z'), nodePool: 'general', unblendedUsd: 1 };
    // The same period and NodePool twice violates cost_lines' UNIQUE key on the second insert.
    expect(() => repo.replaceImport(meta, [line, line])).toThrow(/UNIQUE/);
    expect(repo.listLines({ source: 'csv:nov', groupBy: 'NONE', granularity: 'DAILY', fromMs: 0, toMs: NOW })).toEqual(before);
  });
});
