import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PodRecord } from '../../core/model.js';
import { buildApp } from '../../server/app.js';
import { GiB, nodePoolRecord, snapshotWrite } from '../../test/fixtures/snapshots.js';
import { openDb, type Db } from '../open-db.js';
import { createKubeRepository } from './kube-repository.js';
import { createPricesRepository, type PriceRow } from './prices-repository.js';
import { createWhatIfRepository } from './whatif-repository.js';

/*
 * The what-if repository over a real SQLite file: two snapshots written by the collector's repository, a pod that
 * left between them and one that came, prices that changed; then the /api/whatif routes over it (app.inject).
 */

const T1 = Date.parse('2026-11-01T10:00:00Z');
const T2 = Date.parse('2026-11-01T10:05:00Z');

const pod = (name: string, nodeName: string, over: Partial<PodRecord> = {}): PodRecord => ({
  uid: `uid-${name}`,
  namespace: 'shop',
  name,
  nodeName,
  phase: 'Running',
  ownerKind: 'ReplicaSet',
  ownerName: 'web-5d9c',
  team: null,
  requests: { cpuMillicores: 500, memoryBytes: GiB, pods: 1, gpu: 0 },
  doNotDisrupt: false,
  createdAt: T1 - 3_600_000,
  labels: { 'pod-template-hash': '5d9c' },
  ...over,
});

const price = (kind: 'on-demand' | 'spot', instanceType: string, zone: string, effectiveAt: number, pricePerHour: number): PriceRow => ({
  kind,
  region: 'us-east-1',
  instanceType,
  zone,
  effectiveAt,
  pricePerHour,
  currency: 'USD',
  source: kind === 'spot' ? 'spot-history' : 'pricing-api',
});

let dir: string;
let db: Db;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-whatif-repo-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const kube = createKubeRepository(db);
  const base = nodePoolRecord('general');
  const general = {
    ...base,
    requirements: [...base.requirements, { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'] }],
    taints: [{ key: 'team', value: 'web', effect: 'NoSchedule' }],
  };
  const node = (name: string) => ({
    name,
    nodePool: 'general',
    capacityType: 'on-demand' as const,
    instanceType: 'm5.large',
    zone: 'us-east-1a',
    cpuMillicores: 1930,
    memoryBytes: 7 * GiB,
    requestedCpuMillicores: 500,
    requestedMemoryBytes: GiB,
    usdPerHour: 0.096,
  });
  const w1 = snapshotWrite(T1, [node('n1'), node('n2')], [general]);
  w1.snapshot.pods = [pod('web-a', 'n1'), pod('web-b', 'n2', { doNotDisrupt: true })];
  kube.writeSnapshot(w1);
  // web-a is gone by T2, web-c came (on n1)
  const w2 = snapshotWrite(T2, [node('n1'), node('n2')], [general]);
  w2.snapshot.pods = [pod('web-b', 'n2', { doNotDisrupt: true }), pod('web-c', 'n1', { createdAt: T2 - 60_000 })];
  kube.writeSnapshot(w2);
  createPricesRepository(db).insertPrices([
    price('on-demand', 'm5.large', '', T1 - 86_400_000, 0.1),
    price('on-demand', 'm5.large', '', T1 + 60_000, 0.096),
    price('spot', 'm5.large', 'us-east-1a', T1 - 60_000, 0.04),
    price('spot', 'm5.large', 'us-east-1a', T2 + 60_000, 0.05),
  ]);
});

afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('whatif repository', () => {
  it('a snapshot’s pods are those seen on both sides of its time: web-a and web-b at T1, web-b and web-c at T2', () => {
    const repo = createWhatIfRepository(db);
    const s1 = repo.snapshot(T1 + 1000);
    const s2 = repo.snapshot();
    expect(s1?.takenAt).toBe(T1);
    expect(s2?.takenAt).toBe(T2);
    expect(repo.snapshot(T1 - 1)).toBeNull();
    expect(repo.pods(s1 ?? { id: 0, takenAt: 0, currency: 'USD' }).map((p) => [p.name, p.nodeName, p.doNotDisrupt])).toEqual([
      ['web-a', 'n1', false],
      ['web-b', 'n2', true],
    ]);
    expect(repo.pods(s2 ?? { id: 0, takenAt: 0, currency: 'USD' }).map((p) => p.name)).toEqual(['web-b', 'web-c']);
  });

  it('nodes carry the snapshot row’s allocatable and price and the node’s labels; NodePools their taints', () => {
    const repo = createWhatIfRepository(db);
    const [n1] = repo.nodes(repo.snapshot()?.id ?? 0);
    expect(n1).toMatchObject({ name: 'n1', nodePool: 'general', zone: 'us-east-1a', allocCpuMillicores: 1930, storedPricePerHour: 0.096 });
    expect(n1.labels['karpenter.sh/nodepool']).toBe('general');
    expect(repo.nodePools()[0].taints).toEqual([{ key: 'team', value: 'web', effect: 'NoSchedule' }]);
  });

  it('prices in effect at a time: on-demand 0.10 before its change at T1+1m, 0.096 after; spot 0.04 until T2+1m', () => {
    const repo = createWhatIfRepository(db);
    expect(repo.pricesAt('us-east-1', T1)).toEqual({
      onDemand: new Map([['m5.large', 0.1]]),
      spot: new Map([['m5.large/us-east-1a', 0.04]]),
      currency: 'USD',
    });
    expect(repo.pricesAt('us-east-1', T2).onDemand.get('m5.large')).toBe(0.096);
    expect(repo.pricesAt('us-east-1', T2).spot.get('m5.large/us-east-1a')).toBe(0.04);
  });
});

