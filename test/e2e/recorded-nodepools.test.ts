import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { HOUR_MS } from '../../core/time.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import { json, type SandboxHandler } from '../../sandbox/serve/context.js';
import { buildApp } from '../../server/app.js';
import type { BillLinesResponse, Explanation, ImportResponse } from '../../server/schemas/bill.js';
import type { NodePool, NodePoolsResponse } from '../../server/schemas/nodepools.js';
import { tinyScenario } from '../fixtures/tiny-scenario.js';
import { DOCS_NODECLAIM, RECORDED_NODEPOOLS } from '../fixtures/karpenter-nodepools.js';
import { newContext, serveHandlers, type ServedHandlers } from '../fixtures/serve-handlers.js';

/**
 * NodePools as Karpenter's docs and examples write them (test/fixtures/karpenter-nodepools.ts: limits as JSON
 * numbers, Gte, minValues, budgets with a schedule, taints, weight, expireAfter Never), served by a tiny Kubernetes
 * API on loopback, read by the real collector (@kubernetes/client-node), stored, and read back over HTTP: the NodePool
 * cards (/api/nodepools) and Explain this bill for a day of NodePool `default` imported as a Cost Explorer CSV.
 *
 * Two nodes of `default`: the docs' recorded NodeClaim default-x9wxq (c5a.2xlarge spot in us-west-2c, launched
 * from an older spec) and an m5.xlarge launched into a capacity reservation in us-west-2b, whose labels are the
 * catalogue's for the type plus what Karpenter's AWS provider adds (cloudprovider.go instanceToNodeClaim).
 */

const BILL_DAY = Date.parse('2026-11-02T00:00:00Z');
const M5_CLAIM = 'default-7mq2v';
const M5_NODE = 'ip-10-0-41-17.us-west-2.compute.internal';

function m5xlargeClaim() {
  const type = loadInstanceCatalog().types.get('m5.xlarge');
  if (!type) throw new Error('m5.xlarge is not in the catalogue');
  return {
    ...DOCS_NODECLAIM,
    metadata: {
      ...DOCS_NODECLAIM.metadata,
      name: M5_CLAIM,
      uid: '5f1c2e7a-8b3d-4e6f-9a0b-1c2d3e4f5a6b',
      creationTimestamp: '2026-11-01T06:00:00Z',
      labels: {
        ...type.labels,
        'karpenter.sh/capacity-type': 'reserved',
        'karpenter.k8s.aws/capacity-reservation-id': 'cr-0c4d8e2f6a1b3c5d7',
        'karpenter.k8s.aws/capacity-reservation-type': 'default',
        'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
        'karpenter.k8s.aws/instance-tenancy': 'default',
        'karpenter.sh/nodepool': 'default',
        'topology.k8s.aws/zone-id': 'usw2-az2',
        'topology.kubernetes.io/region': 'us-west-2',
        'topology.kubernetes.io/zone': 'us-west-2b',
      },
    },
    status: {
      ...DOCS_NODECLAIM.status,
      allocatable: { ...type.allocatableQuantities },
      capacity: { cpu: '4', memory: '15896988Ki', pods: '58', 'ephemeral-storage': '20Gi' },
      nodeName: M5_NODE,
      providerID: 'aws:///us-west-2b/i-0a1b2c3d4e5f60718',
    },
  };
}

interface ClaimShape {
  metadata: { name: string; uid: string; creationTimestamp: string; labels: Record<string, string> };
  spec: { taints: { key: string; effect: string }[] };
  status: { nodeName: string; providerID: string; capacity: Record<string, string>; allocatable: Record<string, string> };
}

/** The Node Karpenter registers for a NodeClaim: its labels and resources, owned by it. */
function nodeOf(claim: ClaimShape) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: claim.status.nodeName,
      uid: `node-${claim.metadata.uid}`,
      resourceVersion: '19600600',
      creationTimestamp: claim.metadata.creationTimestamp,
      labels: {
        ...claim.metadata.labels,
        'kubernetes.io/hostname': claim.status.nodeName,
        'karpenter.sh/initialized': 'true',
        'karpenter.sh/registered': 'true',
      },
      ownerReferences: [
        { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: claim.metadata.name, uid: claim.metadata.uid, blockOwnerDeletion: true },
      ],
    },
    spec: { providerID: claim.status.providerID, taints: claim.spec.taints },
    status: { capacity: claim.status.capacity, allocatable: claim.status.allocatable },
  };
}

