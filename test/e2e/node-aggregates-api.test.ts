import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type { NodeChangesResponse, NodeMixResponse } from '../../server/schemas/node-aggregates.js';
import { GiB, type NodeSpec, snapshotWrite } from '../fixtures/snapshots.js';

/*
 * GET /api/nodes/mix and /api/nodes/changes: what the NodePool cards and the consolidation comparison used to count
 * from every node (/api/nodes?limit=5000), answered from two snapshots written through the collector's repository
 * into a real SQLite database, through buildApp (inject). Every expected figure is counted by hand from the nodes below.
 */

const T1 = Date.parse('2026-11-01T10:00:00Z');
const T2 = Date.parse('2026-11-01T10:05:00Z');
const node = (
  name: string,
  nodePool: string | null,
  instanceType: string,
  capacityType: 'on-demand' | 'spot',
  usdPerHour: number,
): NodeSpec => ({
  name,
  nodePool,
  capacityType,
  instanceType,
  cpuMillicores: 4000,
  memoryBytes: 16 * GiB,
  requestedCpuMillicores: 1000,
  requestedMemoryBytes: 4 * GiB,
  usdPerHour,
});
const a = node('node-a', 'general', 'm5.xlarge', 'on-demand', 0.192);
const b = node('node-b', 'general', 'm5.xlarge', 'spot', 0.07);
const c = node('node-c', 'general', 'c5.large', 'spot', 0.035);
const d = node('node-d', 'batch', 'c5.large', 'on-demand', 0.085);
const e = node('node-e', null, 'r6i.large', 'on-demand', 0.126);
const f = node('node-f', 'batch', 'c5.large', 'spot', 0.03);
const g = node('node-g', 'general', 'c5.large', 'on-demand', 0.085);
// c again at 10:05 with less allocatable (kubelet reserved more): a second node_dims row for the same node, which
// stays the same node (a change is by name, not by what the node is).
const c2: NodeSpec = { ...c, cpuMillicores: 3920 };

let db: Db;
let app: FastifyInstance;

beforeAll(() => {
  db = openDb({ path: ':memory:' });
  const kube = createKubeRepository(db);
  // 10:00 a..e; 10:05 a and b went, f and g came (c, d, e stayed; c with 3920 m allocatable instead of 4000).
  kube.writeSnapshot(snapshotWrite(T1, [a, b, c, d, e]));
  kube.writeSnapshot(snapshotWrite(T2, [c2, d, e, f, g]));
  app = buildApp({ db, now: () => T2 + 60_000, cacheResponses: false });
});
afterAll(async () => {
  await app?.close();
  db?.close();
});

const get = async <T>(url: string): Promise<{ status: number; body: T }> => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json<T>() };
};

describe('GET /api/nodes/mix', () => {
  it('counts the newest snapshot by NodePool and instance type, spot apart, most nodes first', async () => {
    const { status, body } = await get<NodeMixResponse>('/api/nodes/mix');
    expect(status).toBe(200);
    expect(body).toEqual({
      snapshotAt: '2026-11-01T10:05:00.000Z',
      rows: [
        { nodePool: '', instanceType: 'r6i.large', nodes: 1, spotNodes: 0 }, // e
        { nodePool: 'batch', instanceType: 'c5.large', nodes: 2, spotNodes: 1 }, // d, f (spot)
        { nodePool: 'general', instanceType: 'c5.large', nodes: 2, spotNodes: 1 }, // c (spot), g
      ],
    });
  });

  it('counts the snapshot at or before `at`, of one NodePool when asked', async () => {
    const { body } = await get<NodeMixResponse>('/api/nodes/mix?at=2026-11-01T10:04:59Z&nodepool=general');
    expect(body).toEqual({
      snapshotAt: '2026-11-01T10:00:00.000Z',
      rows: [
        // a and b: two m5.xlarge, b on spot; then c, one c5.large on spot.
        { nodePool: 'general', instanceType: 'm5.xlarge', nodes: 2, spotNodes: 1 },
        { nodePool: 'general', instanceType: 'c5.large', nodes: 1, spotNodes: 1 },
      ],
    });
    await expect(get<NodeMixResponse>('/api/nodes/mix?at=2026-10-31T00:00:00Z')).resolves.toEqual({
      status: 200,
      body: { snapshotAt: null, rows: [] },
    });
  });
});

