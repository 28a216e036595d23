import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaleHistory, scenarioPrices } from '../../bench/scale-history.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createDataVersionRepository } from '../../db/repositories/data-version-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { createRunsRepository, CLUSTER_REGION_SETTING } from '../../db/repositories/runs-repository.js';
import { scaleScenario } from '../../sandbox/scale/scale-scenario.js';
import { buildApp } from '../../server/app.js';
import { createEnginePool } from '../../server/engine-pool/pool.js';

/*
 * Issue 21 item 6: the engine off the API's thread, through real HTTP on loopback. One real heavy snapshot (the scale
 * scenario: 200 nodes, 6,000 pods, three NodePools) written by the collector's repository; the why-not-consolidated
 * what-if over it (a consolidation round: seconds) is the slow request, /api/status and /api/nodepools the cheap ones.
 */

const NODES = 200;
let dir: string;
let db: Db;
let snapshotAt: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-engine-pool-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const sc = scaleScenario({ nodes: NODES, podsPerNode: 30, days: 1, meanNodeLifetimeDays: 0 });
  const first = scaleHistory(sc, sc.end - sc.start).next();
  if (first.done === true) throw new Error('the scale scenario has no snapshot');
  const { snapshot } = first.value;
  const prices = scenarioPrices(sc);
  createKubeRepository(db).writeSnapshot({ snapshot, ...buildSnapshotRows(snapshot, prices.price, prices.onDemand), runId: null });
  createRunsRepository(db).setSetting(CLUSTER_REGION_SETTING, sc.region);
  snapshotAt = new Date(snapshot.takenAt).toISOString();
}, 120_000);

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(o: { timeoutMs: number; warmEngine?: boolean | { checkEveryMs: number } }) {
  const version = createDataVersionRepository(db);
  const pool = createEnginePool({ dbPath: db.name, size: 1, timeoutMs: o.timeoutMs, version: () => version.current() });
  // Off unless asked: these tests count the pool's tasks, which the Savings warm-up would add to. The Overview's
  // warm-up (its own app.inject requests, counted below with the Savings ones) is server/app.test.ts's.
  const app: FastifyInstance = buildApp({
    db,
    webRoot: join(dir, 'no-web'),
    engine: pool,
    warmEngine: o.warmEngine ?? false,
    warmOverview: false,
  });
  // The warm-up's requests (app.inject, light-my-request's user agent; the tests ask over HTTP with fetch's).
  const warmAsked: string[] = [];
  app.addHook('onRequest', async (req) => {
    if (req.headers['user-agent'] === 'lightMyRequest') warmAsked.push(req.url);
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { pool, app, url, warmAsked };
}

const until = async (what: string, ok: () => boolean, withinMs: number): Promise<number> => {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - t0;
};

describe('the engine in a worker pool (issue 21 item 6)', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve({ timeoutMs: 120_000 });
  });
  afterAll(async () => {
    // fetch (undici) may leave a connection it opened and never used; Node counts it active until its 60 s headers timeout.
    s?.app.server.closeAllConnections();
    await s?.app.close();
  });

  it('a cheap route answers in milliseconds while a slow what-if runs', async () => {
    let finished = false;
    const slow = fetch(`${s.url}/api/whatif/why-not`).finally(() => (finished = true));
    await new Promise((r) => setTimeout(r, 300));
    const answeredBeforeIt: number[] = [];
    const paths = ['/api/status', '/api/nodepools', `/api/efficiency/nodes?at=${snapshotAt}&limit=50`];
    for (let i = 0; !finished; i++) {
      const t0 = performance.now();
      const res = await fetch(`${s.url}${paths[i % paths.length]}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      if (!finished) answeredBeforeIt.push(performance.now() - t0);
    }
    // On the API's thread no cheap request is answered until the simulation is (they queue behind it); here dozens
    // are, in milliseconds (the median: the machine's other work can delay any one).
    expect(answeredBeforeIt.length).toBeGreaterThanOrEqual(10);
    const sorted = [...answeredBeforeIt].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(50);
    const res = await slow;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { simulation: boolean; nodes: unknown[] };
    expect(body.simulation).toBe(true);
    expect(body.nodes.length).toBe(NODES);
  });

  it('four identical what-ifs at once are computed once, and all four get the answer', async () => {
    const before = s.pool.stats().completed;
    const url = `${s.url}/api/whatif/why-not?at=${snapshotAt}`;
    const answers = await Promise.all([1, 2, 3, 4].map(async () => (await fetch(url)).text()));
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0])).toMatchObject({ simulation: true, snapshotAt });
    expect(s.pool.stats().completed - before).toBe(1);
  });

  it('a client that goes away frees the worker: its task is stopped, the next one starts at once', async () => {
    const gone = new AbortController();
    const before = s.pool.stats();
    const abandoned = fetch(`${s.url}/api/whatif/headroom`, { signal: gone.signal }).catch((e: unknown) => e);
    await until('the what-if started in the worker', () => s.pool.stats().busy === 1, 30_000);
    gone.abort();
    await abandoned;
    const freedMs = await until('the worker freed', () => s.pool.stats().busy === 0 && s.pool.stats().tasks === 0, 2_000);
    expect(freedMs).toBeLessThan(2_000);
    expect(s.pool.stats().terminated).toBe(before.terminated + 1);
    expect(s.pool.stats().completed).toBe(before.completed);
    // A replacement worker took the slot: the next what-if runs (and answers). One not asked before (the why-not of
    // this snapshot is kept, `format` aside: asking it again would run nothing), and the lightest: the workloads to
    // choose from, the snapshot prepared afresh in the new worker and no re-pack.
    const next = await fetch(`${s.url}/api/whatif/workload?format=json`);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });
});

describe('the time bound', () => {
  it('answers 503 with Retry-After, keeps computing, and the same request then finds the answer', async () => {
    const s = await serve({ timeoutMs: 300 });
    try {
      const first = await fetch(`${s.url}/api/whatif/why-not`);
      expect(first.status).toBe(503);
      expect(first.headers.get('retry-after')).toBe('1');
      const err = (await first.json()) as { statusCode: number; message: string };
      expect(err.statusCode).toBe(503);
      expect(err.message).toMatch(
        /did not finish within 0\.3 s .* It goes on and its answer is kept for this snapshot: ask again in 1 s\./,
      );
      await until('the simulation finished in the background', () => s.pool.stats().completed === 1, 60_000);
      const again = await fetch(`${s.url}/api/whatif/why-not`);
      expect(again.status).toBe(200);
      expect(((await again.json()) as { nodes: unknown[] }).nodes).toHaveLength(NODES);
      expect(s.pool.stats().completed).toBe(1);
    } finally {
      s.app.server.closeAllConnections();
      await s.app.close();
    }
  });
});

describe('the Savings and Workloads pages answers computed ahead of their first viewer (engine-warm.ts)', () => {
  it('once ready, the pool computes /api/whatif/headroom, /why-not and the Workloads recommendations, and the viewer then reads them without a simulation', async () => {
    const s = await serve({ timeoutMs: 60_000, warmEngine: { checkEveryMs: 100 } });
    try {
      await until('the three default answers kept', () => s.pool.stats().completed === 3 && s.pool.stats().cached === 3, 90_000);
      for (const path of ['/api/whatif/headroom', '/api/whatif/why-not']) {
        const res = await fetch(`${s.url}${path}`);
        expect(res.status).toBe(200);
        expect(((await res.json()) as { snapshotAt: string }).snapshotAt).toBe(snapshotAt);
      }
      // as the Workloads page asks (web/src/routes/workloads.tsx: window 14d)
      const rec = await fetch(`${s.url}/api/workloads/recommendations?window=14d`);
      expect(rec.status).toBe(200);
      // Read from the kept answers: no simulation ran for the viewer.
      expect(s.pool.stats().completed).toBe(3);

      // A file written without pause (the demo filling in its snapshots): the data changes between every two checks
      // (100 ms apart) for 1.5 s, and nothing is warmed for the versions it passes through; once it holds still for a
      // check, the answers are asked for again, once.
      const warmedAtReady = s.warmAsked.length;
      expect(s.warmAsked).toEqual(['/api/whatif/headroom', '/api/whatif/why-not', '/api/workloads/recommendations?window=14d']);
      const runs = createRunsRepository(db);
      const writing = setInterval(() => runs.setSetting('test.engine-warm', String(Date.now())), 20);
      try {
        await new Promise((r) => setTimeout(r, 1_500));
        expect(s.warmAsked.length).toBe(warmedAtReady);
      } finally {
        clearInterval(writing);
      }
      // Asked again within a few checks; each answer is computed afresh for the new data version (seconds under load).
      await until('the first answer asked for again once the data held still', () => s.warmAsked.length > warmedAtReady, 10_000);
      await until('all three asked for again', () => s.warmAsked.length >= 2 * warmedAtReady, 90_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(s.warmAsked.slice(warmedAtReady)).toEqual(s.warmAsked.slice(0, warmedAtReady));
    } finally {
      s.app.server.closeAllConnections();
      await s.app.close();
    }
  }, 240_000);
});
