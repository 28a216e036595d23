import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeSnapshot } from '../../core/model.js';
import { loadScenario } from '../../sandbox/index.js';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import type { SandboxHandler } from '../../sandbox/serve/context.js';
import { createKubeHandler } from '../../sandbox/serve/kube.js';
import { newContext, serveHandlers, type ServedHandlers } from '../../test/fixtures/serve-handlers.js';
import { createKubeClients, type KubeClients } from './client.js';
import { collectKubeSnapshot } from './collect.js';
import { EXTRA_KINDS } from './kinds.js';
import type { ListStats } from './list-all.js';
import { HOUR_MS } from '../../core/time.js';

const LISTS = [
  '/api/v1/namespaces',
  '/api/v1/nodes',
  '/api/v1/pods',
  '/apis/karpenter.sh/v1/nodepools',
  '/apis/karpenter.sh/v1/nodeclaims',
  '/api/v1/events',
];

/** The sandbox's Kubernetes API (week4 on a weekday evening, as consolidation runs) behind a spy that sees every list request. */
let served: ServedHandlers;
let k: KubeClients;
let dir: string;
let peak: number;
let onRequest: (url: URL) => void = () => {};
const requests: URL[] = [];

beforeAll(async () => {
  const scenario = loadScenario();
  peak = scenario.start + 4 * 24 * HOUR_MS + 20 * HOUR_MS;
  const token = randomBytes(16).toString('hex');
  const spy: SandboxHandler = (req) => {
    requests.push(req.url);
    onRequest(req.url);
    return null;
  };
  served = await serveHandlers([spy, createKubeHandler(scenario, token)], newContext(scenario, peak));
  dir = mkdtempSync(join(tmpdir(), 'ledger-kube-collect-'));
  writeKubeconfig(join(dir, 'kubeconfig'), served.url, token, scenario.clusterName);
  k = createKubeClients({ kubeconfig: join(dir, 'kubeconfig') });
});
afterAll(async () => {
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  served.ctx.clock.set(peak);
  served.ctx.faults.length = 0;
  requests.length = 0;
  onRequest = () => {};
});

const canonical = (s: KubeSnapshot) => ({
  namespaces: s.namespaces.map((x) => JSON.stringify(x)).sort(),
  nodes: s.nodes.map((x) => JSON.stringify(x)).sort(),
  pods: s.pods.map((x) => JSON.stringify(x)).sort(),
  nodePools: s.nodePools.map((x) => JSON.stringify(x)).sort(),
  nodeClaims: s.nodeClaims.map((x) => JSON.stringify(x)).sort(),
  events: s.events.map((x) => JSON.stringify(x)).sort(),
  objects: (s.objects ?? []).map((x) => JSON.stringify(x)).sort(),
  kinds: s.kinds,
});
const perList = (): Record<string, number> => Object.fromEntries(LISTS.map((p) => [p, requests.filter((u) => u.pathname === p).length]));

describe('collectKubeSnapshot against the sandbox API (real @kubernetes/client-node)', () => {
  it('pages every list (nodes, pods, NodeClaims, NodePools, namespaces, events) and gets what single pages give', async () => {
    const whole = await collectKubeSnapshot(k, peak, { limit: 500, withEvents: true });
    requests.length = 0;
    const stats: ListStats = { requests: 0, restarts: 0 };
    const paged = await collectKubeSnapshot(k, peak, { limit: 2, withEvents: true }, stats);
    expect(canonical(paged)).toEqual(canonical(whole));

    const counts = [whole.namespaces, whole.nodes, whole.pods, whole.nodePools, whole.nodeClaims, whole.events].map((l) => l.length);
    // Two items a page: every list needs several pages (the three NodePools two).
    for (const n of counts) expect(n).toBeGreaterThan(2);
    const pages = counts.map((n) => Math.ceil(n / 2));
    expect(perList()).toEqual(Object.fromEntries(LISTS.map((p, i) => [p, pages[i]])));
    // The extra kinds (PDBs, DaemonSets, volumes, CSINodes, EC2NodeClasses, NodeOverlays) are listed too, each at
    // least once (a kind the sandbox does not serve answers 404 once and is noted, not retried).
    const extra = EXTRA_KINDS.map((x) => requests.filter((u) => u.pathname === x.path).length);
    for (const n of extra) expect(n).toBeGreaterThanOrEqual(1);
    expect(stats).toEqual({ requests: pages.reduce((a, b) => a + b, 0) + extra.reduce((a, b) => a + b, 0), restarts: 0 });
    expect(requests.every((u) => u.searchParams.get('limit') === '2')).toBe(true);
  });

  it('retries 429 and 5xx answers with backoff and still gets everything', async () => {
    const clean = await collectKubeSnapshot(k, peak, { limit: 50, withEvents: true });
    const cleanRequests = perList();
    requests.length = 0;
    served.ctx.faults.push(
      { match: '/api/v1/pods', status: 429, remaining: 2 },
      { match: '/apis/karpenter.sh/v1/nodeclaims', status: 500, remaining: 1 },
      { match: '/api/v1/nodes', status: 503, remaining: 1 },
    );
    const stats: ListStats = { requests: 0, restarts: 0 };
    const retried = await collectKubeSnapshot(k, peak, { limit: 50, withEvents: true }, stats);
    expect(canonical(retried)).toEqual(canonical(clean));
    expect(perList()).toEqual({
      ...cleanRequests,
      '/api/v1/pods': cleanRequests['/api/v1/pods'] + 2,
      '/apis/karpenter.sh/v1/nodeclaims': cleanRequests['/apis/karpenter.sh/v1/nodeclaims'] + 1,
      '/api/v1/nodes': cleanRequests['/api/v1/nodes'] + 1,
    });
    expect(served.ctx.faults.every((f) => f.remaining === 0)).toBe(true);
  });

  it('gives up after five retries, naming the list and the status', async () => {
    served.ctx.faults.push({ match: '/api/v1/pods', status: 500, remaining: 6 });
    await expect(collectKubeSnapshot(k, peak, { limit: 500 })).rejects.toThrow(/listing pods failed with HTTP 500/);
    expect(requests.filter((u) => u.pathname === '/api/v1/pods')).toHaveLength(6);
  });

  it('restarts a list whose continue token expired mid-way (410 Gone) and returns the cluster as of the restart', async () => {
    // The clock jumps six simulated minutes just as the second page of pods is asked for: its token is then too old.
    let jumped = false;
    onRequest = (url) => {
      if (!jumped && url.pathname === '/api/v1/pods' && url.searchParams.has('continue')) {
        jumped = true;
        served.ctx.clock.set(peak + 6 * 60_000);
      }
    };
    const stats: ListStats = { requests: 0, restarts: 0 };
    const s = await collectKubeSnapshot(k, peak, { limit: 20 }, stats);
    expect(jumped).toBe(true);
    // The pods list started over (and so did any other list that was holding a token when the clock jumped).
    expect(requests.filter((u) => u.pathname === '/api/v1/pods' && !u.searchParams.has('continue'))).toHaveLength(2);
    expect(stats.restarts).toBeGreaterThanOrEqual(1);
    onRequest = () => {};
    const fresh = await collectKubeSnapshot(k, peak + 6 * 60_000, { limit: 500 });
    expect(s.pods.map((p) => p.uid).sort()).toEqual(fresh.pods.map((p) => p.uid).sort());
    expect(s.pods.length).toBeGreaterThan(20);
  });
});
