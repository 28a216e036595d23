import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCollect, type CollectOptions } from '../../cli/collect.js';
import { createPrometheusClient } from '../../collectors/prometheus/client.js';
import { backfillPrometheus } from '../../collectors/prometheus/collect.js';
import { openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createUsageRepository } from '../../db/repositories/usage-repository.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { buildApp } from '../../server/app.js';
import type { StatusResponse } from '../../server/schemas/status.js';
import type { WorkloadUsageResponse } from '../../server/schemas/workloads.js';

/*
 * `collect` end to end against the sandbox: usage with the snapshot, the Prometheus backfill, what the summary and
 * /api/status say, with and without metrics-server.
 */

const H = 3_600_000;
const AT = Date.parse('2026-11-05T17:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'ledger-usage-collect-'));
const sandboxes: RunningSandbox[] = [];
afterEach(() => vi.unstubAllEnvs());
afterAll(async () => {
  for (const sb of sandboxes) await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/*
 * The sandbox without metrics-server, shared by the two tests that want one. Its Prometheus scrapes cAdvisor with two
 * jobs (the last test's subject); the test that collects without --prometheus does not ask it.
 */
let withoutMetricsServer: Promise<RunningSandbox> | null = null;
function sandbox(metricsServer: boolean): Promise<RunningSandbox> {
  if (metricsServer) return startSandbox({ at: AT, metricsServer });
  withoutMetricsServer ??= startSandbox({ at: AT, metricsServer: false, prometheusCadvisorJobs: ['kubelet', 'kubernetes-cadvisor'] });
  return withoutMetricsServer;
}

async function collect(metricsServer: boolean, extra: Partial<CollectOptions>, db: string) {
  const sb = await sandbox(metricsServer);
  if (!sandboxes.includes(sb)) sandboxes.push(sb);
  for (const [k, v] of Object.entries(sb.awsEnv)) vi.stubEnv(k, v);
  const out: string[] = [];
  const err: string[] = [];
  const summary = await runCollect(
    {
      cluster: sb.scenario.clusterName,
      region: sb.scenario.region,
      sinceMs: 2 * 24 * H,
      watch: false,
      intervalMs: 5 * 60_000,
      kubeconfig: sb.kubeconfigPath,
      dbPath: join(dir, db),
      quiet: true,
      ...extra,
    },
    { now: () => AT, out: (l) => out.push(l), err: (l) => err.push(l) },
  );
  return { sb, summary, out, err };
}

const status = async (dbPath: string): Promise<StatusResponse> => {
  const db = openDb({ path: dbPath });
  const app = buildApp({ db });
  try {
    return (await app.inject({ url: '/api/status' })).json<StatusResponse>();
  } finally {
    await app.close();
    db.close();
  }
};

describe('collect with metrics-server and --prometheus', () => {
  it('stores the snapshot usage, backfills the closed hours, counts the Prometheus requests and says so', async () => {
    const { sb, summary, out, err } = await collect(true, {}, 'with.db');
    // A second run, with the sandbox's Prometheus (its URL is known once the sandbox is up), ten minutes later.
    expect(summary.ok).toBe(true);
    expect(summary.usage).toMatchObject({ state: 'available' });
    expect(err.filter((l) => l.includes('usage'))).toEqual([]);
    expect(out.some((l) => /^usage: metrics-server reported \d+ pods at the last snapshot$/.test(l))).toBe(true);

    const second = await runCollect(
      {
        cluster: sb.scenario.clusterName,
        region: sb.scenario.region,
        sinceMs: 2 * 24 * H,
        watch: false,
        intervalMs: 5 * 60_000,
        kubeconfig: sb.kubeconfigPath,
        dbPath: join(dir, 'with.db'),
        quiet: true,
        prometheusUrl: sb.prometheusUrl,
        prometheusSinceMs: 3 * H,
      },
      { now: () => AT + 10 * 60_000, out: (l) => out.push(l), err: () => {} },
    );
    expect(second.failures).toEqual([]);
    // Which jobs scrape cAdvisor (label values; the sandbox's Prometheus answers 404: one job), then cpu and memory.
    expect(second.prometheusRequests).toBe(3);
    expect(second.prometheusRollups).toBeGreaterThan(30);
    expect(out).toContainEqual(expect.stringMatching(/^requests: kubernetes \d+, .*prometheus 3/));
    expect(out).toContainEqual(expect.stringMatching(/Prometheus backfilled \d+ workload-hours/));

    const db = openDb({ path: join(dir, 'with.db') });
    const usage = createUsageRepository(db);
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'prometheus' })).toBe(3);
    const hours = usage.workloadHours({ fromMs: AT - 3 * H, toMs: AT + H });
    expect(hours.filter((h) => h.source === 'prometheus').map((h) => h.hourStart)).toContain(AT - 3 * H);
    // The throttled workload never uses more than its 1500m limit; its requests are 1000m.
    const catalog = hours.filter((h) => h.workloadName === 'catalog-api');
    expect(catalog.length).toBeGreaterThan(0);
    for (const h of catalog) expect(h.cpuMaxMillicores).toBeLessThanOrEqual(1500);
    expect(usage.namespaceUsage({ fromMs: AT, toMs: AT + 1 }).length).toBeGreaterThan(4);
    db.close();

    const s = await status(join(dir, 'with.db'));
    expect(s.usage.metricsServer).toMatchObject({ state: 'available' });
    expect(s.usage).toMatchObject({ snapshots: 2, snapshotsWithUsage: 2, lastUsageAt: new Date(AT + 10 * 60_000).toISOString() });
    expect(s.usage.prometheus).toMatchObject({ ok: true, url: sb.prometheusUrl, requests: 3 });
  }, 120_000);
});

