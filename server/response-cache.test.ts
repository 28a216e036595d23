import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { snapshotWrite } from '../test/fixtures/snapshots.js';
import { fillSynthetic } from '../test/fixtures/synthetic.js';
import { buildApp } from './app.js';
import { cacheApiResponses } from './response-cache.js';
import type { StatusResponse } from './schemas/status.js';

const dbs: Db[] = [];
afterEach(() => {
  for (const d of dbs.splice(0)) d.close();
});
const tmpPath = (): string => join(mkdtempSync(join(tmpdir(), 'ledger-cache-')), 'ledger.db');
const open = (path: string): Db => {
  const d = openDb({ path });
  dbs.push(d);
  return d;
};

/** A bare app with one counting route, to see when a handler really runs. */
function countingApp(db: Db, opts: Parameters<typeof cacheApiResponses>[2] = {}) {
  const app = Fastify();
  cacheApiResponses(app, db, opts);
  let runs = 0;
  app.get('/api/count', async (req, reply) => {
    runs += 1;
    if ((req.query as { fail?: string }).fail === '1') return reply.code(400).send({ message: 'bad' });
    return { runs, accept: req.headers.accept ?? null };
  });
  app.get('/other', async () => ({ runs: ++runs }));
  return { app, runs: () => runs };
}

describe('cacheApiResponses', () => {
  it('answers a repeated GET /api from memory, per URL and Accept, and never keeps errors or non-API paths', async () => {
    const db = open(tmpPath());
    const { app, runs } = countingApp(db);
    const first = await app.inject({ url: '/api/count?a=1' });
    const second = await app.inject({ url: '/api/count?a=1' });
    expect(second.headers['x-ledger-cache']).toBe('hit');
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(runs()).toBe(1);

    await app.inject({ url: '/api/count?a=2' }); // another URL
    await app.inject({ url: '/api/count?a=1', headers: { accept: 'text/csv' } }); // another representation
    expect(runs()).toBe(3);
    await app.inject({ url: '/api/count?fail=1' });
    await app.inject({ url: '/api/count?fail=1' });
    await app.inject({ url: '/other' });
    await app.inject({ url: '/other' });
    expect(runs()).toBe(7);
    await app.close();
  });

  it('drops everything when another connection commits (the collector) or this one writes', async () => {
    const path = tmpPath();
    const db = open(path);
    const { app, runs } = countingApp(db);
    await app.inject({ url: '/api/count' });
    await app.inject({ url: '/api/count' });
    expect(runs()).toBe(1);

    const collector = open(path);
    collector.prepare("INSERT INTO settings (key, value) VALUES ('x', '1')").run();
    expect((await app.inject({ url: '/api/count' })).headers['x-ledger-cache']).toBeUndefined();
    expect(runs()).toBe(2);

    db.prepare("INSERT INTO settings (key, value) VALUES ('y', '1')").run(); // e.g. a bill import on the server's connection
    await app.inject({ url: '/api/count' });
    expect(runs()).toBe(3);
    await app.inject({ url: '/api/count' });
    expect(runs()).toBe(3);
    await app.close();
  });

  it('expires answers after the TTL and keeps at most maxEntries (least recently used goes)', async () => {
    const db = open(tmpPath());
    let now = 1_000;
    const { app, runs } = countingApp(db, { ttlMs: 60_000, maxEntries: 2, now: () => now });
    await app.inject({ url: '/api/count?k=1' });
    now += 60_000;
    await app.inject({ url: '/api/count?k=1' }); // exactly at the TTL: still fresh
    expect(runs()).toBe(1);
    now += 1;
    await app.inject({ url: '/api/count?k=1' });
    expect(runs()).toBe(2);

    await app.inject({ url: '/api/count?k=2' });
    await app.inject({ url: '/api/count?k=1' }); // k=1 used last, k=2 is now the oldest
    await app.inject({ url: '/api/count?k=3' }); // evicts k=2
    expect(runs()).toBe(4);
    await app.inject({ url: '/api/count?k=1' });
    expect(runs()).toBe(4);
    await app.inject({ url: '/api/count?k=2' });
    expect(runs()).toBe(5);
    await app.close();
  });
});

describe('the cache inside buildApp', () => {
  it("shows the collector's new snapshot at once, and never answers a request the token check refused", async () => {
    const path = tmpPath();
    const db = open(path);
    fillSynthetic(db, { startDay: '2026-11-01', days: 1 });
    const token = 'cache-test-token-0123456789';
    const app = buildApp({ db, accessToken: token, now: () => Date.parse('2026-11-02T00:00:00Z') });
    const auth = { authorization: `Bearer ${token}` };
    const before = (await app.inject({ url: '/api/status', headers: auth })).json<StatusResponse>();
    expect((await app.inject({ url: '/api/status', headers: auth })).headers['x-ledger-cache']).toBe('hit');
    expect((await app.inject({ url: '/api/status' })).statusCode).toBe(401);

    createKubeRepository(open(path)).writeSnapshot(snapshotWrite(Date.parse('2026-11-02T00:00:00Z'), []));
    const after = await app.inject({ url: '/api/status', headers: auth });
    expect(after.headers['x-ledger-cache']).toBeUndefined();
    expect(after.json<StatusResponse>().counts.snapshots).toBe(before.counts.snapshots + 1);
    await app.close();
  });
});