describe('GET /api/nodes/changes', () => {
  it('lists the nodes gone and come between the snapshot before `from` and the last before `to`, with their prices summed', async () => {
    const { status, body } = await get<NodeChangesResponse>('/api/nodes/changes?from=2026-11-01T10:00:00.001Z&to=2026-11-01T10:05:00.001Z');
    expect(status).toBe(200);
    expect(body.beforeAt).toBe('2026-11-01T10:00:00.000Z');
    expect(body.afterAt).toBe('2026-11-01T10:05:00.000Z');
    expect(body.removed.count).toBe(2);
    // a 0.192 + b 0.07
    expect(body.removed.usdPerHour).toBeCloseTo(0.262, 12);
    expect(body.removed.nodes.map((n) => [n.name, n.nodePool, n.instanceType, n.capacityType, n.usdPerHour])).toEqual([
      ['node-a', 'general', 'm5.xlarge', 'on-demand', 0.192],
      ['node-b', 'general', 'm5.xlarge', 'spot', 0.07],
    ]);
    expect(body.added.count).toBe(2);
    // f 0.03 + g 0.085
    expect(body.added.usdPerHour).toBeCloseTo(0.115, 12);
    expect(body.added.nodes.map((n) => n.name)).toEqual(['node-f', 'node-g']);
  });

  it('narrows both snapshots to a NodePool, and lists at most `limit` while counting every one', async () => {
    const from = '2026-11-01T10:00:00.001Z';
    const to = '2026-11-01T10:05:00.001Z';
    const batch = await get<NodeChangesResponse>(`/api/nodes/changes?from=${from}&to=${to}&nodepool=batch`);
    expect([batch.body.removed.count, batch.body.added.count, batch.body.added.nodes.map((n) => n.name)]).toEqual([0, 1, ['node-f']]);
    const one = await get<NodeChangesResponse>(`/api/nodes/changes?from=${from}&to=${to}&limit=1`);
    expect([one.body.removed.count, one.body.removed.nodes.map((n) => n.name)]).toEqual([2, ['node-a']]);
    expect(one.body.added.usdPerHour).toBeCloseTo(0.115, 12);
    // limit=0: counted and summed (a 0.192 + b 0.07; f 0.03 + g 0.085), none listed.
    const none = await get<NodeChangesResponse>(`/api/nodes/changes?from=${from}&to=${to}&limit=0`);
    expect([none.body.removed.count, none.body.removed.nodes, none.body.added.count, none.body.added.nodes]).toEqual([2, [], 2, []]);
    expect(none.body.removed.usdPerHour).toBeCloseTo(0.262, 12);
    expect(none.body.added.usdPerHour).toBeCloseTo(0.115, 12);
  });

  it('sees no change within one snapshot, every node as added before the first, and refuses an empty range', async () => {
    const same = await get<NodeChangesResponse>('/api/nodes/changes?from=2026-11-01T10:05:00.001Z&to=2026-11-01T10:06:00Z');
    expect([same.body.removed.count, same.body.added.count]).toEqual([0, 0]);
    const first = await get<NodeChangesResponse>('/api/nodes/changes?from=2026-11-01T09:00:00Z&to=2026-11-01T10:00:00.001Z');
    expect([first.body.beforeAt, first.body.removed.count, first.body.added.count]).toEqual([null, 0, 5]);
    await expect(get('/api/nodes/changes?from=2026-11-01T10:00:00Z&to=2026-11-01T10:00:00Z')).resolves.toMatchObject({ status: 400 });
  });
});

describe('GET /api/nodes/changes, a node relabelled', () => {
  it('counts a node that moved to another NodePool under its name as neither gone nor come, whichever NodePool is asked', async () => {
    const own = openDb({ path: ':memory:' });
    const kube = createKubeRepository(own);
    // node-h was launched in general and is labelled batch at 10:05 (a second node_dims row, the same node); node-i
    // went from general, node-j came to batch.
    const h = node('node-h', 'general', 'm5.xlarge', 'on-demand', 0.192);
    const i = node('node-i', 'general', 'c5.large', 'spot', 0.035);
    const j = node('node-j', 'batch', 'c5.large', 'spot', 0.03);
    kube.writeSnapshot(snapshotWrite(T1, [h, i]));
    kube.writeSnapshot(snapshotWrite(T2, [{ ...h, nodePool: 'batch' }, j]));
    const ownApp = buildApp({ db: own, now: () => T2 + 60_000, cacheResponses: false });
    try {
      const range = 'from=2026-11-01T10:00:00.001Z&to=2026-11-01T10:05:00.001Z';
      const names = async (q: string) => {
        const body = (await ownApp.inject({ method: 'GET', url: `/api/nodes/changes?${range}${q}` })).json<NodeChangesResponse>();
        return [body.removed.nodes.map((n) => n.name), body.added.nodes.map((n) => n.name), body.removed.usdPerHour, body.added.usdPerHour];
      };
      // i 0.035 gone, j 0.03 come; h in neither.
      expect(await names('')).toEqual([['node-i'], ['node-j'], 0.035, 0.03]);
      // general held h at 10:00 and batch holds it at 10:05: it is not general's loss nor batch's gain.
      expect(await names('&nodepool=general')).toEqual([['node-i'], [], 0.035, 0]);
      expect(await names('&nodepool=batch')).toEqual([[], ['node-j'], 0, 0.03]);
    } finally {
      await ownApp.close();
      own.close();
    }
  });
});