describe('collect without metrics-server', () => {
  it('says so once, carries on with requests only, and /api/status tells the dashboard', async () => {
    const { summary, out, err } = await collect(false, {}, 'without.db');
    expect(summary.ok).toBe(true);
    expect(summary.snapshots).toBe(1);
    expect(err.filter((l) => l.includes('metrics-server'))).toEqual([expect.stringMatching(/^! usage: no metrics-server/)]);
    expect(out).toContainEqual(expect.stringMatching(/^usage: not collected \(requests only\): no metrics-server/));
    const s = await status(join(dir, 'without.db'));
    expect(s.usage.metricsServer).toMatchObject({ state: 'absent', message: expect.stringMatching(/^no metrics-server/) });
    expect(s.usage).toMatchObject({ snapshots: 1, snapshotsWithUsage: 0, lastUsageAt: null, prometheus: null });
  }, 120_000);
});

/*
 * Issue 21 item 8 through the user's path: a cluster whose kubelets' cAdvisor two scrape jobs read (the Prometheus
 * Operator's `kubelet` job beside a chart's `kubernetes-cadvisor`: the sandbox's Prometheus then serves every
 * container's series once per job, and a query without a job matcher sums both), the backfill `collect --prometheus`
 * runs (backfillPrometheus, the real client over HTTP) into a SQLite file, and the Workloads route that charts a
 * container's usage (the first word of the workload's name is its container's: catalog, ledger). Worked by hand from week4's usage profiles (sandbox/scenarios/week4.json), the closed hours
 * 14:00-17:00 UTC on Nov 5 (a Thursday) at 5-minute steps:
 * - storefront/catalog-api requests 1 vCPU and uses 1.25-1.6 of it over its day (peak 16:00 UTC) within +-8 %, held
 *   at its 1500m CPU limit: at 14:00-17:00 the cycle is at >= cos(30 deg) = 0.87 of its peak, so it would use
 *   1.25 + 0.35 x 0.93 = 1.58 vCPU x (0.92..1.08) = 1.45-1.71: at the limit in most steps. Its hourly CPU max and p95
 *   are the limit, 1500 millicores (3000 with the two jobs summed).
 * - payments/ledger-db (3 replicas) requests 1 vCPU / 6 GiB and uses 0.3 and 0.22 of them within +-3 %: CPU 291-309
 *   millicores, memory 1.2804-1.3596 GiB (6 x 0.22 x 0.97 and x 1.03) at every step, so its hourly maxima are in those
 *   bands (summed: 582-618 millicores, 2.56-2.72 GiB).
 * Seen red with the fix removed (the backfill querying without the job matcher): catalog-api 3000 millicores.
 */
describe('the backfill from a Prometheus that scrapes cAdvisor twice, to the Workloads usage route', () => {
  it('shows each container once: catalog-api at its 1500m limit, ledger-db at 0.3 vCPU and 0.22 x 6 GiB, not twice that', async () => {
    const sb = await sandbox(false);
    if (!sandboxes.includes(sb)) sandboxes.push(sb);
    const db = openDb({ path: join(dir, 'twice-scraped.db') });
    const app = buildApp({ db });
    try {
      const r = await backfillPrometheus({
        db,
        client: createPrometheusClient({ url: sb.prometheusUrl }),
        now: AT + 10 * 60_000,
        stepMs: 5 * 60_000,
        sinceMs: 3 * H,
        runId: null,
      });
      // Which jobs scrape cAdvisor (two), then cpu and memory of each job apart.
      expect(r).toMatchObject({ fromMs: AT - 3 * H, toMs: AT, requests: 5 });
      const usage = async (namespace: string, kind: string, name: string, container: string) => {
        const res = await app.inject({
          url: `/api/workloads/usage?namespace=${namespace}&kind=${kind}&name=${name}&container=${container}&window=3h&at=${new Date(AT).toISOString()}`,
        });
        expect(res.statusCode).toBe(200);
        return res.json<WorkloadUsageResponse>().points;
      };
      const GiB = 2 ** 30;
      const hours = [14, 15, 16].map((h) => `2026-11-05T${h}:00:00.000Z`);
      const catalog = await usage('storefront', 'Deployment', 'catalog-api', 'catalog');
      expect(catalog.map((p) => p.hour)).toEqual(hours);
      for (const p of catalog) {
        expect(p.source).toBe('prometheus');
        expect(p.cpuMaxMillicores).toBe(1500);
        expect(p.cpuP95Millicores).toBe(1500);
      }
      const ledger = await usage('payments', 'StatefulSet', 'ledger-db', 'ledger');
      expect(ledger.map((p) => p.hour)).toEqual(hours);
      for (const p of ledger) {
        // 3 replicas x 12 steps an hour
        expect(p).toMatchObject({ pods: 3, samples: 36, source: 'prometheus' });
        expect(p.cpuMaxMillicores).toBeGreaterThanOrEqual(291);
        expect(p.cpuMaxMillicores).toBeLessThanOrEqual(309);
        expect(p.memoryMaxBytes).toBeGreaterThanOrEqual(6 * 0.22 * 0.97 * GiB);
        expect(p.memoryMaxBytes).toBeLessThanOrEqual(6 * 0.22 * 1.03 * GiB);
      }
    } finally {
      await app.close();
      db.close();
    }
  }, 120_000);
});
