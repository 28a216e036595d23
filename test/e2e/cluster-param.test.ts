import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { buildApp } from '../../server/app.js';

/*
 * ?cluster= on every /api route (docs/clusters.md): declared in each route's schema (so the OpenAPI document lists it
 * and strict query parameters accept it), resolved by one hook: a cluster the ledger does not hold is a 400 naming it
 * and the ones it holds; a one-cluster ledger answers the same with its name as without.
 */

let db: Db;
let app: FastifyInstance;

interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
}

beforeAll(async () => {
  db = openDb({ path: ':memory:' });
  createClustersRepository(db).declare(
    [
      {
        name: 'week4',
        namedFrom: 'collect',
        account: null,
        region: 'us-west-2',
        kubeContext: 'week4',
        inCluster: false,
        awsProfile: null,
        roleArn: null,
        prometheusUrl: null,
      },
    ],
    0,
  );
  app = buildApp({ db, webRoot: join(tmpdir(), 'no-web'), now: () => Date.UTC(2026, 10, 3), cacheResponses: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  db?.close();
});

describe('?cluster=', () => {
  it('is a query parameter of every /api operation in the OpenAPI document', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json<OpenApiDoc>();
    const missing: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        operations += 1;
        if (!(op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cluster')) missing.push(`${method} ${path}`);
      }
    }
    expect(operations).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  it.each(['/api/status', '/api/nodepools', '/api/alerts/settings', '/api/budgets'])(
    '%s answers the same with the one cluster named as without',
    async (path) => {
      const without = await app.inject({ url: path });
      const named = await app.inject({ url: `${path}?cluster=week4` });
      expect(named.statusCode).toBe(200);
      expect(named.json()).toEqual(without.json());
    },
  );

  it.each(['/api/status', '/api/cost/nodepools/daily?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z', '/api/budgets'])(
    '%s refuses a cluster the ledger does not hold, naming it and the ones it holds',
    async (path) => {
      const res = await app.inject({ url: `${path}${path.includes('?') ? '&' : '?'}cluster=staging` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ message: 'Query parameter "cluster": unknown cluster "staging"; this ledger holds "week4"' });
    },
  );

  it('still refuses a parameter no route declares, listing cluster among those it takes', async () => {
    const res = await app.inject({ url: '/api/status?clustr=week4' });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toBe(
      'Unknown query parameter "clustr" (did you mean "cluster"?); this route takes cluster',
    );
  });
});