/** Answers the six lists the collector asks for, from fixed items, in one page each. */
function recordedKubeApi(lists: Record<string, { kind: string; items: unknown[] }>): SandboxHandler {
  return (req) => {
    const list = lists[req.url.pathname];
    if (req.method !== 'GET' || list === undefined) return null;
    return json(200, { apiVersion: 'v1', kind: list.kind, metadata: { resourceVersion: '19600700' }, items: list.items });
  };
}

let served: ServedHandlers;
let dir: string;
let db: Db;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  const claims: ClaimShape[] = [DOCS_NODECLAIM, m5xlargeClaim()];
  served = await serveHandlers(
    [
      recordedKubeApi({
        '/apis/karpenter.sh/v1/nodepools': { kind: 'NodePoolList', items: RECORDED_NODEPOOLS },
        '/apis/karpenter.sh/v1/nodeclaims': { kind: 'NodeClaimList', items: claims },
        '/api/v1/nodes': { kind: 'NodeList', items: claims.map(nodeOf) },
        '/api/v1/pods': { kind: 'PodList', items: [] },
        '/api/v1/namespaces': { kind: 'NamespaceList', items: [] },
        '/api/v1/events': { kind: 'EventList', items: [] },
      }),
    ],
    newContext(tinyScenario(), BILL_DAY),
  );
  dir = mkdtempSync(join(tmpdir(), 'ledger-recorded-nodepools-'));
  writeKubeconfig(join(dir, 'kubeconfig'), served.url, 'token', 'recorded');
  db = openDb({ path: join(dir, 'ledger.db') });
  const k = createKubeClients({ kubeconfig: join(dir, 'kubeconfig') });
  const repo = createKubeRepository(db);
  // The cluster as the collector reads it, every six hours through the day: the same objects each time.
  for (let t = BILL_DAY; t <= BILL_DAY + 24 * HOUR_MS; t += 6 * HOUR_MS) {
    const snapshot = await collectKubeSnapshot(k, t, { withEvents: true });
    repo.writeSnapshot({
      snapshot,
      ...buildSnapshotRows(snapshot, () => ({ pricePerHour: 0.192, currency: 'USD', source: 'static-table' })),
      runId: null,
    });
  }
  app = buildApp({ db, now: () => BILL_DAY + 2 * 24 * HOUR_MS });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await app?.close();
  db?.close();
  await served?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const getJson = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${base}${path}`);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

describe('recorded NodePools through the collector to /api/nodepools', () => {
  let pools: Map<string, NodePool>;
  beforeAll(async () => {
    pools = new Map((await getJson<NodePoolsResponse>('/api/nodepools')).items.map((p) => [p.name, p]));
  });

  it('keeps limits written as numbers: limitcpu100 has cpu 100 (100,000 millicores), not "no limit"', () => {
    expect(pools.get('limitcpu100')?.limits.cpu).toBe('100');
    expect(pools.get('limitcpu100')?.limits).toMatchObject({ cpu: '100', cpuMillicores: 100_000, memory: null });
    expect(pools.get('limitcpu100')?.limits.resources).toEqual([
      { resource: 'cpu', quantity: '100', unit: 'millicores', limit: 100_000, used: 0, usedFraction: 0 },
    ]);
  });

  it('counts the nodes limit of the docs NodePool (nodes: 10 as a number) against its 2 nodes; cpu "1000" and 1000Gi beside it', () => {
    // capacity: 8 (c5a.2xlarge) + 4 (m5.xlarge) = 12 vCPU; 15155Mi + 15896988Ki of memory.
    const memoryBytes = 15155 * 1024 ** 2 + 15_896_988 * 1024;
    expect(pools.get('default')?.limits.resources).toEqual([
      { resource: 'cpu', quantity: '1000', unit: 'millicores', limit: 1_000_000, used: 12_000, usedFraction: 0.012 },
      {
        resource: 'memory',
        quantity: '1000Gi',
        unit: 'bytes',
        limit: 1000 * 1024 ** 3,
        used: memoryBytes,
        usedFraction: memoryBytes / (1000 * 1024 ** 3),
      },
      { resource: 'nodes', quantity: '10', unit: 'count', limit: 10, used: 2, usedFraction: 0.2 },
    ]);
  });

  it('carries the spec as written: Gte, minValues, budgets with a schedule, weight, expireAfter Never', () => {
    const p = pools.get('default');
    expect(p).toMatchObject({
      weight: 10,
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '1m',
      expireAfter: 'Never',
      nodeClass: 'default',
    });
    expect(p?.capacityTypes).toEqual(['spot', 'on-demand', 'reserved']);
    expect(p?.requirements.map((r) => r.text)).toEqual([
      'karpenter.k8s.aws/instance-category In [c, m, r] (minValues 2)',
      'karpenter.k8s.aws/instance-family In [m5, m5d, c5, c5d, c4, r4] (minValues 5)',
      'karpenter.k8s.aws/instance-cpu In [4, 8, 16, 32]',
      'karpenter.k8s.aws/instance-hypervisor In [nitro]',
      'karpenter.k8s.aws/instance-generation Gte 3',
      'topology.kubernetes.io/zone In [us-west-2a, us-west-2b]',
      'kubernetes.io/arch In [arm64, amd64]',
      'karpenter.sh/capacity-type In [spot, on-demand, reserved]',
    ]);
    expect(p?.budgets).toEqual([
      { nodes: '10%', reasons: [], schedule: null, duration: null },
      { nodes: '0', reasons: [], schedule: '0 9 * * mon-fri', duration: '8h' },
    ]);
    expect(
      pools
        .get('spot')
        ?.requirements.filter((r) => r.minValues !== null)
        .map((r) => [r.text, r.minValues]),
    ).toEqual([
      ['karpenter.k8s.aws/instance-category In [c, m, r] (minValues 2)', 2],
      ['karpenter.k8s.aws/instance-family Exists (minValues 5)', 5],
      ['node.kubernetes.io/instance-type Exists (minValues 2)', 2],
    ]);
    expect(pools.get('limitcpu100')?.expireAfter).toBe('720h');
  });
});

describe('recorded NodePools in Explain this bill', () => {
  let explanation: Explanation;
  beforeAll(async () => {
    const csv = '"karpenter.sh/nodepool","default($)","Total costs($)"\n"2026-11-02","9.216","9.216"\n';
    const res = await fetch(`${base}/api/bill/import?name=recorded`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as ImportResponse).nodePools).toEqual(['default']);
    const lines = await getJson<BillLinesResponse>('/api/bill/lines?source=csv:recorded&from=2026-11-02&to=2026-11-03');
    explanation = await getJson<Explanation>(`/api/bill/explain?lineId=${lines.lines[0].id}`);
  });

  it('the m5.xlarge in a capacity reservation meets all eight requirements, Gte 3 among them (generation 5)', () => {
    const m5 = explanation.nodeClaims.find((n) => n.nodeClaim === M5_CLAIM);
    expect(m5?.capacityType).toBe('reserved');
    // Before Gte was understood: "m5.xlarge does not meet 1 requirement of NodePool default ...: the NodePool changed after the launch."
    expect(m5?.reasons.instanceType.summary).not.toContain('changed after the launch');
    expect(m5?.reasons.instanceType.requirements.find((r) => r.operator === 'Gte')).toMatchObject({ nodeValue: '5', satisfied: true });
    expect(m5?.reasons.instanceType.requirements.map((r) => [r.text, r.nodeValue, r.satisfied])).toEqual([
      ['karpenter.k8s.aws/instance-category In [c, m, r] (minValues 2)', 'm', true],
      ['karpenter.k8s.aws/instance-family In [m5, m5d, c5, c5d, c4, r4] (minValues 5)', 'm5', true],
      ['karpenter.k8s.aws/instance-cpu In [4, 8, 16, 32]', '4', true],
      ['karpenter.k8s.aws/instance-hypervisor In [nitro]', 'nitro', true],
      ['karpenter.k8s.aws/instance-generation Gte 3', '5', true],
      ['topology.kubernetes.io/zone In [us-west-2a, us-west-2b]', 'us-west-2b', true],
      ['kubernetes.io/arch In [arm64, amd64]', 'amd64', true],
      ['karpenter.sh/capacity-type In [spot, on-demand, reserved]', 'reserved', true],
    ]);
    expect(m5?.reasons.instanceType.summary).toMatch(/^NodePool default admits m5\.xlarge: it meets all 8 requirements/);
    expect(m5?.reasons.instanceType.summary).not.toContain('changed after the launch');
  });

  it('the recorded c5a.2xlarge, launched from an older spec of default, is said not to meet family and zone (and only those)', () => {
    const c5a = explanation.nodeClaims.find((n) => n.nodeClaim === 'default-x9wxq');
    expect(c5a?.reasons.instanceType.requirements.filter((r) => r.satisfied !== true).map((r) => [r.key, r.nodeValue])).toEqual([
      ['karpenter.k8s.aws/instance-family', 'c5a'],
      ['topology.kubernetes.io/zone', 'us-west-2c'],
    ]);
    expect(c5a?.reasons.instanceType.summary).toContain('does not meet 2 requirements of NodePool default');
  });
});
