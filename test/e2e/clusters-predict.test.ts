import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeSnapshot, NodePoolRecord, NodeRecord, PodRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { HOUR_MS } from '../../core/time.js';
import { type Db, openDb } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type { PredictResponse } from '../../server/schemas/whatif.js';
import { declareClusters } from '../fixtures/cluster-declaration.js';

/*
 * Predict (POST /api/whatif/predict) on a ledger holding two clusters (issue 25): the pasted pod is placed on the
 * cluster `?cluster=` names, with that cluster's snapshot and NodePools; without it, in each cluster on its own.
 * Both clusters name their NodePool `general` and their one node `n1`, full (a pod requesting all its CPU):
 *   alpha: general allows m5.large only  (2 vCPU, 8 GiB),  Karpenter 1.0.0;
 *   beta:  general allows m5.xlarge only (4 vCPU, 16 GiB), Karpenter 1.3.1.
 * The pod asked about requests 1 vCPU and 1 GiB: it fits on neither full node, so each cluster launches one node of
 * the only type its NodePool allows, on demand, in us-east-1 (Karpenter's static table, no stored prices):
 *   alpha: 1 x m5.large $0.096/h; beta: 1 x m5.xlarge $0.192/h;
 *   every cluster: both, each naming its cluster, added 0.096 + 0.192 = $0.288/h = 0.288 x 730 = $210.24 a month.
 * A ledger of alpha alone answers as `?cluster=alpha` does (no cluster fields).
 */

const T0 = Date.parse('2026-11-02T10:00:00Z');
const GiB = 2 ** 30;

interface ClusterSpec {
  name: string;
  instanceType: string;
  node: { cpuMillicores: number; memoryBytes: number };
  karpenter: string;
}
const ALPHA: ClusterSpec = {
  name: 'alpha',
  instanceType: 'm5.large',
  node: { cpuMillicores: 1930, memoryBytes: 7 * GiB },
  karpenter: '1.0.0',
};
const BETA: ClusterSpec = {
  name: 'beta',
  instanceType: 'm5.xlarge',
  node: { cpuMillicores: 3920, memoryBytes: 14 * GiB },
  karpenter: '1.3.1',
};

function snapshotOf(c: ClusterSpec): KubeSnapshot {
  const pool: NodePoolRecord = {
    name: 'general',
    weight: null,
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfter: '1m',
    capacityTypes: ['on-demand'],
    requirements: [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [c.instanceType] },
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
    ],
    limits: {},
    budgets: [],
    nodeClass: 'default',
  };
  const node: NodeRecord = {
    name: 'n1',
    nodeClaim: 'general-n1',
    nodePool: 'general',
    instanceType: c.instanceType,
    capacityType: 'on-demand',
    zone: 'us-east-1a',
    instanceId: `i-${c.name}-n1`,
    createdAt: T0 - HOUR_MS,
    allocatable: { ...c.node, pods: 29, gpu: 0 },
    labels: {
      'karpenter.sh/nodepool': 'general',
      'karpenter.sh/capacity-type': 'on-demand',
      'node.kubernetes.io/instance-type': c.instanceType,
      'topology.kubernetes.io/zone': 'us-east-1a',
    },
  };
  // The node's whole CPU requested: nothing more fits on it.
  const filler: PodRecord = {
    uid: `u-${c.name}-filler`,
    namespace: 'shop',
    name: 'filler',
    nodeName: 'n1',
    phase: 'Running',
    ownerKind: null,
    ownerName: null,
    team: null,
    requests: { cpuMillicores: c.node.cpuMillicores, memoryBytes: GiB, pods: 1, gpu: 0 },
    containers: [
      {
        name: 'filler',
        requests: { cpuMillicores: c.node.cpuMillicores, memoryBytes: GiB },
        limits: { cpuMillicores: null, memoryBytes: null },
        restartCount: 0,
        lastTermination: null,
      },
    ],
    doNotDisrupt: false,
    createdAt: T0 - HOUR_MS,
    labels: {},
  };
  return {
    takenAt: T0,
    nodePools: [pool],
    namespaces: [{ name: 'shop', team: null, labels: {} }],
    nodes: [node],
    nodeClaims: [],
    pods: [filler],
    events: [],
    karpenterVersion: { version: c.karpenter, source: 'flag' },
  };
}

