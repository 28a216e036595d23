import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { buildApp } from '../../server/app.js';
import {
  API_TABLE_END,
  API_TABLE_START,
  apiOperations,
  apiTableMarkdown,
  undocumentedOperations,
  withApiTable,
} from '../../server/routes/api-table.js';

/*
 * The API table in docs/api.md is what the OpenAPI document gives (npm run docs:api writes it): a route added, renamed or
 * re-described without running the script, or added without its summary and group, turns this red.
 */
const readmePath = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'docs', 'api.md');
let db: Db;
let app: FastifyInstance;
let doc: unknown;

beforeAll(async () => {
  db = openDb({ path: ':memory:' });
  app = buildApp({ db, cacheResponses: false });
  await app.ready();
  doc = app.swagger();
});
afterAll(async () => {
  await app?.close();
  db?.close();
});

describe('the API table in docs/api.md', () => {
  it('documents every /api route with a summary and one of the groups', () => {
    expect(apiOperations(doc).length).toBeGreaterThanOrEqual(21);
    expect(undocumentedOperations(doc)).toEqual([]);
  });

  it('is exactly the table the OpenAPI document gives (run npm run docs:api after changing a route)', () => {
    const readme = readFileSync(readmePath, 'utf8');
    expect(readme).toContain(API_TABLE_START);
    const written = readme.slice(readme.indexOf(API_TABLE_START) + API_TABLE_START.length, readme.indexOf(API_TABLE_END)).trim();
    expect(written).toBe(apiTableMarkdown(doc));
    expect(withApiTable(readme, apiTableMarkdown(doc))).toBe(readme);
  });

  it('shows a route that the document gains, and names a route without its summary', () => {
    const paths = (doc as { paths: Record<string, unknown> }).paths;
    const grown = { paths: { ...paths, '/api/new': { get: { tags: ['cost'], responses: {} } } } };
    expect(apiTableMarkdown(grown)).toContain('| `GET /api/new` |');
    expect(apiTableMarkdown(grown)).not.toBe(apiTableMarkdown(doc));
    expect(undocumentedOperations(grown)).toEqual(['GET /api/new: no summary']);
  });
});
