import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../open-db.js';
import { FIND_RESOURCE_KEY } from './cur-resource-lines.js';

/*
 * The importer looks up each new resource key of a period once (15,001 at the envelope). Read through the period's
 * index (every key of the period) that lookup made the import quadratic; through the resource id's index it reads
 * the few keys of that resource. The plan SQLite picks on a real file with the migrations applied and no statistics,
 * as a fresh ledger has.
 */

const dir = mkdtempSync(join(tmpdir(), 'cur-resource-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the resource key lookup of the CUR import', () => {
  it("searches by the resource id's index, not the period's or the NodePool's", () => {
    const db = openDb({ path: join(dir, 'ledger.db') });
    const plan = db
      .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${FIND_RESOURCE_KEY}`)
      .all('i-0123', 1, 'envelope', 'general', 'general-1', 'tag')
      .map((r) => r.detail);
    db.close();
    expect(plan).toEqual(['SEARCH cur_resource_keys USING INDEX cur_resource_keys_resource (resource_id=?)']);
  });
});
