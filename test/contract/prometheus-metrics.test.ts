import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createFixturesRepository } from '../../db/repositories/fixtures-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import { LEDGER_METRIC_NAMES } from '../../server/metrics/ledger-metrics.js';
import { GiB, snapshotWrite, type NodeSpec } from '../fixtures/snapshots.js';
import { fillSynthetic } from '../fixtures/synthetic.js';

/*
 * GET /metrics over real HTTP on 127.0.0.1, parsed back from the Prometheus text format (a parser of its own below,
 * not prom-client's), each figure against one worked by hand from the rows stored: two synthetic days (bill final on
 * the first, estimated on the second) and, on top, a newest snapshot written here whose nodes make the sums easy.
 */
const TOKEN = 'metrics-token-5c1e0b9d27a4';
const NEWEST_MS = Date.parse('2026-11-03T00:00:00Z');
const NOW_MS = NEWEST_MS + 10 * 60_000;

// The newest snapshot: general has two on-demand m5.xlarge at 0.192/h, one packed 75 % and one 50 % on both cpu
// and memory (so its idle cost does not depend on the cpu/memory weighting); batch has three spot c5.2xlarge at
// 0.14/h whose on-demand price is 0.34/h.
const m5 = { capacityType: 'on-demand', instanceType: 'm5.xlarge', cpuMillicores: 4000, memoryBytes: 16 * GiB, usdPerHour: 0.192 } as const;
const c5 = { capacityType: 'spot', instanceType: 'c5.2xlarge', cpuMillicores: 8000, memoryBytes: 16 * GiB, usdPerHour: 0.14 } as const;
const NEWEST: NodeSpec[] = [
  { ...m5, name: 'g-a', nodePool: 'general', requestedCpuMillicores: 3000, requestedMemoryBytes: 12 * GiB },
  { ...m5, name: 'g-b', nodePool: 'general', requestedCpuMillicores: 2000, requestedMemoryBytes: 8 * GiB },
  ...[0, 1, 2].map((i) => ({
    ...c5,
    name: `b-${i}`,
    nodePool: 'batch',
    onDemandUsdPerHour: 0.34,
    requestedCpuMillicores: 6000,
    requestedMemoryBytes: 4 * GiB,
  })),
];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format 0.0.4: `# TYPE name type` lines and `name{a="x",b="y"} value` samples. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
    if (type !== null) {
      types.set(type[1], type[2]);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
    const body = m[2] ?? '';
    let at = 0;
    for (let l = re.exec(body); l !== null; l = re.exec(body)) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      at = re.lastIndex;
    }
    if (at !== body.length) throw new Error(`bad labels: ${line}`);
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { types, samples };
}

let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;
let scrape: ReturnType<typeof parseExposition>;
let contentType: string | null;

const BEARER = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-metrics-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  fillSynthetic(db, { startDay: '2026-11-01', days: 2, intervalMinutes: 60 });
  createKubeRepository(db).writeSnapshot(snapshotWrite(NEWEST_MS, NEWEST));
  createFixturesRepository(db).insertCollectionRun({
    kind: 'pricing',
    source: 'sandbox',
    status: 'failed',
    startedAtMs: NEWEST_MS + 60_000,
    finishedAtMs: NEWEST_MS + 62_000,
    message: 'throttled',
  });
  // Two apps in one process: each has its own registry, so the second does not collide with the first (prom-client's
  // global registry would throw "already registered" here). The second is only built: listening costs seconds.
  buildApp({ db, webRoot: join(dir, 'no-web'), now: () => NOW_MS });
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => NOW_MS, accessToken: TOKEN });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const res = await fetch(`${base}/metrics`, { headers: BEARER });
  expect(res.status).toBe(200);
  contentType = res.headers.get('content-type');
  scrape = parseExposition(await res.text());
});

