import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createUsageRepository } from '../../db/repositories/usage-repository.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { createPrometheusClient, displayUrl, PrometheusError } from './client.js';
import { backfillPrometheus, chunkRange, MAX_POINTS_PER_SERIES, usageQueries } from './collect.js';

const H = 3_600_000;
const MIN = 60_000;
const AT = Date.parse('2026-11-05T17:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'ledger-prometheus-'));
let sb: RunningSandbox;

beforeAll(async () => {
  sb = await startSandbox({ at: AT });
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('chunkRange: at most 11,000 points per series and a day per request', () => {
  it.each([
    // 14 days at 5 minutes: a day (288 points) per chunk, 14 chunks, each ending a step before the next begins.
    [0, 14 * 24 * H, 5 * MIN, 14, 24 * H],
    // 2 hours at 5 minutes: one chunk of 24 points.
    [0, 2 * H, 5 * MIN, 1, 2 * H],
    // 3 days at 10 s: 11,000 points would be 30.5 h; a day is less: 3 chunks.
    [0, 72 * H, 10_000, 3, 24 * H],
    // 2 days at 5 s: 10,999 steps of 5 s = 15.3 h, whole hours: 15 h chunks.
    [0, 48 * H, 5_000, 4, 15 * H],
  ])('[%d, %d) at step %d: %d chunks of %d ms', (from, to, step, n, span) => {
    const chunks = chunkRange(from, to, step);
    expect(chunks).toHaveLength(n);
    expect(chunks[0]).toEqual([from, from + span - step]);
    for (const [s, e] of chunks) expect((e - s) / step + 1).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i][0]).toBe(chunks[i - 1][1] + step);
    expect(chunks[chunks.length - 1][1]).toBe(to - step);
  });
});

describe('the Prometheus HTTP API of the sandbox, through the client', () => {
  const q = usageQueries(5 * MIN);

  it('a range query: one matrix series per container, values at each step, CPU in cores from the usage model', async () => {
    const client = createPrometheusClient({ url: sb.prometheusUrl });
    const series = await client.queryRange(q.cpu.replace('{container!=""', '{namespace="monitoring", container!=""'), AT - H, AT, 5 * MIN);
    const grafana = series.find((s) => s.metric.container === 'grafana');
    expect(grafana?.metric).toEqual({ namespace: 'monitoring', pod: expect.stringMatching(/^grafana-/), container: 'grafana' });
    expect(grafana?.values).toHaveLength(13);
    const pod = sb.scenario.pods.find((p) => p.name === grafana?.metric.pod);
    if (!pod || !grafana) throw new Error('grafana not served');
    const [t, v] = grafana.values[0];
    expect(t).toBe((AT - H) / 1000);
    expect(Number(v)).toBeCloseTo(sb.usage.usageAt(pod, pod.containers[0], AT - H).cpuMillicores / 1000, 9);
    expect(client.attempts()).toBe(1);
  });

  it('a query that returns nothing: an empty matrix, not an error', async () => {
    const client = createPrometheusClient({ url: sb.prometheusUrl });
    expect(
      await client.queryRange(q.memory.replace('{container!=""', '{namespace="no-such-namespace", container!=""'), AT - H, AT, 5 * MIN),
    ).toEqual([]);
    expect(await client.query(q.memory.replace('{container!=""', '{namespace="no-such-namespace", container!=""'), AT)).toEqual([]);
  });

  it('an instant query answers a vector', async () => {
    const client = createPrometheusClient({ url: sb.prometheusUrl });
    const v = await client.query(q.memory.replace('{container!=""', '{namespace="payments", container!=""'), AT);
    expect(v.length).toBeGreaterThan(0);
    expect(v[0].value[0]).toBe(AT / 1000);
  });

  it('a 5xx twice then success: retried, every attempt counted', async () => {
    sb.ctx.faults.push({ match: '/prometheus/api/v1/query_range', status: 503, remaining: 2 });
    const client = createPrometheusClient({ url: sb.prometheusUrl });
    const series = await client.queryRange(q.memory, AT - 10 * MIN, AT, 5 * MIN);
    expect(series.length).toBeGreaterThan(10);
    expect(client.attempts()).toBe(3);
  });

  it("Prometheus' own errors are named: a bad query (bad_data) and the 11,000-point limit", async () => {
    const client = createPrometheusClient({ url: sb.prometheusUrl, maxRetries: 0 });
    await expect(client.queryRange('up', AT - H, AT, 5 * MIN)).rejects.toThrow(/HTTP 400 \(bad_data\): invalid parameter "query"/);
    await expect(client.queryRange(q.cpu, AT - 2 * 24 * H, AT, 10_000)).rejects.toThrow(
      /exceeded maximum resolution of 11,000 points per timeseries/,
    );
  });

  it('credentials in the URL go as basic auth and are never shown', () => {
    expect(displayUrl('https://reader:s3cret@prom.example:9090/prefix/?x=1')).toBe('https://prom.example:9090/prefix');
    expect(createPrometheusClient({ url: 'http://reader:s3cret@127.0.0.1:1' }).url).not.toContain('s3cret');
  });
});

describe('backfillPrometheus into a real SQLite file', () => {
  it('rolls the closed hours up per workload, counts its requests, and asks nothing twice', async () => {
    const db = openDb({ path: join(dir, 'backfill.db') });
    const client = createPrometheusClient({ url: sb.prometheusUrl });
    // 17:00: the six closed hours 11:00-17:00, one chunk of two queries.
    const r = await backfillPrometheus({ db, client, now: AT + 20 * MIN, stepMs: 5 * MIN, sinceMs: 6 * H, runId: null });
    expect(r).toMatchObject({ fromMs: AT - 6 * H, toMs: AT, requests: 2, upToDate: false });
    expect(r.series).toBeGreaterThan(50);
    const usage = createUsageRepository(db);
    const hours = usage.workloadHours({ fromMs: AT - 6 * H, toMs: AT });
    expect(hours.every((h) => h.source === 'prometheus' && h.final)).toBe(true);
    expect(new Set(hours.map((h) => h.hourStart)).size).toBe(6);
    // Pods never listed by the collector: their workload from their names (Deployment pods name-hash-xxxxx).
    const payments = hours.filter((h) => h.namespace === 'payments' && h.workloadName === 'payments-api');
    expect(payments.length).toBe(6);
    expect(payments[0].workloadKind).toBe('Deployment');
    // The payments team uses about a fifth of its 2 GiB memory request.
    for (const h of payments) expect(h.memoryMaxBytes).toBeLessThan((2 * 2 ** 30) / 3);
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'prometheus' })).toBe(2);
    const again = await backfillPrometheus({ db, client, now: AT + 30 * MIN, stepMs: 5 * MIN, sinceMs: 6 * H, runId: null });
    expect(again).toMatchObject({ upToDate: true, requests: 0 });
    db.close();
  });

  it('an API that stays down writes nothing and says why', async () => {
    const db = openDb({ path: join(dir, 'down.db') });
    sb.ctx.faults.push({ match: '/prometheus/api/v1/query_range', status: 503, remaining: 100 });
    try {
      const client = createPrometheusClient({ url: sb.prometheusUrl, maxRetries: 1 });
      await expect(backfillPrometheus({ db, client, now: AT, stepMs: 5 * MIN, sinceMs: 2 * H, runId: null })).rejects.toBeInstanceOf(
        PrometheusError,
      );
      const usage = createUsageRepository(db);
      expect(usage.workloadHours({ fromMs: 0, toMs: AT * 2 })).toEqual([]);
      expect(usage.prometheusStatus()).toMatchObject({
        ok: false,
        requests: 2,
        message: expect.stringContaining('HTTP 503 (unavailable)'),
      });
    } finally {
      sb.ctx.faults.length = 0;
      db.close();
    }
  });
});
