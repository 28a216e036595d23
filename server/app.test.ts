import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { openDb, type Db } from '../db/open-db.js';
import { createFixturesRepository } from '../db/repositories/fixtures-repository.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { GiB, type NodeSpec, snapshotWrite } from '../test/fixtures/snapshots.js';
import { buildApp } from './app.js';
import type { DailyCostResponse } from './schemas/cost.js';
import type { EfficiencyResponse } from './schemas/efficiency.js';
import type { ErrorResponse } from './schemas/common.js';
import type { NodePoolsResponse } from './schemas/nodepools.js';
import type { StatusResponse } from './schemas/status.js';

const at = (iso: string): number => Date.parse(iso);

// general: one on-demand node at $0.96/h, 4 vCPU / 16 GiB, pods request 2 vCPU / 4 GiB (50 % cpu, 25 % memory),
// 3 vCPU at S2. batch: one spot node at $0.30/h in S1 and S2 only.
const general = (requestedCpuMillicores = 2000): NodeSpec => ({
  name: 'general-a',
  nodePool: 'general',
  capacityType: 'on-demand',
  cpuMillicores: 4000,
  memoryBytes: 16 * GiB,
  requestedCpuMillicores,
  requestedMemoryBytes: 4 * GiB,
  usdPerHour: 0.96,
});
const batch: NodeSpec = {
  name: 'batch-a',
  nodePool: 'batch',
  capacityType: 'spot',
  instanceType: 'c5.large',
  cpuMillicores: 2000,
  memoryBytes: 4 * GiB,
  requestedCpuMillicores: 500,
  requestedMemoryBytes: 1 * GiB,
  usdPerHour: 0.3,
};
const S1 = at('2026-11-01T10:00:00Z');
const S2 = at('2026-11-01T10:05:00Z'); // 5 min after S1
const S3 = at('2026-11-01T10:45:00Z'); // 40 min after S2: counts 15 min (cap)
const S4 = at('2026-11-01T23:55:00Z'); // S3 -> S4 capped at 15 min; S4 -> S5 is 5 min on each side of midnight
const S5 = at('2026-11-02T00:05:00Z'); // last: counts nothing

/*
 * Estimate by hand, USD:
 *   general 2026-11-01: S1 5 min + S2 15 min + S3 15 min + S4 5 min = 40 min x 0.96/h = 0.64
 *   general 2026-11-02: S4 5 min after midnight = 5/60 x 0.96 = 0.08 (S5 is last: 0)
 *   batch   2026-11-01: S1 5 min + S2 15 min = 20/60 x 0.30 = 0.10 (S2's interval counts although batch is gone at S3)
 */

