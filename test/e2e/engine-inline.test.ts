import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HistoryStep, scaleHistory, scenarioPrices } from '../../bench/scale-history.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { CLUSTER_REGION_SETTING, createRunsRepository } from '../../db/repositories/runs-repository.js';
import { scaleScenario } from '../../sandbox/scale/scale-scenario.js';
import { buildApp } from '../../server/app.js';
import { engineFor } from '../../server/engine-pool/engine-options.js';
import type { EngineRunner } from '../../server/engine-pool/engine-runner.js';
import { keptJsonStats } from '../../server/routes/kept-json.js';
import type { HeadroomResponse, WhyNotResponse } from '../../server/schemas/whatif.js';

/*
 * The engine on the API's own thread (no worker: LEDGER_ENGINE_WORKERS=0, an in-memory ledger, the store bench's
 * server) computes a what-if once per snapshot and parameters, as the pool does: the store bench's
 * GET /api/whatif/headroom re-ran its re-pack on every request (p50 61 ms, p99 255 ms on the 1,000-node month).
 * A small scale scenario (12 nodes x 8 pods, three NodePools) written by the collector's repository; the second
 * snapshot is committed by another connection, as the collector's process commits, and the next answer is about it.
 */

const STEP_MS = 5 * 60_000;
let dir: string;
let db: Db;
let app: FastifyInstance;
let engine: EngineRunner;
let base: string;
let second: HistoryStep;
let write: (step: HistoryStep, into: Db) => void;
let firstAt: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-engine-inline-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const sc = scaleScenario({ nodes: 12, podsPerNode: 8, days: 1, meanNodeLifetimeDays: 0 });
  const prices = scenarioPrices(sc);
  write = (step, into) =>
    createKubeRepository(into).writeSnapshot({
      snapshot: step.snapshot,
      ...buildSnapshotRows(step.snapshot, prices.price, prices.onDemand),
      runId: null,
    });
  const steps = scaleHistory(sc, STEP_MS);
  const a = steps.next();
  const b = steps.next();
  if (a.done === true || b.done === true) throw new Error('the scale scenario has fewer than two snapshots');
  write(a.value, db);
  firstAt = a.value.at;
  second = b.value;
  createRunsRepository(db).setSetting(CLUSTER_REGION_SETTING, sc.region);
  engine = engineFor(db, { workers: 0 });
  // No response cache: what is counted is the engine's own keeping, not a kept HTTP body.
  app = buildApp({ db, webRoot: join(dir, 'no-web'), engine, cacheResponses: false });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  app?.server.closeAllConnections();
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function headroom(): Promise<{ body: HeadroomResponse; text: string }> {
  const res = await fetch(`${base}/api/whatif/headroom`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/api/whatif/headroom: HTTP ${res.status} ${text}`);
  return { body: JSON.parse(text) as HeadroomResponse, text };
}

describe('the engine on the API thread: once per snapshot and parameters', () => {
  it('two requests over one snapshot run the re-packs once; a new snapshot is simulated afresh, once', async () => {
    expect(engine.kind).toBe('inline');
    const before = engine.stats().completed;
    const one = await headroom();
    const two = await headroom();
    expect(one.body.snapshotAt).toBe(new Date(firstAt).toISOString());
    expect(two.text).toBe(one.text);
    // 2 requests, 1 simulation: the second reads the first's answer.
    expect(engine.stats().completed - before).toBe(1);

    // The collector's process commits the next snapshot (5 minutes later) on its own connection: data_version moves.
    const collector = openDb({ path: db.name });
    try {
      write(second, collector);
    } finally {
      collector.close();
    }
    const three = await headroom();
    expect(three.body.snapshotAt).toBe(new Date(firstAt + STEP_MS).toISOString());
    const four = await headroom();
    expect(four.text).toBe(three.text);
    // 4 requests over 2 snapshots, 2 simulations.
    expect(engine.stats().completed - before).toBe(2);
  });

  it('an error is not kept: only the answer of the newest snapshot is', async () => {
    const before = engine.stats().completed;
    // No snapshot at or before 2001: a 404 each time; kept: still the one answer of the first test's last request.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}/api/whatif/headroom?at=2001-01-01T00:00:00Z`);
      expect(res.status).toBe(404);
    }
    expect(engine.stats().completed).toBe(before);
    expect(engine.stats().cached).toBe(1);
  });
});

describe('an engine answer is serialised once, its JSON kept beside it', () => {
  // GET /api/whatif/why-not at 1,000 nodes is a 305 KB answer: serialising it again on every request (its schema's
  // serialiser, six nullable fields a row) was most of the store bench's p99 of 102 ms once the answer was kept.
  it('three requests over one snapshot: one simulation, one serialisation, the same bytes as JSON; a new snapshot: one more of each', async () => {
    const get = async () => {
      const res = await fetch(`${base}/api/whatif/why-not`);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`/api/whatif/why-not: HTTP ${res.status} ${text}`);
      return { res, text, body: JSON.parse(text) as WhyNotResponse };
    };
    const simulated = engine.stats().completed;
    const serialised = keptJsonStats().serialised;
    const one = await get();
    const two = await get();
    const three = await get();
    expect(one.res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(two.text).toBe(one.text);
    expect(three.text).toBe(one.text);
    expect(one.body.simulation).toBe(true);
    expect(one.body.nodes.length).toBeGreaterThan(0);
    // 3 requests: 1 simulation, 1 serialisation (the other two send the kept bytes).
    expect(engine.stats().completed - simulated).toBe(1);
    expect(keptJsonStats().serialised - serialised).toBe(1);
    // The schema still shapes the bytes: its serialiser writes the declared properties, in the declared order.
    expect(Object.keys(one.body).slice(0, 3)).toEqual(['simulation', 'snapshotAt', 'currency']);

    // Another connection commits the scenario's next snapshot (5 minutes after the newest): a new answer, serialised once.
    const newestAt = Date.parse(one.body.snapshotAt);
    const collector = openDb({ path: db.name });
    try {
      let next: HistoryStep | undefined;
      for (const step of scaleHistory(scaleScenario({ nodes: 12, podsPerNode: 8, days: 1, meanNodeLifetimeDays: 0 }), STEP_MS)) {
        if (step.at === newestAt + STEP_MS) next = step;
        if (step.at > newestAt) break;
      }
      if (next === undefined) throw new Error(`the scale scenario has no snapshot 5 minutes after ${one.body.snapshotAt}`);
      write(next, collector);
    } finally {
      collector.close();
    }
    const four = await get();
    const five = await get();
    expect(four.body.snapshotAt).toBe(new Date(newestAt + STEP_MS).toISOString());
    expect(five.text).toBe(four.text);
    expect(engine.stats().completed - simulated).toBe(2);
    expect(keptJsonStats().serialised - serialised).toBe(2);
  });
});