function ledger(path: string, specs: readonly ClusterSpec[]): Db {
  const db = openDb({ path });
  const ids = declareClusters(
    db,
    specs.map((c) => c.name),
    T0,
    { namedFrom: 'context' },
  );
  const kube = createKubeRepository(db);
  specs.forEach((c, i) => {
    const s = snapshotOf(c);
    const built = buildSnapshotRows(s, () => ({
      pricePerHour: c.instanceType === 'm5.large' ? 0.096 : 0.192,
      currency: 'USD',
      source: 'pricing-api',
    }));
    kube.writeSnapshot({ snapshot: s, ...built, runId: null, clusterId: ids[i] });
  });
  return db;
}

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: asked
  namespace: shop
spec:
  containers:
    - name: app
      image: app
      resources:
        requests:
          cpu: "1"
          memory: 1Gi
`;

const dir = mkdtempSync(join(tmpdir(), 'ledger-clusters-predict-'));
let both: FastifyInstance;
let alone: FastifyInstance;
const dbs: Db[] = [];
const appOf = (db: Db): FastifyInstance => {
  dbs.push(db);
  return buildApp({ db, webRoot: join(dir, 'no-web'), now: () => T0 + HOUR_MS, cacheResponses: false });
};

async function predict(app: FastifyInstance, cluster?: string): Promise<{ status: number; body: PredictResponse }> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/whatif/predict${cluster === undefined ? '' : `?cluster=${cluster}`}`,
    headers: { 'content-type': 'application/yaml' },
    payload: POD,
  });
  return { status: res.statusCode, body: res.json() };
}

beforeAll(() => {
  both = appOf(ledger(join(dir, 'both.db'), [ALPHA, BETA]));
  alone = appOf(ledger(join(dir, 'alpha.db'), [ALPHA]));
});
afterAll(async () => {
  for (const app of [both, alone]) await app?.close();
  for (const db of dbs) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const claims = (b: PredictResponse) =>
  b.nodeClaims.map((n) => [n.cluster, n.nodePool, n.instanceType, n.capacityType, n.zone, n.usdPerHour]);

describe('predict by cluster (?cluster= on POST /api/whatif/predict)', () => {
  it("?cluster= places the pod with that cluster's NodePools: alpha an m5.large, beta an m5.xlarge", async () => {
    const a = await predict(both, 'alpha');
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(claims(a.body)).toEqual([[undefined, 'general', 'm5.large', 'on-demand', 'us-east-1a', 0.096]]);
    expect([a.body.addedUsdPerHour, a.body.clusters]).toEqual([0.096, undefined]);
    const b = await predict(both, 'beta');
    expect(claims(b.body)).toEqual([[undefined, 'general', 'm5.xlarge', 'on-demand', 'us-east-1a', 0.192]]);
    expect(b.body.byNodePool).toEqual([
      { nodePool: 'general', nodes: 1, instanceTypes: ['m5.xlarge'], capacityTypes: ['on-demand'], usdPerHour: 0.192 },
    ]);
    // alpha in its own one-cluster ledger: the same answer.
    expect((await predict(alone)).body).toEqual(a.body);
  }, 240_000);

  it('every cluster: the pod placed in each, rows naming their cluster, the added cost of both', async () => {
    const all = (await predict(both)).body;
    expect(claims(all)).toEqual([
      ['alpha', 'general', 'm5.large', 'on-demand', 'us-east-1a', 0.096],
      ['beta', 'general', 'm5.xlarge', 'on-demand', 'us-east-1a', 0.192],
    ]);
    expect(all.byNodePool.map((p) => [p.cluster, p.nodePool, p.nodes, p.usdPerHour])).toEqual([
      ['alpha', 'general', 1, 0.096],
      ['beta', 'general', 1, 0.192],
    ]);
    expect([all.pods, all.addedUsdPerHour, all.addedUsdPerMonth]).toEqual([1, 0.288, 210.24]);
    expect(all.clusters?.map((c) => [c.cluster, c.snapshotAt, c.nodes, c.addedUsdPerHour])).toEqual([
      ['alpha', new Date(T0).toISOString(), 1, 0.096],
      ['beta', new Date(T0).toISOString(), 1, 0.192],
    ]);
  }, 240_000);

  it('an unknown cluster is a 400 naming it', async () => {
    const r = await predict(both, 'gamma');
    expect(r.status).toBe(400);
    expect((r.body as unknown as { message: string }).message).toContain('unknown cluster "gamma"');
  });
});
