import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { scaleScenario } from '../scale/scale-scenario.js';
import { SandboxClock, type SandboxContext } from './context.js';
import { createKubeHandler } from './kube.js';
import { startSandboxServer } from './server.js';

/** The same scale scenario served lean and realistic: the collector must read the same records from both. */
const scenario = scaleScenario({ nodes: 12, podsPerNode: 20, days: 2, seed: 5 });
const KUBECTL = '/usr/bin/kubectl';
const run = promisify(execFile);

interface Served {
  url: string;
  kubeconfig: string;
  close: () => Promise<void>;
}

let dir: string;
let lean: Served;
let realistic: Served;

async function serve(podDetail: 'lean' | 'realistic', name: string): Promise<Served> {
  const ctx: SandboxContext = { scenario, clock: new SandboxClock(scenario.end), requestLog: [], faults: [] };
  // No token: kubectl sends credentials only over TLS, and these servers speak plain HTTP on loopback.
  const srv = await startSandboxServer(ctx, [createKubeHandler(scenario, null, { podDetail })]);
  const kubeconfig = join(dir, name);
  writeKubeconfig(kubeconfig, srv.url, 'unused', scenario.clusterName);
  return { url: srv.url, kubeconfig, close: srv.close };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-kube-detail-'));
  lean = await serve('lean', 'lean.kubeconfig');
  realistic = await serve('realistic', 'realistic.kubeconfig');
});
afterAll(async () => {
  await lean.close();
  await realistic.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('realistic pod detail', () => {
  it('serves pods of 10+ KB with managedFields, env, probes and statuses', async () => {
    const list = (await (await fetch(`${realistic.url}/api/v1/pods?limit=50`)).json()) as { items: Record<string, unknown>[] };
    expect(list.items).toHaveLength(50);
    for (const pod of list.items) {
      expect(JSON.stringify(pod).length).toBeGreaterThanOrEqual(10_000);
      const p = pod as {
        metadata: { managedFields: unknown[] };
        spec: { containers: { env: unknown[] }[] };
        status: { containerStatuses: unknown[] };
      };
      expect(p.metadata.managedFields.length).toBe(2);
      expect(p.spec.containers[0].env.length).toBeGreaterThan(10);
      expect(p.status.containerStatuses.length).toBe(1);
    }
    const leanList = (await (await fetch(`${lean.url}/api/v1/pods?limit=50`)).json()) as { items: unknown[] };
    expect(JSON.stringify(leanList.items[0]).length).toBeLessThan(2_000);
  });

  it('gives the collector the same snapshot as the lean pods (requests, owners, labels it reads)', async () => {
    const fromLean = await collectKubeSnapshot(createKubeClients({ kubeconfig: lean.kubeconfig }), scenario.end, { limit: 37 });
    const fromRealistic = await collectKubeSnapshot(createKubeClients({ kubeconfig: realistic.kubeconfig }), scenario.end, { limit: 37 });
    expect(fromRealistic.pods).toHaveLength(12 * 20);
    const essentials = (s: typeof fromLean) =>
      s.pods.map((p) => ({
        uid: p.uid,
        ns: p.namespace,
        name: p.name,
        node: p.nodeName,
        phase: p.phase,
        owner: `${p.ownerKind}/${p.ownerName}`,
        team: p.team,
        requests: p.requests,
        dnd: p.doNotDisrupt,
        app: p.labels.app,
      }));
    expect(essentials(fromRealistic)).toEqual(essentials(fromLean));
    expect(fromRealistic.nodes).toEqual(fromLean.nodes);
  });
});

describe('API discovery', () => {
  it('answers the legacy discovery documents kubectl falls back to', async () => {
    const get = async (path: string) => (await fetch(`${lean.url}${path}`)).json() as Promise<Record<string, unknown>>;
    expect((await get('/api')).versions).toEqual(['v1']);
    const core = (await get('/api/v1')) as { groupVersion: string; resources: { name: string; namespaced: boolean }[] };
    expect(core.groupVersion).toBe('v1');
    // issue 21: the claims and volumes a what-if reads are core resources too
    expect(core.resources.map((r) => `${r.name}:${r.namespaced}`).sort()).toEqual([
      'events:true',
      'namespaces:false',
      'nodes:false',
      'persistentvolumeclaims:true',
      'persistentvolumes:false',
      'pods:true',
    ]);
    const groups = (await get('/apis')) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    // and the groups of every kind it reads (karpenter.sh prefers v1 beside v1alpha1's NodeOverlays)
    expect(groups.groups.map((g) => g.preferredVersion.groupVersion)).toEqual([
      'apps/v1',
      'batch/v1',
      'policy/v1',
      'storage.k8s.io/v1',
      'karpenter.sh/v1',
      'karpenter.k8s.aws/v1',
    ]);
    const karpenter = (await get('/apis/karpenter.sh/v1')) as { resources: { name: string }[] };
    expect(karpenter.resources.map((r) => r.name).sort()).toEqual(['nodeclaims', 'nodepools']);
  });

  it.skipIf(!existsSync(KUBECTL))('lets kubectl list every pod and node, page by page (needs kubectl at /usr/bin/kubectl)', async () => {
    const kubectl = (args: string[]) =>
      run(KUBECTL, ['--kubeconfig', realistic.kubeconfig, '--cache-dir', join(dir, 'kubectl-cache'), ...args], { maxBuffer: 64 << 20 });
    const pods = JSON.parse((await kubectl(['get', 'pods', '-A', '-o', 'json', '--chunk-size', '100'])).stdout) as {
      items: { metadata: { name: string } }[];
    };
    expect(pods.items).toHaveLength(12 * 20);
    const nodes = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'])).stdout) as { items: unknown[] };
    expect(nodes.items).toHaveLength(12);
    const pools = JSON.parse((await kubectl(['get', 'nodepools.karpenter.sh', '-o', 'json'])).stdout) as {
      items: { metadata: { name: string } }[];
    };
    expect(pools.items.map((p) => p.metadata.name).sort()).toEqual(['general', 'spot-batch', 'system']);
  });
});
