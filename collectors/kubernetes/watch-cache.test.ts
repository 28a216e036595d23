import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeSnapshot } from '../../core/model.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { createKubeClients } from './client.js';
import { collectKubeSnapshot } from './collect.js';
import { KubeWatchCache } from './watch-cache.js';
import { HOUR_MS } from '../../core/time.js';

let sb: RunningSandbox;

beforeAll(async () => {
  sb = await startSandbox({});
});
afterAll(async () => sb.close());

async function moveClock(t: number): Promise<string> {
  const res = await fetch(`${sb.url}/_sandbox/clock`, { method: 'POST', body: JSON.stringify({ time: new Date(t).toISOString() }) });
  return ((await res.json()) as { resourceVersion: string }).resourceVersion;
}

const canonical = (s: KubeSnapshot) => ({
  nodes: s.nodes.map((n) => JSON.stringify(n)).sort(),
  pods: s.pods.map((p) => JSON.stringify(p)).sort(),
  nodeClaims: s.nodeClaims.map((c) => JSON.stringify(c)).sort(),
  nodePools: s.nodePools.map((p) => JSON.stringify(p)).sort(),
  namespaces: s.namespaces.map((n) => JSON.stringify(n)).sort(),
  objects: (s.objects ?? []).map((o) => JSON.stringify(o)).sort(),
  kinds: s.kinds,
  karpenterVersion: s.karpenterVersion,
});

describe('KubeWatchCache against the sandbox (list, then watch with bookmarks)', () => {
  it('holds exactly what a fresh list shows, at every step across a day with scale-ups, consolidation and a batch burst', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const start = sb.scenario.start + 2 * 24 * HOUR_MS; // the day of the first batch burst
    await moveClock(start);
    const cache = new KubeWatchCache(k);
    await cache.start();
    try {
      let compared = 0;
      const seenEvents = new Set<string>();
      for (let t = start; t <= start + 24 * HOUR_MS; t += 5 * 60_000) {
        await cache.waitFor(await moveClock(t));
        const fromWatch = cache.snapshot(t);
        fromWatch.events.forEach((e) => seenEvents.add(e.uid));
        if ((t - start) % HOUR_MS === 0) {
          const fromList = await collectKubeSnapshot(k, t, { limit: 40 });
          expect(canonical(fromWatch)).toEqual(canonical(fromList));
          compared += 1;
        }
      }
      expect(compared).toBe(25);
      // Every Karpenter event of the day reached the cache exactly as the API has it.
      const dayEvents = sb.scenario.events.filter((e) => e.at > start && e.at <= start + 24 * HOUR_MS);
      expect(dayEvents.length).toBeGreaterThan(0);
      for (const e of dayEvents) expect(seenEvents.has(e.uid)).toBe(true);
      // One list per resource, and the watches stayed open: no per-step requests. An extra kind the sandbox does not
      // serve (404) is not watched (and is listed again only every 10 minutes of wall time).
      const served = Object.values(cache.snapshot(start).kinds ?? {}).filter((k) => k.state === 'ok').length - 2; // less Node, NodePool
      expect(cache.watchesStarted).toBe(6 + served);
    } finally {
      cache.stop();
    }
  });

  it('relists when the clock goes back in time (410 on the watch) and converges again', async () => {
    const k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
    const t1 = sb.scenario.start + 5 * 24 * HOUR_MS;
    await moveClock(t1);
    const cache = new KubeWatchCache(k);
    await cache.start();
    try {
      const back = t1 - 3 * HOUR_MS;
      const rv = await moveClock(back);
      // The watches end with 410 and relist at the earlier time.
      await new Promise((r) => setTimeout(r, 300));
      await cache.waitFor(rv);
      await expect.poll(() => cache.stats.restarts).toBeGreaterThanOrEqual(1);
      const fromList = await collectKubeSnapshot(k, back);
      // Every kind relists on its own (the pods, listed as plain JSON, can be back before the CSINodes): converged
      // when the whole cache is, not when the pods are.
      await expect.poll(() => canonical(cache.snapshot(back)), { timeout: 20_000 }).toEqual(canonical(fromList));
    } finally {
      cache.stop();
    }
  });
});
