import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createUsageRepository } from '../../db/repositories/usage-repository.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { createPrometheusClient, displayUrl, PrometheusError } from './client.js';
import { backfillPrometheus, chunkRange, MAX_POINTS_PER_SERIES, maxAcrossJobs, usageQueries } from './collect.js';

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
    // 17:00: the six closed hours 11:00-17:00: which jobs scrape cAdvisor (the sandbox's Prometheus does not offer
    // label values: 404, one job), then one chunk of two queries.
    const r = await backfillPrometheus({ db, client, now: AT + 20 * MIN, stepMs: 5 * MIN, sinceMs: 6 * H, runId: null });
    expect(r).toMatchObject({ fromMs: AT - 6 * H, toMs: AT, requests: 3, upToDate: false });
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
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'prometheus' })).toBe(3);
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
        // the label values request (404), then the failing query and its one retry
        requests: 3,
        message: expect.stringContaining('HTTP 503 (unavailable)'),
      });
    } finally {
      sb.ctx.faults.length = 0;
      db.close();
    }
  });
});

/*
 * cAdvisor scraped twice (issue 21 item 8): the Prometheus Operator's `kubelet` job (metrics_path /metrics/cadvisor)
 * beside a chart's `kubernetes-cadvisor` job, both reading every kubelet's cAdvisor. A tiny Prometheus on loopback
 * answers as Prometheus would: label values of `job` on cAdvisor's series, and each query_range summed by namespace,
 * pod and container over the series it selects (so the query without a job matcher sums the two jobs: the double).
 * One container, web's `app`, one closed hour 11:00-12:00 at 5-minute steps (12 points): 0.25 cores and 200 MiB in
 * both jobs, except that `kubernetes-cadvisor` missed the last scrape.
 */
describe('a cluster whose cAdvisor two scrape jobs read', () => {
  const HOUR = Date.parse('2026-11-05T11:00:00Z');
  const MIB = 2 ** 20;
  const points = (n: number, v: string): [number, string][] => Array.from({ length: n }, (_, i) => [(HOUR + i * 5 * MIN) / 1000, v]);
  const metric = { container: 'app', namespace: 'shop', pod: 'web-6f7d9c8b4-4xq2n' };
  const perJob: Record<string, { cpu: [number, string][]; memory: [number, string][] }> = {
    kubelet: { cpu: points(12, '0.25'), memory: points(12, String(200 * MIB)) },
    'kubernetes-cadvisor': { cpu: points(11, '0.25'), memory: points(11, String(200 * MIB)) },
  };
  /** What Prometheus' `sum by (namespace, pod, container)` gives over both jobs' series. */
  const summed = (which: 'cpu' | 'memory'): [number, string][] =>
    perJob.kubelet[which].map(([t, v], i) => [t, String(Number(v) + Number(perJob['kubernetes-cadvisor'][which][i]?.[1] ?? 0))]);

  async function tinyPrometheus(): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.method === 'GET' && url.pathname === '/api/v1/label/job/values') {
          asked.push(`label job ${url.searchParams.get('match[]')}`);
          return send({ status: 'success', data: ['kubelet', 'kubernetes-cadvisor'] });
        }
        const query = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('query') ?? '';
        asked.push(query);
        const which = query.includes('container_cpu_usage_seconds_total') ? 'cpu' : 'memory';
        const job = /job="([^"]+)"/.exec(query)?.[1];
        const values = job === undefined ? summed(which) : perJob[job][which];
        send({ status: 'success', data: { resultType: 'matrix', result: [{ metric, values }] } });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      asked,
      close: () => new Promise<void>((r) => server.close(() => r())),
    };
  }

  it('asks each job apart and keeps one figure per container: 250 millicores and 200 MiB, not twice that', async () => {
    const prom = await tinyPrometheus();
    const db = openDb({ path: join(dir, 'double-scrape.db') });
    try {
      const client = createPrometheusClient({ url: prom.url });
      const r = await backfillPrometheus({ db, client, now: HOUR + H + 10 * MIN, stepMs: 5 * MIN, sinceMs: H, runId: null });
      // One label values request, then cpu and memory for each of the two jobs.
      expect(r.requests).toBe(5);
      expect(prom.asked[0]).toBe('label job container_cpu_usage_seconds_total{container!="", container!="POD"}');
      expect(prom.asked.slice(1).every((q) => /job="(kubelet|kubernetes-cadvisor)"/.test(q))).toBe(true);
      const [hour] = createUsageRepository(db).workloadHours({ fromMs: HOUR, toMs: HOUR + H });
      expect(hour).toMatchObject({
        hourStart: HOUR,
        namespace: 'shop',
        workloadKind: 'Deployment',
        workloadName: 'web',
        container: 'app',
        samples: 12,
        cpuMaxMillicores: 250,
        cpuAvgMillicores: 250,
        memoryMaxBytes: 200 * MIB,
      });
    } finally {
      db.close();
      await prom.close();
    }
  });

  it.each([
    // [case, answers of each job, merged]
    ['one job: as answered', [[{ metric, values: [[1, '0.2']] }]], [{ metric, values: [[1, '0.2']] }]],
    [
      'two jobs, one lagging: the larger at each time, every time either has',
      [
        [
          {
            metric,
            values: [
              [1, '0.2'],
              [2, '0.3'],
            ],
          },
        ],
        [{ metric, values: [[1, '0.25']] }],
      ],
      [
        {
          metric,
          values: [
            [1, '0.25'],
            [2, '0.3'],
          ],
        },
      ],
    ],
    [
      'two jobs over disjoint nodes: each container from the job that has it',
      [[{ metric, values: [[1, '0.2']] }], [{ metric: { ...metric, pod: 'other' }, values: [[1, '0.1']] }]],
      [
        { metric, values: [[1, '0.2']] },
        { metric: { ...metric, pod: 'other' }, values: [[1, '0.1']] },
      ],
    ],
  ] as [string, { metric: Record<string, string>; values: [number, string][] }[][], unknown][])(
    'maxAcrossJobs: %s',
    (_c, answers, merged) => {
      expect(maxAcrossJobs(answers)).toEqual(merged);
    },
  );
});
