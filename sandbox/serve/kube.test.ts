import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients, type KubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import { listAll } from '../../collectors/kubernetes/list-all.js';
import { startSandbox, type RunningSandbox } from '../index.js';
import { HOUR_MS } from '../../core/time.js';

let sb: RunningSandbox;
let k: KubeClients;
let token: string;

beforeAll(async () => {
  sb = await startSandbox({});
  k = createKubeClients({ kubeconfig: sb.kubeconfigPath });
  token = JSON.parse((await import('node:fs')).readFileSync(sb.kubeconfigPath, 'utf8')).users[0].user.token;
  sb.ctx.clock.set(sb.scenario.start + 4 * 24 * HOUR_MS + 17 * HOUR_MS); // a weekday peak
});
afterAll(async () => sb.close());

const pageOfNodes = (limit: number) => (cont: string | undefined) =>
  k.core.listNode({ limit, _continue: cont }).then((r) => ({ items: r.items, continueToken: r.metadata?._continue }));

describe('sandbox Kubernetes API through @kubernetes/client-node', () => {
  it('pages a node list over several pages and returns the same nodes as one big page', async () => {
    const stats = { requests: 0, restarts: 0 };
    const paged = await listAll('nodes', pageOfNodes(4), stats);
    const whole = await listAll('nodes', pageOfNodes(500));
    expect(whole.length).toBeGreaterThan(8);
    expect(stats.requests).toBe(Math.ceil(whole.length / 4));
    expect(paged.map((n) => n.metadata?.name)).toEqual(whole.map((n) => n.metadata?.name));
  });

  it('serves nodes shaped like Karpenter nodes: labels, providerID with three slashes, allocatable strings', async () => {
    const nodes = (await k.core.listNode({})).items;
    const karpenter = nodes.find((n) => n.metadata?.labels?.['karpenter.sh/nodepool'] === 'general');
    expect(karpenter?.spec?.providerID).toMatch(/^aws:\/\/\/us-east-1[abc]\/i-0[0-9a-f]{16}$/);
    expect(karpenter?.metadata?.labels?.['karpenter.sh/capacity-type']).toMatch(/^(spot|on-demand)$/);
    expect(karpenter?.status?.allocatable?.cpu).toMatch(/^\d+m?$/);
    expect(karpenter?.metadata?.ownerReferences?.[0].kind).toBe('NodeClaim');
    const managed = nodes.find((n) => n.metadata?.labels?.['eks.amazonaws.com/nodegroup']);
    expect(managed?.metadata?.labels?.['karpenter.sh/nodepool']).toBeUndefined();
  });

  it('answers 410 Gone for a continue token older than five simulated minutes, and listAll restarts the list', async () => {
    const first = await k.core.listNode({ limit: 3 });
    const cont = first.metadata?._continue;
    expect(cont).toBeTruthy();
    const before = sb.ctx.clock.now();
    sb.ctx.clock.set(before + 6 * 60_000);
    const res = await fetch(`${sb.url}/api/v1/nodes?limit=3&continue=${cont}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(410);
    expect((await res.json()).reason).toBe('Expired');

    // A list whose clock jumps after its first page gets a 410 on the second and starts again.
    const stats = { requests: 0, restarts: 0 };
    let calls = 0;
    const items = await listAll(
      'nodes',
      async (c) => {
        calls += 1;
        if (calls === 2) sb.ctx.clock.set(sb.ctx.clock.now() + 6 * 60_000);
        return pageOfNodes(3)(c);
      },
      stats,
    );
    expect(stats.restarts).toBe(1);
    expect(items.length).toBe((await k.core.listNode({})).items.length);
    sb.ctx.clock.set(before);
  });

  it('refuses a request without the kubeconfig token', async () => {
    const res = await fetch(`${sb.url}/api/v1/nodes`);
    expect(res.status).toBe(401);
  });

  it('lists NodePools, NodeClaims, pods and namespaces into one snapshot', async () => {
    const s = await collectKubeSnapshot(k, sb.ctx.clock.now(), { limit: 25, withEvents: true });
    // the syllabus' three, issue 21's dedicated and steady, issue 22's static load-test
    expect(s.nodePools.map((p) => p.name).sort()).toEqual(['dedicated', 'general', 'load-test', 'spot-batch', 'steady', 'system']);
    expect(s.nodeClaims.length).toBe(s.nodes.filter((n) => n.nodePool).length);
    const db = s.pods.find((p) => p.name === 'ledger-db-0');
    // The init container asks 1500m, more than the 1 cpu of the app container: the effective request is 1500m.
    expect(db?.requests.cpuMillicores).toBe(1500);
    expect(db?.doNotDisrupt).toBe(true);
    expect(db?.team).toBe('payments');
    expect(s.namespaces.find((n) => n.name === 'analytics')?.team).toBe('data');
  });

  it('gives byte-identical answers from two sandboxes with the same seed', async () => {
    const other = await startSandbox({ at: sb.ctx.clock.now() });
    try {
      const tok2 = JSON.parse((await import('node:fs')).readFileSync(other.kubeconfigPath, 'utf8')).users[0].user.token;
      for (const path of ['/api/v1/nodes', '/api/v1/pods?limit=50', '/apis/karpenter.sh/v1/nodeclaims', '/api/v1/events']) {
        const a = await (await fetch(sb.url + path, { headers: { authorization: `Bearer ${token}` } })).text();
        const b = await (await fetch(other.url + path, { headers: { authorization: `Bearer ${tok2}` } })).text();
        expect(b).toBe(a);
      }
    } finally {
      await other.close();
    }
  });
});
