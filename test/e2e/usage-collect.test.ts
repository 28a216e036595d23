import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCollect, type CollectOptions } from '../../cli/collect.js';
import { openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createUsageRepository } from '../../db/repositories/usage-repository.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { buildApp } from '../../server/app.js';
import type { StatusResponse } from '../../server/schemas/status.js';

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

async function collect(metricsServer: boolean, extra: Partial<CollectOptions>, db: string) {
  const sb = await startSandbox({ at: AT, metricsServer });
  sandboxes.push(sb);
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
