import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../db/open-db.js';
import { fillSynthetic } from '../test/fixtures/synthetic.js';
import { buildApp } from './app.js';
import type { BillLinesResponse } from './schemas/bill.js';
import type { EfficiencyResponse } from './schemas/efficiency.js';
import type { ErrorResponse } from './schemas/common.js';

/*
 * Unknown query parameters are refused on every /api route, found from the OpenAPI document (so a route added later
 * is covered without editing this file): a 400 that names the parameter and lists the ones the route takes, where
 * ajv used to drop it and answer as if it had not been sent.
 */

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
}
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;
let doc: OpenApiDocument;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-strict-query-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  fillSynthetic(db, { startDay: '2026-11-01', days: 2 });
  app = buildApp({ db, now: () => Date.parse('2026-11-03T00:00:00Z') });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  doc = (await (await fetch(`${base}/docs/json`)).json()) as OpenApiDocument;
});
afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** [path, method, declared query parameters] of every /api operation without path parameters. */
function apiOperations(method: 'get' | 'post'): [string, string[]][] {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/') && !path.includes('{'))
    .flatMap(([path, ops]) => {
      const op = ops[method];
      return op === undefined
        ? []
        : [[path, (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)] as [string, string[]]];
    });
}

/** The parameter names after "this route takes", or [] for "no query parameters". */
function takes(message: string): string[] {
  const m = /; this route takes (.*)$/.exec(message);
  if (m === null) throw new Error(`no list of parameters in: ${message}`);
  return m[1] === 'no query parameters' ? [] : m[1].split(', ');
}

describe('every /api route in the OpenAPI document refuses ?bogusParam=1', () => {
  it('finds the routes, CSV twins and the import among them', () => {
    const gets = apiOperations('get').map(([path]) => path);
    expect(gets.length).toBeGreaterThanOrEqual(15);
    expect(gets).toEqual(
      expect.arrayContaining(['/api/status', '/api/nodepools', '/api/efficiency/nodepools', '/api/bill/lines.csv', '/api/teams/cost']),
    );
    expect(apiOperations('post').map(([path]) => path)).toContain('/api/bill/import');
  });

  it('GET: 400 naming bogusParam and listing exactly the parameters the document declares, as JSON or CSV', async () => {
    const problems: string[] = [];
    for (const [path, declared] of apiOperations('get')) {
      // Accept: text/csv asks table routes for CSV: a refusal is still the JSON error.
      for (const accept of ['application/json', 'text/csv']) {
        const res = await fetch(`${base}${path}?bogusParam=1`, { headers: { accept } });
        const body = (await res.json().catch(() => null)) as ErrorResponse | null;
        const message = body?.message ?? '';
        if (res.status !== 400 || body?.error !== 'Bad Request' || !message.startsWith('Unknown query parameter "bogusParam"')) {
          problems.push(`${path} (${accept}): ${res.status} ${message}`);
        } else if (takes(message).join(',') !== declared.join(',')) {
          problems.push(`${path}: lists ${takes(message).join(',')} but declares ${declared.join(',')}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 30_000);

  it('with ?format=csv on routes that take it: still refused', async () => {
    const csvRoutes = apiOperations('get').filter(([, declared]) => declared.includes('format'));
    expect(csvRoutes.length).toBeGreaterThanOrEqual(5);
    for (const [path] of csvRoutes) {
      const res = await fetch(`${base}${path}?format=csv&bogusParam=1`);
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path,
        status: 400,
        type: 'application/json; charset=utf-8',
      });
    }
  });

  it('POST: 400 naming bogusParam, and nothing is imported (the same file without it is)', async () => {
    // A Cost Explorer console export grouped by the NodePool tag: 1.5 USD general on one day.
    const file =
      '"karpenter.sh/nodepool","general($)","Total costs($)"\n"karpenter.sh/nodepool total","1.5","1.5"\n"2026-11-02","1.5","1.5"\n';
    const importCsv = (query: string) =>
      fetch(`${base}/api/bill/import?${query}`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: file });
    const sources = async (): Promise<string[]> =>
      ((await (await fetch(`${base}/api/bill/lines`)).json()) as BillLinesResponse).sources.map((s) => s.source);
    const before = await sources();
    // Each POST gets a body it takes (the bill import a CSV, predict a Pod as YAML), so only the parameter is wrong.
    const bodies: Record<string, { type: string; body: string }> = {
      '/api/whatif/predict': {
        type: 'application/yaml',
        body: 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: i}]\n',
      },
      '/api/budgets': {
        type: 'application/json',
        body: JSON.stringify({
          name: 'strict',
          scope: { kind: 'cluster', name: '' },
          period: 'monthly',
          amount: 100,
          currency: 'USD',
          costMetric: 'unblended',
          thresholds: [0.8, 1],
          dollarLimit: false,
        }),
      },
    };
    for (const [path] of apiOperations('post')) {
      const { type, body } = bodies[path] ?? { type: 'text/csv', body: file };
      const res = await fetch(`${base}${path}?bogusParam=1`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as ErrorResponse).message).toMatch(/^Unknown query parameter "bogusParam"/);
    }
    expect(await sources()).toEqual(before);
    expect((await importCsv('name=strict&bogusParam=1')).status).toBe(400);
    expect(await sources()).toEqual(before);
    expect((await importCsv('name=strict')).status).toBe(201);
    expect(await sources()).toEqual([...before, 'csv:strict'].sort());
  });
});

describe('declared parameters', () => {
  const efficiency = async (query: string): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${base}/api/efficiency/nodepools?${query}`);
    return { status: res.status, body: await res.json() };
  };

  it('still filter: nodepool=general answers general only, where all three NodePools exist', async () => {
    const all = await efficiency('from=2026-11-01&to=2026-11-03');
    const general = await efficiency('from=2026-11-01&to=2026-11-03&nodepool=general');
    expect(all.status).toBe(200);
    expect(general.status).toBe(200);
    expect((all.body as EfficiencyResponse).series.map((s) => s.nodePool)).toEqual(['batch', 'general', 'system']);
    expect((general.body as EfficiencyResponse).series.map((s) => s.nodePool)).toEqual(['general']);
  });

  it('a typo is refused (it used to be dropped, answering for every NodePool), naming the likely meant one and all accepted', async () => {
    const typo = await efficiency('from=2026-11-01&to=2026-11-03&nodPool=general');
    expect(typo.status).toBe(400);
    expect(typo.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Unknown query parameter "nodPool" (did you mean "nodepool"?); this route takes from, to, nodepool, format, cluster',
    });
  });

  it('an unknown parameter is named before a missing or bad declared one, and several are all named', async () => {
    const res = await fetch(`${base}/api/nodes?limit=0&Offset=1&sortt=cpu`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorResponse).message).toBe(
      'Unknown query parameters "Offset" (did you mean "offset"?), "sortt" (did you mean "sort"?); this route takes at, nodepool, capacityType, format, sort, order, limit, offset, q, cluster',
    );
  });
});
