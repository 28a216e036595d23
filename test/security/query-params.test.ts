import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { fillSynthetic } from '../fixtures/synthetic.js';
import { apiGets, recordRoutes, type RouteInfo } from './fixtures/api-routes.js';

/*
 * Query parameters out of range on every GET /api route, found from the routes the app registers (so routes added
 * later are covered without editing this file): each hostile value gets either an answer or a 400 whose message
 * names the parameter, never a 5xx. (A 400 may quote the value back: it is JSON, served with nosniff and a CSP,
 * and the dashboard renders messages as text.) Then the cases the API promises by name.
 */
let db: Db;
let app: FastifyInstance;
let routes: RouteInfo[];

beforeAll(async () => {
  db = openDb({ path: join(mkdtempSync(join(tmpdir(), 'ledger-params-')), 'ledger.db') });
  fillSynthetic(db, { startDay: '2026-11-01', days: 3 });
  // With the demo's practice bills, so their parameters are checked too (without them the routes answer 501).
  app = buildApp({ db, now: () => Date.parse('2026-11-04T00:00:00Z'), practiceBills: sandboxPracticeBills });
  routes = recordRoutes(app);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  db?.close();
});

const HOSTILE = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-1',
  '-0',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  '0x10',
  '2026-02-30',
  '2026-13-01',
  '0000-01-01',
  '9999-12-31',
  '2026-11-01T25:00:00Z',
  '1900-01-01',
  'today',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '\u0000',
  'ünïcødé',
  '=cmd|"/c calc"!A1',
  'x'.repeat(5_000),
];

const paramsOf = (r: RouteInfo): string[] =>
  Object.keys((r.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
const requiredOf = (r: RouteInfo): string[] => (r.schema?.querystring as { required?: string[] } | undefined)?.required ?? [];

describe('every GET /api route, every query parameter, hostile values', () => {
  it('finds the routes and their parameters', () => {
    const withParams = apiGets(routes).filter((r) => paramsOf(r).length > 0);
    expect(withParams.length).toBeGreaterThanOrEqual(4);
    expect(withParams.map((r) => r.url)).toEqual(expect.arrayContaining(['/api/cost/nodepools/daily', '/api/efficiency/nodepools']));
  });

  it('answers 2xx/4xx (never 5xx), and a 400 names the parameter', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const r of apiGets(routes)) {
      // A route that needs one parameter of a set (compare: event or at) says so when called bare; a hostile
      // value that leaves it saying the same was not taken for that parameter, which is fine.
      const bare = await app.inject({ url: r.url });
      const needs = bare.statusCode === 400 ? bare.body : null;
      for (const param of paramsOf(r)) {
        for (const value of HOSTILE) {
          const res = await app.inject({ url: `${r.url}?${new URLSearchParams({ [param]: value })}` });
          checked += 1;
          const where = `${r.url}?${param}=${JSON.stringify(value.slice(0, 30))}`;
          if (res.statusCode >= 500) problems.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          if (res.statusCode === 400 && res.body !== needs) {
            const message = (res.json() as { message: string }).message;
            // A route needing several parameters (a workload's chart) asks for the next one it was not given.
            const asksForAnother = requiredOf(r).some((other) => other !== param && message.includes(`parameter "${other}"`));
            if (!message.includes(`"${param}"`) && !asksForAnother) problems.push(`${where}: 400 without naming "${param}": ${message}`);
            if (message.length > 600) problems.push(`${where}: a ${message.length}-character message (echoes the input?)`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('the promised refusals', () => {
  it.each([
    ['a range over two years', '/api/cost/nodepools/daily?from=1900-01-01&to=2100-01-01', 'from', 'at most 731 days'],
    ['to before from', '/api/efficiency/nodepools?from=2026-11-03&to=2026-11-01', 'to', 'before to'],
    ['a day that does not exist', '/api/cost/nodepools/daily?from=2026-02-30', 'from', 'not a calendar date'],
    ['a date without a zone', '/api/cost/nodepools/daily?from=2026-11-01T00:00:00', 'from', 'ISO 8601'],
    ['NaN for a number', '/api/bill/explain?lineId=NaN', 'lineId', 'integer'],
    ['a negative number', '/api/bill/practice?seed=-1', 'seed', '>= 0'],
    ['a number too large', '/api/bill/practice?seed=99999999999999999999', 'seed', '<='],
    ['Infinity for a number (ajv coerces it and lets it past maximum)', '/api/nodes?limit=Infinity', 'limit', 'finite number'],
    ['1e309 for a number', '/api/nodes?offset=1e309', 'offset', 'finite number'],
    ['an unknown enum value', '/api/nodes?capacityType=gpu', 'capacityType', '"on-demand", "spot" or "reserved"'],
    ['an unknown format', '/api/teams/cost?format=xml', 'format', '"json" or "csv"'],
    ['a window out of range', '/api/consolidation/compare?at=2026-11-02&window=0m', 'window', 'from 5m to 24h'],
    ['a NodePool name with markup', '/api/cost/nodepools/daily?nodepool=%3Cscript%3E', 'nodepool', 'NodePool name'],
    ['a parameter given twice', '/api/cost/nodepools/daily?from=2026-11-01&from=2026-11-02', 'from', 'ISO 8601'],
  ])('%s: 400 naming %s', async (_what, url, param, detail) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { statusCode: number; error: string; message: string };
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.message).toMatch(new RegExp(`^Invalid query(string)? parameter "${param}": `));
    expect(body.message).toContain(detail);
  });
});
