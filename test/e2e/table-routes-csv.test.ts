import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { API_ROUTES, API_WRITE_ROUTES } from '../../server/schemas/api-routes.js';
import { seededDb, type SeededDb } from '../fixtures/seeded-api.js';

/*
 * CSV one way on every table route, found from the OpenAPI document (so a table route added later is covered without
 * editing this file): `Accept: text/csv` gives the same download as `?format=csv` (a header line, rows, an attachment
 * name), `?format=json` wins over the header, no Accept gives JSON, and every GET /api route is either a table route
 * or named here as not one. A day of the default sandbox through the real collectors, with usage, gives every route
 * rows: the seeded-database cache's copy of the day e2e/analytics-sandbox.test.ts and whatif-week4.test.ts read
 * (seeded once for the three of them).
 */
// /api/workloads/usage: one container's hourly points for its chart on the Workloads page (the table is recommendations).
// /api/nodepools/karpenter, /api/whatif/balanced, /api/whatif/overlay: nested answers (pools, overlays, reservations;
// two commands side by side) read on the page, not downloaded.
const NOT_TABLES = [
  '/api/status',
  '/api/workloads/usage',
  '/api/nodepools/karpenter',
  '/api/whatif/balanced',
  '/api/whatif/overlay',
  // each budget's standing with its forecast method: configuration read back, JSON only
  '/api/budgets',
  // alert episodes with their figures and deliveries, and the rules' settings: nested, read on the Alerts page
  '/api/alerts',
  '/api/alerts/settings',
  // the nodes gone and come between two instants, each side counted and priced: two lists, read on the page
  '/api/nodes/changes',
  // the ledger's clusters, each with its freshness and last Kubernetes run (nested): read by the picker and the banner
  '/api/clusters',
];
/** The query a route that is not a table needs to answer 200. */
const NOT_TABLE_QUERY: Record<string, string> = {
  '/api/workloads/usage': '?namespace=default&kind=Deployment&name=web&container=web',
  '/api/whatif/balanced': '?nodepool=general',
  '/api/whatif/overlay': '?priceAdjustment=-12%25',
  '/api/nodes/changes': '?from=2026-11-01T06:00:00Z&to=2026-11-01T12:00:00Z',
};
/**
 * Table routes over an imported Cost and Usage Report, which this seed does not import: they answer an empty
 * download. Their rows are checked in analytics-api.test.ts and test/browser/bill.test.ts (CUR rows written through
 * cur-repository) and end to end in cur-serve.test.ts.
 */
const CUR_TABLES = ['/api/cost/cur/daily', '/api/bill/cur/lines', '/api/bill/cur/explain'];

interface Operation {
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

let seeded: SeededDb;
let app: FastifyInstance;
let doc: Doc;
let day: string;

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-table-csv-', days: 1, usage: true });
  const { db, scenario } = seeded;
  // What `demo` records, so practice bills know the scenario behind the database.
  createRunsRepository(db).setSetting('demo.seeded', `${scenario.name}|${scenario.seed}|v1`);
  // demo injects the sandbox's practice bills; so does this test, to reach the practice routes' CSV.
  app = buildApp({ db, now: () => seeded.endMs, practiceBills: sandboxPracticeBills });
  await app.ready();
  doc = app.swagger() as unknown as Doc;
  day = new Date(seeded.startMs).toISOString().slice(0, 10);
}); // the config's hook timeout: a cold run may seed the day here, or wait for another file's seeding

afterAll(async () => {
  await app?.close();
  await seeded?.close();
});

const gets = (): [string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, ops]) => (path.startsWith('/api/') && ops.get !== undefined ? [[path, ops.get]] : []));
const answersCsv = (op: Operation): boolean => Object.keys(op.responses['200']?.content ?? {}).includes('text/csv');
const isAlias = (path: string): boolean => path.endsWith('.csv');

/** A query that gives the route rows over the seeded day. */
async function queryOf(path: string, op: Operation): Promise<URLSearchParams> {
  const names = new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
  const q = new URLSearchParams();
  if (names.has('lineId')) {
    const lines = (await app.inject({ url: `/api/bill/lines?from=${day}` })).json<{ lines: { id: number }[] }>();
    q.set('lineId', String(lines.lines[0]?.id));
    return q;
  }
  if (path.startsWith('/api/bill/practice')) {
    q.set('seed', '3');
    q.set('day', day);
    return q;
  }
  // A route that needs a NodePool (a what-if edit) gets one of the data's.
  if ((op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'nodepool' && p.required === true)) {
    const pools = (await app.inject({ url: '/api/nodepools' })).json<{ items: { name: string }[] }>();
    q.set('nodepool', pools.items[0]?.name ?? '');
  }
  if (names.has('from')) q.set('from', day);
  if (names.has('at') && !names.has('from')) q.set('at', `${day}T12:00:00Z`);
  return q;
}

