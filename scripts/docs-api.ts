import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb } from '../db/open-db.js';
import { buildApp } from '../server/app.js';
import { apiTableMarkdown, undocumentedOperations, withApiTable } from '../server/routes/api-table.js';

/**
 * npm run docs:api — writes the API table in docs/api.md from the OpenAPI document (the one /docs/json serves), built on an
 * empty in-memory database. `--check` only says whether the README is current (exit 1 if not).
 */
const readmePath = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'docs/api.md');

const db = openDb({ path: ':memory:' });
const app = buildApp({ db, cacheResponses: false });
await app.ready();
const doc = app.swagger();
await app.close();
db.close();

const missing = undocumentedOperations(doc);
if (missing.length > 0) {
  console.error(`Routes without their documentation:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
const readme = readFileSync(readmePath, 'utf8');
const next = withApiTable(readme, apiTableMarkdown(doc));
if (process.argv.includes('--check')) {
  console.log(
    next === readme ? 'docs/api.md: the API table is current.' : 'docs/api.md: the API table is out of date: run npm run docs:api.',
  );
  process.exit(next === readme ? 0 : 1);
}
if (next === readme) console.log('docs/api.md: the API table is current.');
else {
  writeFileSync(readmePath, next);
  console.log('docs/api.md: API table written from the OpenAPI document.');
}
