import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type { NodeSort, NodesResponse } from '../../server/schemas/efficiency.js';
import { GiB, type NodeSpec, snapshotWrite } from '../fixtures/snapshots.js';

/*
 * GET /api/nodes?q=: a case-insensitive substring over node name, NodeClaim, instance type, NodePool and zone, done
 * in SQL with LIKE. Kubernetes names cannot hold % _ or \, but the database can and LIKE gives them meaning: these
 * fixture nodes carry them so a pattern built without escaping matches nodes it must not (50% would match 5000).
 */

const T0 = Date.parse('2026-11-01T10:00:00Z');
const spec = (name: string, nodePool: string | null, instanceType: string, zone = 'us-west-2a'): NodeSpec => ({
  name,
  nodePool,
  capacityType: 'on-demand',
  instanceType,
  zone,
  cpuMillicores: 4000,
  memoryBytes: 16 * GiB,
  requestedCpuMillicores: 1000,
  requestedMemoryBytes: 4 * GiB,
  usdPerHour: 0.2,
});
const NODES = [
  spec('web-50%-a', 'general', 'm5.xlarge'),
  spec('web-5000-b', 'general', 'm5.xlarge'),
  spec('db_1', 'batch', 'c5.large', 'us-west-2b'),
  spec('dbx1', 'batch', 'c5.large'),
  spec('path\\x', 'general', 'm5.xlarge'),
  spec('plain-node', null, 'r6i.2xlarge', 'eu-west-1c'),
];

/** Seven nodes an hour before T0: cpu and memory packing, prices, pools, types and zones in different orders, two ties. */
const VARIED: NodeSpec[] = [
  { ...spec('v-a', 'general', 'm5.xlarge', 'us-west-2c'), requestedCpuMillicores: 3000, requestedMemoryBytes: 2 * GiB, usdPerHour: 0.19 },
  { ...spec('v-b', 'batch', 'c5.large', 'us-west-2a'), requestedCpuMillicores: 500, requestedMemoryBytes: 12 * GiB, usdPerHour: 0.085 },
  { ...spec('v-c', null, 'r6i.2xlarge', 'us-west-2b'), requestedCpuMillicores: 2000, requestedMemoryBytes: 8 * GiB, usdPerHour: 0.504 },
  { ...spec('V-d', 'general', 'm5.xlarge', 'us-west-2a'), requestedCpuMillicores: 500, requestedMemoryBytes: 1 * GiB, usdPerHour: 0.19 },
  { ...spec('v-e', 'batch', 'c5.large', 'us-west-2c'), capacityType: 'spot', requestedCpuMillicores: 3900, usdPerHour: 0.03 },
  { ...spec('v_f', 'system', 't3.medium', 'us-west-2b'), requestedCpuMillicores: 0, requestedMemoryBytes: 0, usdPerHour: 0.0416 },
  { ...spec('v-g', 'general', 'm5.2xlarge', 'us-west-2c'), cpuMillicores: 8000, requestedCpuMillicores: 4000, usdPerHour: 0.384 },
];

const NODE_SORTS: readonly NodeSort[] = [
  'name',
  'nodePool',
  'instanceType',
  'capacityType',
  'zone',
  'ageHours',
  'usdPerHour',
  'cpu',
  'memory',
  'idleUsdPerHour',
];

let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-nodes-search-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  // An hour before, other nodes whose every column differs (the paging test reads them with ?at=).
  createKubeRepository(db).writeSnapshot(snapshotWrite(T0 - 3_600_000, VARIED));
  const write = snapshotWrite(T0, NODES);
  // One NodeClaim named unlike its node, so a match on the NodeClaim alone shows.
  write.snapshot.nodes = write.snapshot.nodes.map((n) => (n.name === 'web-5000-b' ? { ...n, nodeClaim: 'claim-ZZ9' } : n));
  createKubeRepository(db).writeSnapshot(write);
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => T0 + 3_600_000 });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function search(q: string, extra = ''): Promise<{ names: string[]; total: number }> {
  const res = await fetch(`${base}/api/nodes?q=${encodeURIComponent(q)}&sort=name${extra}`);
  if (res.status !== 200) throw new Error(`q=${q}: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as NodesResponse;
  return { names: body.rows.map((r) => r.name), total: body.total };
}

describe('GET /api/nodes?q=', () => {
  it.each([
    ['%', ['web-50%-a']],
    ['50%', ['web-50%-a']],
    ['_', ['db_1']],
    ['DB_1', ['db_1']],
    ['\\', ['path\\x']],
    ['zz9', ['web-5000-b']],
    ['C5.LARGE', ['db_1', 'dbx1']],
    ['west-2b', ['db_1']],
    ['batch', ['db_1', 'dbx1']],
    ['r6i', ['plain-node']],
    ['', ['db_1', 'dbx1', 'path\\x', 'plain-node', 'web-50%-a', 'web-5000-b']],
    ['nothing-here', []],
    ["'; DROP TABLE nodes; --", []],
  ])('q=%s finds %j', async (q, want) => {
    const got = await search(q);
    expect(got.names).toEqual(want);
    expect(got.total).toBe(want.length);
  });

  it('counts the matches before paging, and combines with the other filters', async () => {
    // By name as the server sorts (localeCompare puts % before digits).
    expect(await search('web', '&limit=1')).toEqual({ names: ['web-50%-a'], total: 2 });
    expect(await search('web', '&limit=1&offset=1')).toEqual({ names: ['web-5000-b'], total: 2 });
    expect(await search('1', '&nodepool=batch')).toEqual({ names: ['db_1', 'dbx1'], total: 2 });
    // The hostile one above changed nothing.
    expect((await search('')).total).toBe(NODES.length);
  });

  it('pages every sort and order as the unpaged answer, each in its column’s order (nulls last, ties by name)', async () => {
    const at = new Date(T0 - 3_600_000).toISOString();
    const get = async (query: string): Promise<NodesResponse> =>
      (await fetch(`${base}/api/nodes?at=${at}&${query}`)).json() as Promise<NodesResponse>;
    const collator = new Intl.Collator();
    for (const sort of NODE_SORTS)
      for (const order of ['asc', 'desc'] as const) {
        const all = await get(`sort=${sort}&order=${order}&limit=5000`);
        expect(all.total).toBe(VARIED.length);
        const pages = [await get(`sort=${sort}&order=${order}&limit=3`), await get(`sort=${sort}&order=${order}&limit=3&offset=3`)];
        pages.push(await get(`sort=${sort}&order=${order}&limit=3&offset=6`));
        expect(pages.map((p) => [p.offset, p.total, p.rows.length])).toEqual([
          [0, 7, 3],
          [3, 7, 3],
          [6, 7, 1],
        ]);
        expect(pages.flatMap((p) => p.rows)).toEqual(all.rows);
        // Each row against the next, by the column's own value in the answer.
        for (let i = 1; i < all.rows.length; i++) {
          const [a, b] = [all.rows[i - 1], all.rows[i]];
          const [x, y] = [a[sort], b[sort]];
          if (x === null || y === null) {
            expect(y === null).toBe(true);
            continue;
          }
          const c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
          expect(
            c === 0 ? collator.compare(a.name, b.name) : order === 'asc' ? c : -c,
            `${sort} ${order}: ${a.name} then ${b.name}`,
          ).toBeLessThan(0);
        }
      }
  });

  it.each([
    ['x'.repeat(101), 'too long'],
    ['a\u0001b', 'a control character'],
  ])('refuses a q that is %s (%s), naming q', async (q) => {
    const res = await fetch(`${base}/api/nodes?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/\bq\b/);
  });
});