describe('CSV on every table route', () => {
  it('finds the table routes in the document, and every other GET /api route is named as not a table', () => {
    const tables = gets().filter(([path, op]) => answersCsv(op) && !isAlias(path));
    expect(tables.length).toBeGreaterThanOrEqual(17);
    expect(gets().filter(([path, op]) => !answersCsv(op) && !NOT_TABLES.includes(path))).toEqual([]);
  });

  it('Accept: text/csv answers the ?format=csv download byte for byte; format=json wins over Accept; no Accept is JSON', async () => {
    const problems: string[] = [];
    for (const [path, op] of gets().filter(([p, o]) => answersCsv(o) && !isAlias(p))) {
      const q = await queryOf(path, op);
      const url = `${path}?${q}`;
      const json = await app.inject({ url });
      const byFormat = await app.inject({ url: `${path}?${new URLSearchParams([...q, ['format', 'csv']])}` });
      const byAccept = await app.inject({ url, headers: { accept: 'text/csv' } });
      const jsonWins = await app.inject({
        url: `${path}?${new URLSearchParams([...q, ['format', 'json']])}`,
        headers: { accept: 'text/csv' },
      });
      const seen = {
        json: [json.statusCode, json.headers['content-type']],
        byFormat: [byFormat.statusCode, byFormat.headers['content-type']],
        byAccept: [byAccept.statusCode, byAccept.headers['content-type'], byAccept.headers['content-disposition'], byAccept.headers.vary],
        jsonWins: [jsonWins.statusCode, jsonWins.headers['content-type']],
      };
      const want = {
        json: [200, 'application/json; charset=utf-8'],
        byFormat: [200, 'text/csv; charset=utf-8'],
        byAccept: [200, 'text/csv; charset=utf-8', expect.stringMatching(/^attachment; filename="[\w.-]+\.csv"$/), 'accept'],
        jsonWins: [200, 'application/json; charset=utf-8'],
      };
      try {
        expect(seen).toEqual(want);
        expect(byAccept.body).toBe(byFormat.body);
        // Answered again from the response cache: the same download, still marked as varying by Accept.
        const again = await app.inject({ url, headers: { accept: 'text/csv' } });
        expect([again.headers['x-ledger-cache'], again.headers.vary, again.headers['content-type'], again.body]).toEqual([
          'hit',
          'accept',
          'text/csv; charset=utf-8',
          byFormat.body,
        ]);
        expect(jsonWins.json()).toEqual(json.json());
        const rows = parse(byAccept.body, { columns: true }) as Record<string, string>[];
        if (CUR_TABLES.includes(path)) expect(rows, `${url}: no CUR imported, no rows`).toEqual([]);
        else expect(rows.length, `${url}: rows in the CSV`).toBeGreaterThan(0);
      } catch (err) {
        problems.push(`${url}: ${(err as Error).message.slice(0, 400)}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('the old .csv paths still answer the same download as ?format=csv', async () => {
    const aliases = gets().filter(([path]) => isAlias(path));
    expect(aliases.map(([p]) => p).sort()).toEqual(['/api/bill/explain.csv', '/api/bill/lines.csv']);
    for (const [path, op] of aliases) {
      const q = await queryOf(path, op);
      const alias = await app.inject({ url: `${path}?${q}` });
      const byFormat = await app.inject({ url: `${path.slice(0, -'.csv'.length)}?${new URLSearchParams([...q, ['format', 'csv']])}` });
      expect([alias.statusCode, alias.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
      expect(alias.body).toBe(byFormat.body);
    }
  });

  it('a route that is not a table answers JSON whatever the Accept header asks', async () => {
    for (const path of NOT_TABLES) {
      const res = await app.inject({ url: `${path}${NOT_TABLE_QUERY[path] ?? ''}`, headers: { accept: 'text/csv' } });
      expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'application/json; charset=utf-8']);
    }
  });
});

describe('the route map and the document agree', () => {
  it('every route of the maps (reads and writes) is in the document under its method, and every /api operation is in a map or a .csv alias', () => {
    for (const [path, entry] of Object.entries(API_ROUTES)) expect(doc.paths[path]?.[entry.method.toLowerCase()], path).toBeDefined();
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      path.startsWith('/api/') ? Object.keys(ops).map((m) => `${m} ${path}`) : [],
    );
    for (const key of Object.keys(API_WRITE_ROUTES)) {
      const [method = '', path = ''] = key.split(' ');
      expect(doc.paths[path]?.[method.toLowerCase()], key).toBeDefined();
    }
    const mapped = [
      ...Object.entries(API_ROUTES).map(([path, e]) => `${e.method.toLowerCase()} ${path}`),
      ...Object.keys(API_WRITE_ROUTES).map((key) => key.replace(/^[A-Z]+/, (m) => m.toLowerCase())),
    ];
    expect(documented.filter((o) => !mapped.includes(o) && !o.endsWith('.csv')).sort()).toEqual([]);
  });
});