let dir: string;
let db: Db;
let app: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-app-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const kube = createKubeRepository(db);
  kube.writeSnapshot(snapshotWrite(S1, [general(), batch]));
  kube.writeSnapshot(snapshotWrite(S2, [general(3000), batch]));
  kube.writeSnapshot(snapshotWrite(S3, [general()]));
  kube.writeSnapshot(snapshotWrite(S4, [general()]));
  kube.writeSnapshot(snapshotWrite(S5, [general()]));

  const fixtures = createFixturesRepository(db);
  fixtures.insertCostLines([
    { periodStart: '2026-11-01', nodePool: 'general', dimensionValue: 'On Demand Instances', unblendedUsd: 0.7, amortizedUsd: 0.6 },
    { periodStart: '2026-11-01', nodePool: '', dimensionValue: 'On Demand Instances', unblendedUsd: 0.05 },
    { periodStart: '2026-11-01', nodePool: 'batch', dimensionValue: 'Spot Instances', unblendedUsd: 0.11 },
    { periodStart: '2026-11-01', nodePool: 'general', dimensionValue: 'm5.xlarge', groupBy: 'INSTANCE_TYPE', unblendedUsd: 99 }, // other grouping: ignored
    { periodStart: '2026-11-01', nodePool: 'general', dimensionValue: 'On Demand Instances', source: 'csv:import', unblendedUsd: 99 }, // other source: ignored
    { periodStart: '2026-11-02', nodePool: 'general', dimensionValue: 'On Demand Instances', unblendedUsd: 0.09, estimated: true },
    // A day with DAILY lines ignores its HOURLY ones; a day with only HOURLY lines sums them (0.04 + 0.05).
    {
      periodStart: '2026-11-02T00:00:00Z',
      granularity: 'HOURLY',
      nodePool: 'general',
      dimensionValue: 'On Demand Instances',
      unblendedUsd: 55,
    },
    {
      periodStart: '2026-11-03T00:00:00Z',
      granularity: 'HOURLY',
      nodePool: 'general',
      dimensionValue: 'On Demand Instances',
      unblendedUsd: 0.04,
    },
    {
      periodStart: '2026-11-03T01:00:00Z',
      granularity: 'HOURLY',
      nodePool: 'general',
      dimensionValue: 'On Demand Instances',
      unblendedUsd: 0.05,
    },
  ]);
  fixtures.insertCollectionRun({ kind: 'cost-explorer', source: 'sandbox', startedAtMs: S5 - 60_000, finishedAtMs: S5 - 50_000 });
  fixtures.insertCollectionRun({ kind: 'kubernetes', source: 'sandbox', startedAtMs: S5, finishedAtMs: S5 + 2_000, rowsWritten: 12 });

  const webRoot = join(dir, 'web');
  mkdirSync(join(webRoot, 'assets'), { recursive: true });
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>NodePool Ledger</title><div id="root"></div>');
  writeFileSync(join(webRoot, 'assets', 'index-abc123.js'), 'console.log(1);');
  // A compressed copy beside it, as the build writes one (vite.config.ts); chart-def456.js has none.
  writeFileSync(join(webRoot, 'assets', 'index-abc123.js.gz'), gzipSync('console.log(1);'));
  writeFileSync(join(webRoot, 'assets', 'chart-def456.js'), 'console.log(2);');

  app = buildApp({ db, webRoot, now: () => at('2026-11-20T12:00:00Z') });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const getJson = async <T>(url: string): Promise<{ status: number; body: T; headers: Record<string, unknown> }> => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json<T>(), headers: res.headers };
};

