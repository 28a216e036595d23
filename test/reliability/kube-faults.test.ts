import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { createKubeClients, type KubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import type { ListStats } from '../../collectors/kubernetes/list-all.js';
import type { KubeSnapshot } from '../../core/model.js';
import { openDb, type Db } from '../../db/open-db.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { FlakyProxy } from './fixtures/flaky-proxy.js';
import { onSandboxRequest } from './fixtures/request-hook.js';
import { HOUR_MS } from '../../core/time.js';

/*
 * The Kubernetes API misbehaving under the real @kubernetes/client-node: 5xx storms, throttling and an expired
 * continue token in the middle of a paged list, the API server going away (connections reset, then refused)
 * mid-list and mid-watch, and for good. The collector must end with exactly what a calm API gives, or a clear error.
 */
let sb: RunningSandbox;
let proxy: FlakyProxy;
let k: KubeClients;
let proxiedKubeconfig: string;
let peak: number;
let unhook: () => void = () => {};
const savedEnv = { ...process.env };

beforeAll(async () => {
  sb = await startSandbox({});
  peak = sb.scenario.start + 4 * 24 * HOUR_MS + 20 * HOUR_MS; // a weekday evening: the most pods
  proxy = new FlakyProxy(Number(new URL(sb.url).port));
  await proxy.up();
  proxiedKubeconfig = join(mkdtempSync(join(tmpdir(), 'ledger-kube-faults-')), 'kubeconfig');
  // The proxy passes TLS through: the same kubeconfig (token, CA) with the proxy's port.
  const original = readFileSync(sb.kubeconfigPath, 'utf8');
  const proxied = original.replace(sb.kubeUrl, `https://127.0.0.1:${proxy.port}`);
  if (proxied === original) throw new Error(`the kubeconfig does not name ${sb.kubeUrl}`);
  writeFileSync(proxiedKubeconfig, proxied, { mode: 0o600 });
  k = createKubeClients({ kubeconfig: proxiedKubeconfig });
  Object.assign(process.env, sb.awsEnv);
});
afterAll(async () => {
  await proxy?.down();
  await sb?.close();
  process.env = savedEnv;
});
beforeEach(async () => {
  unhook();
  unhook = () => {};
  sb.ctx.faults.length = 0;
  sb.ctx.clock.set(peak);
  await proxy.up();
});

const uids = (s: KubeSnapshot): string[] => s.pods.map((p) => p.uid).sort();
const podPages = (): number => sb.ctx.requestLog.filter((r) => r.operation === 'kube:GET /api/v1/pods').length;
/** Runs `hook` once, when the n-th page of the pods list is asked for (the request has reached the API server). */
const atPodsPage = (n: number, hook: () => void): void => {
  let seen = 0;
  unhook = onSandboxRequest(sb.ctx, (op) => {
    if (op === 'kube:GET /api/v1/pods' && ++seen === n) hook();
  });
};

describe('a paged list when the API fails part way', () => {
  it.each([
    ['a 503 storm', 503, 3, 0],
    ['throttling (429)', 429, 2, 0],
    ['500s up to the retry limit (5)', 500, 5, 0],
    ['an expired continue token (410 Gone)', 410, 1, 1],
  ])('survives %s on page 2 of the pods and returns exactly the calm list', async (_what, status, count, restarts) => {
    const calm = await collectKubeSnapshot(k, peak, { limit: 20 });
    expect(calm.pods.length).toBeGreaterThan(60); // several pages
    const calmPages = Math.ceil(calm.pods.length / 20);

    const before = podPages();
    atPodsPage(2, () => sb.ctx.faults.push({ match: '/api/v1/pods', status, remaining: count }));
    const stats: ListStats = { requests: 0, restarts: 0 };
    const stormy = await collectKubeSnapshot(k, peak, { limit: 20 }, stats);

    expect(uids(stormy)).toEqual(uids(calm)); // nothing lost, nothing twice
    expect(stats.restarts).toBe(restarts);
    // A retry asks for the same page again; a 410 starts the list over after the first page.
    expect(podPages() - before).toBe(restarts === 0 ? calmPages + count : 1 + count + calmPages);
  });

  it('survives the API server going away mid-list (connections reset, then refused) and coming back', async () => {
    const calm = await collectKubeSnapshot(k, peak, { limit: 20, withEvents: true });
    atPodsPage(2, () => {
      void proxy.down().then(() => setTimeout(() => void proxy.up(), 400));
    });
    const connectionsBefore = proxy.connections;
    const stats: ListStats = { requests: 0, restarts: 0 };
    const s = await collectKubeSnapshot(k, peak, { limit: 20, withEvents: true }, stats);
    expect(uids(s)).toEqual(uids(calm));
    for (const key of ['nodes', 'nodeClaims', 'nodePools', 'namespaces', 'events'] as const) {
      expect(s[key].length, key).toBe(calm[key].length);
    }
    expect(proxy.connections - connectionsBefore).toBeGreaterThan(1); // it reconnected
  });

  it('gives up with a clear error, naming the list and the cause, when the API stays away', async () => {
    await proxy.down();
    const started = Date.now();
    await expect(collectKubeSnapshot(k, peak, { limit: 20 })).rejects.toThrow(
      /^listing (nodes|pods|namespaces|nodepools|nodeclaims) failed: .*ECONNREFUSED/,
    );
    // Five retries with backoff (0.1 + 0.2 + 0.4 + 0.8 + 1.6 s), not an endless loop.
    expect(Date.now() - started).toBeGreaterThan(3_000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('the watch cache when the API goes away mid-run', () => {
  const seed = async (db: Db, kubeconfigPath: string, hours: number): Promise<void> => {
    await seedFromSandbox({
      db,
      sandboxUrl: sb.url,
      kubeconfigPath,
      clusterName: sb.scenario.clusterName,
      region: sb.scenario.region,
      startMs: sb.scenario.start,
      endMs: sb.scenario.start + hours * HOUR_MS,
      stepMs: sb.scenario.stepMs,
      quiet: true,
      usage: false, // usage is not what this test looks at, and reading it doubles the seeding time
    });
  };
  const rows = (db: Db) => ({
    snapshots: db.prepare('SELECT taken_at, node_count, pod_count FROM snapshots ORDER BY taken_at').all(),
    nodePools: db
      .prepare(
        'SELECT taken_at, nodepool, capacity_type, nodes, req_cpu_m, req_memory_b, alloc_cpu_m, usd_per_hour FROM snapshot_nodepools ORDER BY taken_at, nodepool, capacity_type',
      )
      .all(),
    namespaces: db
      .prepare(
        'SELECT taken_at, namespace, nodepool, pods, req_cpu_m, req_memory_b FROM snapshot_namespaces ORDER BY taken_at, namespace, nodepool',
      )
      .all(),
    events: db.prepare('SELECT uid, reason FROM events ORDER BY uid').all(),
  });

  it('re-watches and writes the same snapshots as a run with a calm API', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-kube-faults-seed-'));
    const calm = openDb({ path: join(dir, 'calm.db') });
    const flaky = openDb({ path: join(dir, 'flaky.db') });
    try {
      await seed(calm, sb.kubeconfigPath, 8);
      // Four simulated hours in, every watch connection is reset and the API refuses connections for a second.
      let dropped = false;
      const off = sb.ctx.clock.onChange((_from, to) => {
        if (!dropped && to >= sb.scenario.start + 4 * HOUR_MS) {
          dropped = true;
          void proxy.down().then(() => setTimeout(() => void proxy.up(), 1_000));
        }
      });
      const watchesBefore = sb.ctx.requestLog.filter((r) => r.operation.startsWith('kube:WATCH')).length;
      await seed(flaky, proxiedKubeconfig, 8);
      off();
      expect(dropped).toBe(true);
      // The six watches were started again after the drop.
      expect(sb.ctx.requestLog.filter((r) => r.operation.startsWith('kube:WATCH')).length - watchesBefore).toBeGreaterThanOrEqual(12);
      const expected = rows(calm);
      expect(expected.snapshots).toHaveLength(8 * 12);
      expect(rows(flaky)).toEqual(expected);
    } finally {
      calm.close();
      flaky.close();
    }
  }, 60_000);
});
