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
import { engineFor } from '../../server/engine-pool/engine-options.js';
import type { EngineRunner } from '../../server/engine-pool/engine-runner.js';
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

/*
 * The engine keeps an answer by what it simulates (server/engine-pool/engine-call-key.ts: the snapshot and the
 * parameters), not by how the request named it. Keyed by the request, `?cluster=alpha` and "All clusters" of the
 * one-cluster ledger were two simulations of the one snapshot (the cluster's id against null, and the query's own
 * `cluster`), and so were the side-by-side answer of both clusters and a cluster picked after it. Each app below has
 * its own engine on the API's thread, so its count of simulations starts at 0.
 */
describe('one simulation however it is asked (the engine keyed by what it simulates)', () => {
  const engineApp = (db: Db): { app: FastifyInstance; engine: EngineRunner } => {
    const engine = engineFor(db, { workers: 0 });
    return { engine, app: buildApp({ db, webRoot: join(dir, 'no-web'), now: () => T0 + HOUR_MS, cacheResponses: false, engine }) };
  };
  const get = async (app: FastifyInstance, url: string): Promise<string> => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.body;
  };
  const post = async (app: FastifyInstance, url: string): Promise<PredictResponse> => {
    const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/yaml' }, payload: POD });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const AT = encodeURIComponent(new Date(T0).toISOString());

  it('a one-cluster ledger: "All clusters", ?cluster=alpha and ?at= of its snapshot are one simulation each of headroom, why-not and predict', async () => {
    const [alphaDb] = dbs.slice(1);
    if (alphaDb === undefined) throw new Error('the one-cluster ledger is not open');
    const { app, engine } = engineApp(alphaDb);
    try {
      const all = await get(app, '/api/whatif/headroom');
      // 1 simulation (the one snapshot, headroom); asked with its cluster named, and with `at` naming that snapshot: the same answer
      expect(await get(app, '/api/whatif/headroom?cluster=alpha')).toBe(all);
      expect(await get(app, `/api/whatif/headroom?at=${AT}&cluster=alpha`)).toBe(all);
      expect(engine.stats().completed).toBe(1);
      // why-not both ways: 1 more; as CSV: the same answer written as a table, no simulation
      await get(app, '/api/whatif/why-not?cluster=alpha');
      await get(app, '/api/whatif/why-not');
      await get(app, '/api/whatif/why-not?format=csv');
      expect(engine.stats().completed).toBe(2);
      // predict both ways: 1 more (3 in all for 3 what-ifs asked 9 ways)
      const picked = await post(app, '/api/whatif/predict?cluster=alpha');
      expect(await post(app, '/api/whatif/predict')).toEqual(picked);
      expect(engine.stats().completed).toBe(3);
      // Another snapshot is another simulation: before T0 there is none (a 404, not a kept answer, not counted).
      const before = await app.inject({ method: 'GET', url: '/api/whatif/headroom?at=2026-11-01T00:00:00Z' });
      expect(before.statusCode).toBe(404);
      expect(engine.stats().completed).toBe(3);
    } finally {
      await app.close();
    }
  }, 240_000);

  it("two clusters: the side-by-side answer simulates alpha and beta once each, and a cluster picked after it reads that cluster's", async () => {
    const [bothDb] = dbs;
    if (bothDb === undefined) throw new Error('the two-cluster ledger is not open');
    const { app, engine } = engineApp(bothDb);
    try {
      await get(app, '/api/whatif/headroom');
      // 2 simulations: alpha's snapshot and beta's
      expect(engine.stats().completed).toBe(2);
      await get(app, '/api/whatif/headroom?cluster=alpha');
      await get(app, '/api/whatif/headroom?cluster=beta&format=csv');
      expect(engine.stats().completed).toBe(2);
      await get(app, '/api/whatif/why-not');
      await get(app, '/api/whatif/why-not?cluster=beta');
      // 2 + 2 (why-not of alpha and of beta)
      expect(engine.stats().completed).toBe(4);
      const every = await post(app, '/api/whatif/predict');
      // 4 + 2 (predict on alpha and on beta)
      expect(engine.stats().completed).toBe(6);
      // Picked after it: each cluster's own answer (alpha an m5.large, beta an m5.xlarge), read, not simulated again.
      const alpha = await post(app, '/api/whatif/predict?cluster=alpha');
      const beta = await post(app, `/api/whatif/predict?cluster=beta&at=${AT}`);
      expect(claims(alpha)).toEqual([[undefined, 'general', 'm5.large', 'on-demand', 'us-east-1a', 0.096]]);
      expect(claims(beta)).toEqual([[undefined, 'general', 'm5.xlarge', 'on-demand', 'us-east-1a', 0.192]]);
      expect(every.addedUsdPerHour).toBe(0.288);
      expect(engine.stats().completed).toBe(6);
    } finally {
      await app.close();
    }
  }, 240_000);
});