describe('GET /api/cost/nodepools/daily', () => {
  it('joins the bill with the snapshot estimate per day, NodePool and purchase kind', async () => {
    const { status, body } = await getJson<DailyCostResponse>('/api/cost/nodepools/daily?from=2026-11-01&to=2026-11-04&metric=unblended');
    expect(status).toBe(200);
    expect(body.metric).toBe('unblended');
    expect(body.from).toBe('2026-11-01');
    expect(body.to).toBe('2026-11-04');
    expect(body.currency).toBe('USD');
    const simplified = body.rows.map((r) => [r.day, r.nodePool, r.capacityType, r.purchaseType, r.billUsd, r.estimateUsd, r.billEstimated]);
    expect(simplified).toEqual([
      ['2026-11-01', '', 'on-demand', 'On Demand Instances', 0.05, null, false],
      ['2026-11-01', 'batch', 'spot', 'Spot Instances', 0.11, expect.closeTo(0.1, 10), false],
      ['2026-11-01', 'general', 'on-demand', 'On Demand Instances', 0.7, expect.closeTo(0.64, 10), false],
      ['2026-11-02', 'general', 'on-demand', 'On Demand Instances', 0.09, expect.closeTo(0.08, 10), true],
      ['2026-11-03', 'general', 'on-demand', 'On Demand Instances', expect.closeTo(0.09, 10), null, false],
    ]);
    expect(body.rows[2].billAmortizedUsd).toBe(0.6);
    // Bill 0.05 + 0.11 + 0.7 + 0.09 + 0.09 = 1.04; estimate 0.1 + 0.64 + 0.08 = 0.82.
    expect(body.totals.billUsd).toBeCloseTo(1.04, 10);
    expect(body.totals.estimateUsd).toBeCloseTo(0.82, 10);
  });

  it('defaults to AmortizedCost when commitments apply (general amortized 0.6 against 0.7 unblended): bill 1.04 − 0.1 = 0.94', async () => {
    const { body } = await getJson<DailyCostResponse>('/api/cost/nodepools/daily?from=2026-11-01&to=2026-11-04');
    expect([body.metric, body.commitments]).toEqual(['amortized', true]);
    expect(body.rows[2]).toMatchObject({ billUsd: 0.6, billUnblendedUsd: 0.7, billAmortizedUsd: 0.6, band: 'compute' });
    expect(body.totals.billUsd).toBeCloseTo(0.94, 10);
    // Lines stored without the net metrics read at their gross figure in a net metric.
    const net = await getJson<DailyCostResponse>('/api/cost/nodepools/daily?from=2026-11-01&to=2026-11-04&metric=net-unblended');
    expect(net.body.totals.billUsd).toBeCloseTo(1.04, 10);
    expect(net.body.rows[2].billNetUnblendedUsd).toBeNull();
    const bad = await app.inject({ url: '/api/cost/nodepools/daily?metric=blended' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('metric');
  });

  it('two snapshots 5 minutes apart at $0.96/h estimate $0.08 (the last snapshot counts nothing)', async () => {
    // Only S1 and S2 are inside [10:00, 10:10); S2's interval is clipped at the range end: 5 min + 5 min.
    const { body } = await getJson<DailyCostResponse>(
      '/api/cost/nodepools/daily?from=2026-11-01T10:00:00Z&to=2026-11-01T10:10:00Z&nodepool=general',
    );
    // The cost route works in whole UTC days, so the whole of 2026-11-01 is reported: 0.64.
    expect(body.rows.map((r) => [r.day, r.nodePool, r.estimateUsd])).toEqual([['2026-11-01', 'general', expect.closeTo(0.64, 10)]]);
  });

  it('filters by NodePool', async () => {
    const { body } = await getJson<DailyCostResponse>('/api/cost/nodepools/daily?from=2026-11-01&to=2026-11-02&nodepool=batch');
    expect(body.rows.map((r) => [r.nodePool, r.billUsd])).toEqual([['batch', 0.11]]);
  });

  it('defaults to the 14 days ending at the midnight after the newest data', async () => {
    const { body } = await getJson<DailyCostResponse>('/api/cost/nodepools/daily');
    expect([body.from, body.to]).toEqual(['2026-10-21', '2026-11-04']);
    expect(body.rows).toHaveLength(5);
  });
});

describe('GET /api/efficiency/nodepools', () => {
  it('a node at 2 of 4 vCPU and 4 of 16 GiB is 50 % cpu and 25 % memory', async () => {
    const { status, body } = await getJson<EfficiencyResponse>(
      '/api/efficiency/nodepools?from=2026-11-01T10:00:00Z&to=2026-11-01T10:05:00Z&nodepool=general',
    );
    expect(status).toBe(200);
    expect(body.bucketMs).toBe(60_000);
    expect(body.series).toEqual([
      {
        nodePool: 'general',
        points: [{ bucketStartMs: S1, cpu: 0.5, memory: 0.25, cpuUsage: null, memoryUsage: null, nodesAvg: 1, usdPerHourAvg: 0.96 }],
      },
    ]);
  });

  it('sums requests and allocatable over the snapshots of a bucket (7 days -> 30 min buckets)', async () => {
    const { body } = await getJson<EfficiencyResponse>('/api/efficiency/nodepools?from=2026-11-01&to=2026-11-08');
    expect(body.bucketMs).toBe(30 * 60_000);
    expect(body.series.map((s) => s.nodePool)).toEqual(['batch', 'general']);
    const [batchSeries, generalSeries] = body.series;
    // Bucket 10:00-10:30 holds S1 and S2 (S3, 10:45, is in the next). general: (2000 + 3000) / (4000 + 4000) = 0.625 cpu; 8 / 32 GiB = 0.25.
    expect(generalSeries.points[0]).toEqual({
      bucketStartMs: S1,
      cpu: 0.625,
      memory: 0.25,
      cpuUsage: null,
      memoryUsage: null,
      nodesAvg: 1,
      usdPerHourAvg: 0.96,
    });
    // 10:45 is in 10:30-11:00, 23:55 in 23:30-24:00, 00:05 in 00:00-00:30.
    expect(generalSeries.points.map((p) => p.bucketStartMs)).toEqual([S1, S3 - 15 * 60_000, S4 - 25 * 60_000, S5 - 5 * 60_000]);
    // batch: 500 / 2000 = 0.25 cpu, 1 / 4 GiB = 0.25 memory, 1 node in both snapshots of the bucket.
    expect(batchSeries.points).toEqual([
      { bucketStartMs: S1, cpu: 0.25, memory: 0.25, cpuUsage: null, memoryUsage: null, nodesAvg: 1, usdPerHourAvg: 0.3 },
    ]);
  });

  it('averages node count and run rate over every snapshot of the bucket (30 days -> 2 h buckets)', async () => {
    const { body } = await getJson<EfficiencyResponse>('/api/efficiency/nodepools?from=2026-10-15&to=2026-11-14');
    expect(body.bucketMs).toBe(7_200_000);
    // Bucket 10:00-12:00 holds S1, S2, S3; batch is in S1 and S2 only: 2 / 3 nodes, (0.3 + 0.3) / 3 = $0.20/h.
    const batchPoint = body.series.find((s) => s.nodePool === 'batch')?.points[0];
    expect(batchPoint?.nodesAvg).toBeCloseTo(2 / 3, 10);
    expect(batchPoint?.usdPerHourAvg).toBeCloseTo(0.2, 10);
    // general: (2000 + 3000 + 2000) / (3 x 4000) = 7 / 12 cpu.
    expect(body.series.find((s) => s.nodePool === 'general')?.points[0].cpu).toBeCloseTo(7 / 12, 10);
  });

  it('a 2 h range gets 1 min buckets: one point per snapshot', async () => {
    const { body } = await getJson<EfficiencyResponse>('/api/efficiency/nodepools?from=2026-11-01T10:00:00Z&to=2026-11-01T12:00:00Z');
    expect(body.bucketMs).toBe(60_000);
    expect(body.series.find((s) => s.nodePool === 'general')?.points).toHaveLength(3);
  });
});

describe('GET /api/status and /api/nodepools', () => {
  it('reports the data source, the range, the last run and counts', async () => {
    const { status, body } = await getJson<StatusResponse>('/api/status');
    expect(status).toBe(200);
    expect(body.dataSource).toBe('sandbox');
    expect(body.range).toEqual({
      firstSnapshotAt: '2026-11-01T10:00:00.000Z',
      lastSnapshotAt: '2026-11-02T00:05:00.000Z',
      firstCostDay: '2026-11-01',
      lastCostDay: '2026-11-03',
    });
    expect(body.defaultRange).toEqual({ from: '2026-10-21T00:00:00.000Z', to: '2026-11-04T00:00:00.000Z' });
    expect(body.lastRun).toMatchObject({
      kind: 'kubernetes',
      source: 'sandbox',
      status: 'ok',
      startedAt: '2026-11-02T00:05:00.000Z',
      rowsWritten: 12,
    });
    expect(body.lastRunByKind.map((r) => r.kind)).toEqual(['cost-explorer', 'kubernetes']);
    expect(body.counts).toEqual({ snapshots: 5, nodePools: 2, costLines: 8 });
  });

  it('lists NodePools by name', async () => {
    const { body } = await getJson<NodePoolsResponse>('/api/nodepools');
    expect(body.items.map((n) => [n.name, n.capacityTypes])).toEqual([
      ['batch', ['spot']],
      ['general', ['on-demand']],
    ]);
  });
});

describe('validation', () => {
  describe.each([
    { url: '/api/cost/nodepools/daily?from=garbage', param: 'from' },
    { url: '/api/efficiency/nodepools?from=garbage', param: 'from' },
    { url: '/api/cost/nodepools/daily?to=2026-13-01', param: 'to' },
    { url: '/api/cost/nodepools/daily?from=2026-02-30', param: 'from' },
    { url: '/api/efficiency/nodepools?from=2026-11-05&to=2026-11-01', param: 'to' },
    { url: '/api/cost/nodepools/daily?nodepool=Not%20A%20Name', param: 'nodepool' },
  ])('$url', ({ url, param }) => {
    it(`400 naming "${param}"`, async () => {
      const { status, body } = await getJson<ErrorResponse>(url);
      expect(status).toBe(400);
      expect(body.error).toBe('Bad Request');
      expect(body.message).toContain(`"${param}"`);
    });
  });

  it('explains what "from" expects', async () => {
    const { body } = await getJson<ErrorResponse>('/api/cost/nodepools/daily?from=garbage');
    expect(body.message).toBe(
      'Invalid querystring parameter "from": must be an ISO 8601 date like 2026-11-01 (UTC midnight) or a date-time with a zone like 2026-11-01T00:00:00Z (got "garbage")',
    );
  });
});

describe('HTTP behaviour', () => {
  it('sets security headers on API responses', async () => {
    const { headers } = await getJson<StatusResponse>('/api/status');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(String(headers['content-security-policy'])).toContain("default-src 'self'");
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const { status, body } = await getJson<ErrorResponse>('/api/nope');
    expect(status).toBe(404);
    expect(body.message).toBe('No route GET /api/nope');
  });

  it('serves the web app, with index.html for client-side routes and long caching for hashed assets', async () => {
    const root = await app.inject({ url: '/' });
    expect(root.statusCode).toBe(200);
    expect(root.headers['content-type']).toContain('text/html');
    expect(root.body).toContain('NodePool Ledger');
    expect(root.headers['x-frame-options']).toBe('DENY');
    const deep = await app.inject({ url: '/overview/some/where?x=1' });
    expect(deep.statusCode).toBe(200);
    expect(deep.body).toContain('<div id="root">');
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    for (const url of ['/assets/missing.js', '/assets/', '/assets']) {
      const res = await app.inject({ url });
      expect([url, res.statusCode, res.body]).toEqual([url, 200, expect.stringContaining('<div id="root">')]); // SPA fallback, never a listing
    }
  });

  it("sends an asset's compressed copy to a browser that accepts it, and the file itself otherwise", async () => {
    const gz = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(gz.statusCode).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toContain('javascript');
    expect(gz.headers['cache-control']).toContain('immutable');
    expect(gz.headers.vary).toContain('accept-encoding');
    expect(gunzipSync(gz.rawPayload).toString()).toBe('console.log(1);');
    const plain = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'identity' } });
    expect([plain.headers['content-encoding'], plain.body]).toEqual([undefined, 'console.log(1);']);
    // No compressed copy: the file as it is, whatever the browser accepts.
    const bare = await app.inject({ url: '/assets/chart-def456.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect([bare.statusCode, bare.headers['content-encoding'], bare.body]).toEqual([200, undefined, 'console.log(2);']);
  });

  it('says how to build the web app when it is missing', async () => {
    const bare = buildApp({ db, webRoot: join(dir, 'no-such-dir') });
    const res = await bare.inject({ url: '/' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('npx vite build');
    await bare.close();
  });

  it('hides 5xx details from the client', async () => {
    const closedDb = openDb({ path: join(dir, 'other.db') });
    const broken = buildApp({ db: closedDb });
    await broken.ready();
    closedDb.close();
    const res = await broken.inject({ url: '/api/status' });
    expect(res.statusCode).toBe(500);
    expect(res.json<ErrorResponse>().message).toBe('The server could not answer this request; the cause is in its log.');
    expect(res.body).not.toContain('database');
    await broken.close();
  });
});

/*
 * Every app a process builds reuses the validators and serializers an earlier one compiled for the same schema
 * (server/schema-compilers.ts): the test suite builds hundreds, and compiling the routes' schemas was most of what each
 * cost. Kept by content, so that each app's own querystring object (cluster-param.ts, strict-query.ts make a new one
 * per app) still finds it, and only schemas of the same content share a function.
 */
describe('schemas compiled once per process', () => {
  /** An app that notes, per route, the querystring validator and the 200 serializer its requests used. */
  function noting(): { app: FastifyInstance; used: Map<string, { query: unknown; ok: unknown }> } {
    const a = buildApp({ db, webRoot: join(dir, 'web'), now: () => at('2026-11-20T12:00:00Z') });
    const used = new Map<string, { query: unknown; ok: unknown }>();
    a.addHook('preHandler', async (req, reply) => {
      used.set(req.routeOptions.url ?? '', { query: req.getValidationFunction('querystring'), ok: reply.getSerializationFunction('200') });
    });
    return { app: a, used };
  }

  it("a second app's routes use the first app's compiled validator and serializer; another route's are its own", async () => {
    const first = noting();
    const second = noting();
    try {
      for (const a of [first.app, second.app]) expect((await a.inject({ url: '/api/nodepools' })).statusCode).toBe(200);
      expect((await second.app.inject({ url: '/api/cost/nodepools/daily' })).statusCode).toBe(200);
      const one = first.used.get('/api/nodepools');
      const two = second.used.get('/api/nodepools');
      expect(typeof one?.query).toBe('function');
      expect(typeof one?.ok).toBe('function');
      expect(two?.query).toBe(one?.query);
      expect(two?.ok).toBe(one?.ok);
      // A route of other schemas: its own functions, and the kept validator still refuses what it refused.
      const cost = second.used.get('/api/cost/nodepools/daily');
      expect(typeof cost?.query).toBe('function');
      expect(cost?.query).not.toBe(one?.query);
      expect(cost?.ok).not.toBe(one?.ok);
      const bad = await second.app.inject({ url: '/api/nodepools?nodPool=x' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<ErrorResponse>().message).toContain('"nodPool"');
    } finally {
      await first.app.close();
      await second.app.close();
    }
  });
});

describe("the Overview's routes answered once the server is ready (overview-warm.ts)", () => {
  /** An app whose answers are noted as path and status, from before it is ready. */
  function noting(engine?: { workers: number }): { app: FastifyInstance; answered: string[] } {
    // warmEngine off: the Savings warm-up would start the pool's worker, which this does not need.
    const a = buildApp({
      db,
      webRoot: join(dir, 'web'),
      now: () => at('2026-11-20T12:00:00Z'),
      warmEngine: false,
      ...(engine ? { engine } : {}),
    });
    const answered: string[] = [];
    a.addHook('onResponse', async (req, reply) => void answered.push(`${req.url} ${reply.statusCode}`));
    return { app: a, answered };
  }

  it('with the engine in its pool (serve, demo), each route of the Overview is asked once, before any viewer; on the API thread (tests), none', async () => {
    const pooled = noting({ workers: 1 });
    const inline = noting();
    try {
      await Promise.all([pooled.app.ready(), inline.app.ready()]);
      // What the Overview's panels ask for (web/src/routes/overview-queries.ts), over the server's default range: the
      // status and the clusters (asked by every page), the NodePools (the colours), the daily cost and the efficiency
      // summary (period and cost panels), the reconciliation (gap panel), the CUR's days, the packing timeline: 8.
      const overview = [
        '/api/status 200',
        '/api/clusters 200',
        '/api/nodepools 200',
        '/api/cost/nodepools/daily 200',
        '/api/efficiency/summary 200',
        '/api/reconciliation/daily 200',
        '/api/cost/cur/daily 200',
        '/api/consolidation/timeline 200',
      ];
      for (let waited = 0; pooled.answered.length < overview.length && waited < 10_000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      expect([...pooled.answered].sort()).toEqual([...overview].sort());
      expect(inline.answered).toEqual([]);
    } finally {
      await pooled.app.close();
      await inline.app.close();
    }
  });
});