describe('GET /api/nodes/changes, nodes gone and back', () => {
  // Only a node_dims row whose name another row holds (node_dims_shared_names, migration 0034) has its name matched;
  // every other changed row is gone or come on its key alone. These nodes cross that line both ways.
  const T3 = Date.parse('2026-11-01T10:10:00Z');
  // h: general at 10:00, away at 10:05, back at 10:10 labelled batch (a second node_dims row, the same node).
  // k: at 10:00, away at 10:05, back at 10:10 as it was (the same node_dims row). i: at 10:00 and 10:05, gone at 10:10.
  // j: comes at 10:10.
  const h = node('node-h', 'general', 'm5.xlarge', 'on-demand', 0.192);
  const i = node('node-i', 'general', 'c5.large', 'spot', 0.035);
  const j = node('node-j', 'batch', 'c5.large', 'spot', 0.03);
  const k = node('node-k', 'general', 'c5.large', 'on-demand', 0.085);
  let own: Db;
  let ownApp: FastifyInstance;
  beforeAll(() => {
    own = openDb({ path: ':memory:' });
    const kube = createKubeRepository(own);
    kube.writeSnapshot(snapshotWrite(T1, [h, i, k]));
    kube.writeSnapshot(snapshotWrite(T2, [i]));
    kube.writeSnapshot(snapshotWrite(T3, [{ ...h, nodePool: 'batch' }, j, k]));
    ownApp = buildApp({ db: own, now: () => T3 + 60_000, cacheResponses: false });
  });
  afterAll(async () => {
    await ownApp?.close();
    own?.close();
  });
  const changes = async (from: string, to: string, q = '') => {
    const body = (await ownApp.inject({ method: 'GET', url: `/api/nodes/changes?from=${from}&to=${to}${q}` })).json<NodeChangesResponse>();
    return {
      between: [body.beforeAt, body.afterAt],
      removed: [body.removed.count, body.removed.usdPerHour, body.removed.nodes.map((n) => `${n.name} ${n.nodePool}`)],
      added: [body.added.count, body.added.usdPerHour, body.added.nodes.map((n) => `${n.name} ${n.nodePool}`)],
    };
  };

  it('counts a node back under its name as neither gone nor come, relabelled while away or not', async () => {
    // 10:00 -> 10:10: i went (0.035), j came (0.03); h (relabelled) and k (unchanged) are back.
    expect(await changes('2026-11-01T10:00:00.001Z', '2026-11-01T10:10:00.001Z')).toEqual({
      between: ['2026-11-01T10:00:00.000Z', '2026-11-01T10:10:00.000Z'],
      removed: [1, 0.035, ['node-i general']],
      added: [1, 0.03, ['node-j batch']],
    });
    // general held h at 10:00, batch holds it at 10:10: in neither NodePool's changes.
    const general = await changes('2026-11-01T10:00:00.001Z', '2026-11-01T10:10:00.001Z', '&nodepool=general');
    expect([general.removed, general.added]).toEqual([
      [1, 0.035, ['node-i general']],
      [0, 0, []],
    ]);
    const batch = await changes('2026-11-01T10:00:00.001Z', '2026-11-01T10:10:00.001Z', '&nodepool=batch');
    expect([batch.removed, batch.added]).toEqual([
      [0, 0, []],
      [1, 0.03, ['node-j batch']],
    ]);
  });

  it('counts a node away at one end as gone or come, its name shared with another row or not', async () => {
    // 10:00 -> 10:05: h 0.192 and k 0.085 went: 0.277.
    const out = await changes('2026-11-01T10:00:00.001Z', '2026-11-01T10:05:00.001Z');
    expect([out.removed[0], out.removed[2], out.added]).toEqual([2, ['node-h general', 'node-k general'], [0, 0, []]]);
    expect(out.removed[1]).toBeCloseTo(0.277, 12);
    // 10:05 -> 10:10: h (its 10:10 row shares its name with its 10:00 row, which 10:05 does not hold), j and k came:
    // 0.192 + 0.03 + 0.085 = 0.307; i went.
    const back = await changes('2026-11-01T10:05:00.001Z', '2026-11-01T10:10:00.001Z');
    expect([back.removed, back.added[0], back.added[2]]).toEqual([
      [1, 0.035, ['node-i general']],
      3,
      ['node-h batch', 'node-j batch', 'node-k general'],
    ]);
    expect(back.added[1]).toBeCloseTo(0.307, 12);
  });

  it('takes the snapshot before `from` and the last before `to`: a boundary exactly on a snapshot leaves it out', async () => {
    // from exactly 10:05: the snapshot before it is 10:00's, so 10:00 -> 10:10 as above.
    expect((await changes('2026-11-01T10:05:00.000Z', '2026-11-01T10:10:00.001Z')).between).toEqual([
      '2026-11-01T10:00:00.000Z',
      '2026-11-01T10:10:00.000Z',
    ]);
    expect((await changes('2026-11-01T10:05:00.000Z', '2026-11-01T10:10:00.001Z')).removed).toEqual([1, 0.035, ['node-i general']]);
    // to exactly 10:10: the last snapshot before it is 10:05's, so 10:00 -> 10:05 (h and k went, none came).
    const early = await changes('2026-11-01T10:00:00.001Z', '2026-11-01T10:10:00.000Z');
    expect([early.between, early.removed[0], early.added[0]]).toEqual([['2026-11-01T10:00:00.000Z', '2026-11-01T10:05:00.000Z'], 2, 0]);
  });
});