afterAll(async () => {
  await app?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The one sample of `name` with exactly these labels. */
function value(name: string, labels: Record<string, string> = {}): number | undefined {
  const found = scrape.samples.filter(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort()),
  );
  expect(found.length, `${name}${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

const newestId = (): number => db.prepare('SELECT id FROM snapshots ORDER BY taken_at DESC LIMIT 1').pluck().get() as number;

describe('GET /metrics', () => {
  it('answers the text format 0.0.4 with every metric the rules and dashboard may name, each a gauge', () => {
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    for (const name of LEDGER_METRIC_NAMES) expect({ name, type: scrape.types.get(name) }).toEqual({ name, type: 'gauge' });
    // Its own registry only: no default process metrics, nothing without the prefix.
    expect([...scrape.types.keys()].filter((n) => !n.startsWith('nodepool_ledger_'))).toEqual([]);
  });

  it("gives a NodePool's cost per hour at the newest snapshot: Σ its nodes' prices there (2 × 0.192 = 0.384)", () => {
    const stored = db
      .prepare(
        "SELECT TOTAL(usd_per_hour) FROM snapshot_nodes WHERE snapshot_id = ? AND nodepool = 'general' AND capacity_type = 'on-demand'",
      )
      .pluck()
      .get(newestId()) as number;
    expect(stored).toBeCloseTo(2 * 0.192, 12);
    expect(value('nodepool_ledger_estimated_cost_per_hour', { nodepool: 'general', capacity_type: 'on-demand' })).toBeCloseTo(stored, 9);
    expect(value('nodepool_ledger_estimated_cost_per_hour', { nodepool: 'batch', capacity_type: 'spot' })).toBeCloseTo(3 * 0.14, 9);
    expect(value('nodepool_ledger_nodes', { nodepool: 'batch', capacity_type: 'spot' })).toBe(3);
    // system had nodes in every synthetic snapshot but has none in the newest: it is not shown as costing anything.
    expect(value('nodepool_ledger_estimated_cost_per_hour', { nodepool: 'system', capacity_type: 'on-demand' })).toBeUndefined();
  });

  it('gives spot savings per hour: 3 × (0.34 on-demand − 0.14 spot) = 0.60, none for an on-demand-only NodePool', () => {
    expect(value('nodepool_ledger_spot_savings_per_hour', { nodepool: 'batch' })).toBeCloseTo(0.6, 9);
    expect(value('nodepool_ledger_spot_savings_per_hour', { nodepool: 'general' })).toBeUndefined();
  });

  it('gives packing per resource: Σ requested ÷ Σ allocatable of the stored rows (cpu 5000 m ÷ 8000 m = 0.625)', () => {
    const sums = db
      .prepare(
        "SELECT TOTAL(req_cpu_m) AS rc, TOTAL(alloc_cpu_m) AS ac, TOTAL(req_memory_b) AS rm, TOTAL(alloc_memory_b) AS am FROM snapshot_nodes WHERE snapshot_id = ? AND nodepool = 'general'",
      )
      .get(newestId()) as { rc: number; ac: number; rm: number; am: number };
    expect(sums.rc / sums.ac).toBe(0.625);
    expect(value('nodepool_ledger_packing_ratio', { nodepool: 'general', resource: 'cpu' })).toBeCloseTo(sums.rc / sums.ac, 12);
    expect(value('nodepool_ledger_packing_ratio', { nodepool: 'general', resource: 'memory' })).toBeCloseTo(sums.rm / sums.am, 12);
    expect(value('nodepool_ledger_packing_ratio', { nodepool: 'batch', resource: 'cpu' })).toBeCloseTo(0.75, 12);
    expect(value('nodepool_ledger_packing_ratio', { nodepool: 'batch', resource: 'memory' })).toBeCloseTo(0.25, 12);
    // No GPU allocatable: no ratio (not a 0 that would read as "idle GPUs").
    expect(value('nodepool_ledger_packing_ratio', { nodepool: 'general', resource: 'gpu' })).toBeUndefined();
  });

  it('gives idle cost per hour: Σ price × (1 − packing) = 0.192 × 0.25 + 0.192 × 0.5 = 0.144', () => {
    expect(value('nodepool_ledger_idle_cost_per_hour', { nodepool: 'general' })).toBeCloseTo(0.144, 9);
  });

  it('gives the bill of the newest final day (2026-11-01; 11-02 is still estimated) per NodePool, with its day', () => {
    const dayMs = Date.parse('2026-11-01T00:00:00Z');
    const stored = db
      .prepare("SELECT TOTAL(unblended_usd) FROM cost_lines WHERE nodepool = 'general' AND period_start_ms = ? AND estimated = 0")
      .pluck()
      .get(dayMs) as number;
    expect(stored).toBeGreaterThan(0);
    expect(value('nodepool_ledger_bill_final_day_timestamp_seconds')).toBe(dayMs / 1000);
    expect(value('nodepool_ledger_bill_final_day_cost', { nodepool: 'general', metric: 'unblended' })).toBeCloseTo(stored, 9);
  });

  it('gives collector health: the newest snapshot, its age at scrape time, and each kind’s last run status', () => {
    expect(value('nodepool_ledger_last_snapshot_timestamp_seconds')).toBe(NEWEST_MS / 1000);
    expect(value('nodepool_ledger_snapshot_age_seconds')).toBe(600);
    expect(value('nodepool_ledger_collector_last_run_status', { kind: 'pricing', status: 'failed' })).toBe(1);
    expect(value('nodepool_ledger_collector_last_run_status', { kind: 'pricing', status: 'ok' })).toBe(0);
    expect(value('nodepool_ledger_collector_last_run_status', { kind: 'kubernetes', status: 'ok' })).toBe(1);
    expect(value('nodepool_ledger_collector_last_run_timestamp_seconds', { kind: 'pricing' })).toBe((NEWEST_MS + 62_000) / 1000);
  });

  it('answers a new snapshot at the next scrape, never an earlier answer kept', async () => {
    const later = NEWEST_MS + 5 * 60_000;
    createKubeRepository(db).writeSnapshot(snapshotWrite(later, NEWEST.slice(0, 1)));
    const again = parseExposition(await (await fetch(`${base}/metrics`, { headers: BEARER })).text());
    const age = again.samples.find((s) => s.name === 'nodepool_ledger_snapshot_age_seconds')?.value;
    expect(age).toBe((NOW_MS - later) / 1000);
    const cost = again.samples.find(
      (s) =>
        s.name === 'nodepool_ledger_estimated_cost_per_hour' && s.labels.nodepool === 'general' && s.labels.capacity_type === 'on-demand',
    );
    expect(cost?.value).toBeCloseTo(0.192, 12);
    // batch has no node in it: gone from every figure of the newest snapshot (the bill of its final day stays).
    expect(again.samples.filter((s) => s.labels.nodepool === 'batch').map((s) => s.name)).toEqual(['nodepool_ledger_bill_final_day_cost']);
  });
});

describe('GET /metrics with an access token', () => {
  it('answers 401 without it, a wrong one, or the token in the query; 200 to the Bearer token', async () => {
    const none = await fetch(`${base}/metrics`, { redirect: 'manual' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="nodepool-ledger"');
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong-token-0000000' } })).status).toBe(401);
    expect((await fetch(`${base}/metrics?token=${TOKEN}`, { redirect: 'manual' })).status).toBe(401);
    const ok = await fetch(`${base}/metrics`, { headers: BEARER });
    expect(ok.status).toBe(200);
    expect(parseExposition(await ok.text()).types.get('nodepool_ledger_estimated_cost_per_hour')).toBe('gauge');
  });
});
