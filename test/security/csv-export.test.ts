import type { FastifyInstance } from 'fastify';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { apiGets, recordRoutes, type RouteInfo } from './fixtures/api-routes.js';
import { HOSTILE_TAG_VALUES, hostileTeams, seedHostileDb, type HostileDb } from './fixtures/hostile-db.js';

/*
 * Every CSV download defuses formulas. The database holds what a hostile cluster and account can put there (team
 * label values like =HYPERLINK(...), +cmd|..., @SUM(...); bill lines tagged "=1+1"); every route that can answer
 * text/csv (found from the registered routes: a ".csv" alias or a `format` parameter) is downloaded, parsed, and no
 * cell may start with = + - @ tab or CR unless it is a plain number. A spreadsheet shows the defused cells as text.
 */
let h: HostileDb;
let app: FastifyInstance;
let routes: RouteInfo[];

beforeAll(async () => {
  h = await seedHostileDb(3);
  app = buildApp({ db: h.db, now: () => h.endMs });
  routes = recordRoutes(app);
  await app.ready();
}, 300_000); // about 5 s idle; minutes on a loaded machine
afterAll(async () => {
  await app?.close();
  h?.close();
});

/** RFC 4180 read by a maintained parser (csv-parse), not by our own code: quoted cells may hold commas, quotes and line breaks. */
const parseCsv = (text: string): string[][] => parse(text, { relax_column_count: true }) as string[][];

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;
const props = (r: RouteInfo): string[] =>
  Object.keys((r.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

/** A query that gives the route data over the seeded days, asking for CSV where CSV is a format. */
async function csvUrl(r: RouteInfo): Promise<string> {
  const q = new URLSearchParams();
  const p = props(r);
  if (p.includes('lineId')) {
    // Explain the bill line tagged "=1+1": its NodePool value goes into every row of the explanation.
    const lines = (
      await app.inject({
        url: `/api/bill/lines?from=${new Date(h.startMs).toISOString().slice(0, 10)}&to=${new Date(h.endMs).toISOString().slice(0, 10)}`,
      })
    ).json<{ lines: { id: number; nodePool: string }[] }>();
    q.set('lineId', String(lines.lines.find((l) => l.nodePool === '=1+1')?.id ?? 0));
    if (p.includes('format')) q.set('format', 'csv');
    return `${r.url}?${q}`;
  }
  if (p.includes('from')) q.set('from', new Date(h.startMs).toISOString().slice(0, 10));
  if (p.includes('to')) q.set('to', new Date(h.endMs).toISOString().slice(0, 10));
  if (p.includes('at') && !p.includes('from')) q.set('at', new Date(h.endMs - 3_600_000).toISOString());
  const required = (r.schema?.querystring as { required?: string[] } | undefined)?.required ?? [];
  if (required.includes('nodepool')) {
    // A what-if edit needs a NodePool: one of the data's whose name is a valid NodePool name.
    const pools = (await app.inject({ url: '/api/nodepools' })).json<{ items: { name: string }[] }>();
    q.set('nodepool', pools.items.map((x) => x.name).find((n) => /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n)) ?? 'general');
  }
  if (p.includes('format')) q.set('format', 'csv');
  const qs = q.toString();
  return qs === '' ? r.url : `${r.url}?${qs}`;
}

describe('CSV downloads', () => {
  it('every route that answers CSV defuses formula cells, and hostile values did reach the files', async () => {
    // Practice bills need a database `demo` seeded (409 here); their CSV is the lines and explanations tables checked
    // here through /api/bill/lines and /api/bill/explain, and test/e2e/table-routes-csv.test.ts downloads them.
    const needsDemo = ['/api/bill/practice', '/api/bill/practice/answers'];
    const csvRoutes = apiGets(routes).filter((r) => (r.url.endsWith('.csv') || props(r).includes('format')) && !needsDemo.includes(r.url));
    expect(csvRoutes.length).toBeGreaterThanOrEqual(5);
    const unsafe: string[] = [];
    const defused = new Set<string>();
    for (const r of csvRoutes) {
      const url = await csvUrl(r);
      const res = await app.inject({ url });
      expect({ url, status: res.statusCode, type: res.headers['content-type'] }).toEqual({
        url,
        status: 200,
        type: 'text/csv; charset=utf-8',
      });
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[\w.-]+\.csv"$/);
      for (const [i, row] of parseCsv(res.body).entries()) {
        for (const cell of row) {
          if (FORMULA_START.test(cell) && !NUMBER.test(cell)) unsafe.push(`${url} row ${i + 1}: ${JSON.stringify(cell)}`);
          if (/^'[=+\-@\t\r]/.test(cell)) defused.add(cell.slice(1));
        }
      }
    }
    expect(unsafe).toEqual([]);
    // The hostile values were there to defuse: team labels from the cluster, tag values from the bill.
    const expected = [...hostileTeams(), ...HOSTILE_TAG_VALUES].filter((v) => FORMULA_START.test(v));
    expect(expected.filter((v) => !defused.has(v))).toEqual([]);
  }, 60_000);

  it('keeps the text of a defused cell whole (the apostrophe is the only change)', async () => {
    const res = await app.inject({
      url: `/api/bill/lines.csv?from=${new Date(h.startMs).toISOString().slice(0, 10)}&to=${new Date(h.endMs).toISOString().slice(0, 10)}`,
    });
    const rows = parseCsv(res.body);
    const nodepool = rows[0].indexOf('nodepool');
    const values = rows.slice(1).map((r) => r[nodepool]);
    expect(values).toEqual(expect.arrayContaining(["'=1+1", "'-2+3", "'@cmd", '<img src=x onerror=alert(5)>']));
  });
});