describe('/api/whatif routes over it (app.inject)', () => {
  // One app for all: it keeps each prepared snapshot, as the server does.
  let shared: ReturnType<typeof buildApp>;
  beforeAll(() => {
    shared = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => T2 });
  });
  afterAll(async () => {
    await shared.close();
  });
  const app = () => ({ inject: shared.inject.bind(shared), close: async () => undefined });

  it('headroom at T1: two m5.large at 0.10 (the on-demand price then) hold 2 × 500m; one m5.large (general allows only m5) takes both: 0.10/h = 73 USD/month', async () => {
    const a = app();
    const res = await a.inject({ url: `/api/whatif/headroom?at=${new Date(T1).toISOString()}` });
    await a.close();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ simulation: true, snapshotAt: '2026-11-01T10:00:00.000Z', currency: 'USD', unschedulable: [] });
    expect(body.rows).toHaveLength(1);
    expect(body.rows[0].today).toMatchObject({ nodes: 2, usdPerHour: 0.2 });
    expect(body.rows[0].lowerBound).toMatchObject({
      nodes: 1,
      usdPerHour: 0.1,
      mix: [{ instanceType: 'm5.large', capacityType: 'on-demand', nodes: 1 }],
    });
    expect(body.rows[0].headroomUsdPerMonth).toBeCloseTo(73, 6);
  });

  it.each([
    [
      '/api/whatif/nodepool-edit?nodepool=nope',
      400,
      'Invalid query parameter "nodepool": NodePool "nope" is not in the snapshot (general)',
    ],
    ['/api/whatif/nodepool-edit?nodepool=general&minCpu=8&maxCpu=4', 400, 'Invalid query parameter "minCpu": 8 is above maxCpu 4'],
    [
      '/api/whatif/workload?namespace=shop',
      400,
      'Invalid query parameter "kind": a workload is named by namespace, kind and name together',
    ],
    [
      '/api/whatif/workload?namespace=shop&kind=Deployment&name=gone',
      404,
      'no workload Deployment shop/gone runs on Karpenter nodes at 2026-11-01T10:05:00.000Z',
    ],
    ['/api/whatif/headroom?at=2026-10-01', 404, 'no snapshot at or before 2026-10-01T00:00:00.000Z'],
  ])('GET %s → %i naming the problem', async (url, status, message) => {
    const a = app();
    const res = await a.inject({ url });
    await a.close();
    expect(res.statusCode).toBe(status);
    expect(res.json().message).toBe(message);
  });

  it.each([
    ['', 'The body is empty: send a Pod or Deployment as YAML or JSON.'],
    ['kind: [', /^body document 1: not valid YAML/],
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}',
      'The YAML holds no Pod or workload to place (a Pod, Deployment, StatefulSet, ReplicaSet or Job).',
    ],
    [
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}',
      /^Pod default\/p: .*"lots"/,
    ],
  ])('POST predict %j → 400 naming the problem', async (body, message) => {
    const a = app();
    const res = await a.inject({
      method: 'POST',
      url: '/api/whatif/predict',
      payload: body,
      headers: { 'content-type': 'application/yaml' },
    });
    await a.close();
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(message);
  });

  it('predict: a pod without the team toleration cannot use the tainted general NodePool, in Karpenter’s words; with it, it fits n1', async () => {
    const a = app();
    const post = (yaml: string) =>
      a.inject({ method: 'POST', url: '/api/whatif/predict', payload: yaml, headers: { 'content-type': 'text/plain' } });
    const spec = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n';
    const refused = (await post(spec)).json();
    const tolerated = (await post(`${spec}  tolerations: [{key: team, operator: Exists}]\n`)).json();
    await a.close();
    expect(refused.unschedulable[0].reason).toMatch(/did not tolerate taint/);
    expect(tolerated.existingNodes).toEqual([{ node: 'n1', nodePool: 'general', pods: ['default/p'] }]);
    expect(tolerated.addedUsdPerHour).toBe(0);
  });
});
