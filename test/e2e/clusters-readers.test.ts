import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventRecord, KubeSnapshot, NodePoolRecord, NodeRecord, PodRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { HOUR_MS } from '../../core/time.js';
import { joinSnapshotUsage } from '../../core/usage-snapshot.js';
import type { SnapshotUsage } from '../../core/usage.js';
import { type Db, openDb } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type {
  ConsolidationCompareResponse,
  ConsolidationEventsResponse,
  ConsolidationTimelineResponse,
} from '../../server/schemas/consolidation.js';
import type { RecommendationsResponse, WorkloadUsageResponse } from '../../server/schemas/workloads.js';
import { declareClusters } from '../fixtures/cluster-declaration.js';

/*
 * Issue 25's readers of Workloads and Consolidation by cluster, on a two-cluster ledger written through the real
 * writers (kube-repository writeSnapshot: nodes, pods, usage, events, the kept disruptions), beside each cluster's own
 * one-cluster ledger written with the same snapshots. Cheap on purpose: 13 snapshots a cluster, no sandbox.
 *
 * The clusters (both name their NodePool `general` and their nodes n1 and n2; both run Deployment shop/web):
 *   alpha: n1 and n2 m5.xlarge (4,000m, 16 GiB) at $0.192/h; web requests 500m / 1 GiB and uses 100m / 300 MiB;
 *          n2 disrupted at T0 + 1 h (Underutilized, no replacement: a Delete) and gone from then on.
 *   beta:  n1 and n2 m5.large (2,000m, 8 GiB) at $0.096/h; web requests 1,000m / 2 GiB and uses 400m / 600 MiB;
 *          n2 disrupted at T0 + 2 h (Empty) and gone from then on.
 * Snapshots every 15 minutes from T0 to T0 + 3 h, both clusters at the same instants.
 * Worked by hand:
 *   - recommendations (core/rightsizing.ts: CPU at p95 of the hours' p95, memory at the peak + 15 %, whole MiB):
 *     alpha web 500m -> 100m, 1 GiB -> 345 MiB; beta web 1,000m -> 400m, 2 GiB -> 690 MiB;
 *   - compare at T0 + 1 h, 1 h windows: alpha 2 nodes, $0.384/h before, 1 node, $0.192/h after; beta 2 nodes,
 *     $0.192/h on both sides (around beta's event, below: its own cluster's figures);
 *   - timeline at T0 (first bucket): alpha 2 nodes, $0.384/h, CPU packing 500 / 8,000 = 0.0625; beta 2 nodes,
 *     $0.192/h, 1,000 / 4,000 = 0.25 (both clusters' sums would say 1,500 / 12,000 = 0.125); summed: 4 nodes, $0.576/h.
 */

const T0 = Date.parse('2026-11-02T10:00:00Z');
const END = T0 + 3 * HOUR_MS;
const STEP = 15 * 60_000;
const MiB = 2 ** 20;
const GiB = 2 ** 30;

interface ClusterSpec {
  name: string;
  instanceType: string;
  node: { cpuMillicores: number; memoryBytes: number };
  usdPerHour: number;
  web: { requestCpu: number; requestMemory: number; useCpu: number; useMemory: number };
  disruption: { atMs: number; message: string };
}

const ALPHA: ClusterSpec = {
  name: 'alpha',
  instanceType: 'm5.xlarge',
  node: { cpuMillicores: 4000, memoryBytes: 16 * GiB },
  usdPerHour: 0.192,
  web: { requestCpu: 500, requestMemory: GiB, useCpu: 100, useMemory: 300 * MiB },
  disruption: { atMs: T0 + HOUR_MS, message: 'Disrupting Node: Underutilized' },
};
const BETA: ClusterSpec = {
  name: 'beta',
  instanceType: 'm5.large',
  node: { cpuMillicores: 2000, memoryBytes: 8 * GiB },
  usdPerHour: 0.096,
  web: { requestCpu: 1000, requestMemory: 2 * GiB, useCpu: 400, useMemory: 600 * MiB },
  disruption: { atMs: T0 + 2 * HOUR_MS, message: 'Disrupting Node: Empty' },
};

const POOL: NodePoolRecord = {
  name: 'general',
  weight: null,
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  consolidateAfter: '1m',
  capacityTypes: ['on-demand'],
  requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
  limits: {},
  budgets: [],
  nodeClass: 'default',
};

function snapshotOf(c: ClusterSpec, takenAt: number): { s: KubeSnapshot; u: SnapshotUsage } {
  const node = (name: string): NodeRecord => ({
    name,
    nodeClaim: `general-${name}`,
    nodePool: 'general',
    instanceType: c.instanceType,
    capacityType: 'on-demand',
    zone: 'us-west-2a',
    instanceId: `i-${c.name}-${name}`,
    createdAt: T0 - HOUR_MS,
    allocatable: { ...c.node, pods: 58, gpu: 0 },
    labels: { 'karpenter.sh/nodepool': 'general', 'karpenter.sh/capacity-type': 'on-demand' },
  });
  const web: PodRecord = {
    uid: `u-${c.name}-web`,
    namespace: 'shop',
    name: 'web-7d9f8c6b5-x2k9q',
    nodeName: 'n1',
    phase: 'Running',
    ownerKind: 'ReplicaSet',
    ownerName: 'web-7d9f8c6b5',
    team: 'storefront',
    requests: { cpuMillicores: c.web.requestCpu, memoryBytes: c.web.requestMemory, pods: 1, gpu: 0 },
    containers: [
      {
        name: 'web',
        requests: { cpuMillicores: c.web.requestCpu, memoryBytes: c.web.requestMemory },
        limits: { cpuMillicores: null, memoryBytes: null },
        restartCount: 0,
        lastTermination: null,
      },
    ],
    doNotDisrupt: false,
    createdAt: T0 - HOUR_MS,
    labels: { 'pod-template-hash': '7d9f8c6b5' },
  };
  const events: EventRecord[] =
    takenAt === c.disruption.atMs
      ? [
          {
            uid: `e-${c.name}`,
            at: c.disruption.atMs - 30_000,
            type: 'Normal',
            reason: 'DisruptionTerminating',
            message: c.disruption.message,
            kind: 'Node',
            name: 'n2',
            namespace: null,
          },
        ]
      : [];
  const s: KubeSnapshot = {
    takenAt,
    nodePools: [POOL],
    namespaces: [{ name: 'shop', team: 'storefront', labels: {} }],
    nodes: takenAt < c.disruption.atMs ? [node('n1'), node('n2')] : [node('n1')],
    nodeClaims: [],
    pods: [web],
    events,
  };
  const u: SnapshotUsage = {
    status: { state: 'available', message: 'metrics-server answered', checkedAt: takenAt },
    pods: [
      {
        namespace: 'shop',
        name: web.name,
        measuredAt: takenAt - 10_000,
        windowMs: 10_500,
        containers: [{ name: 'web', cpuMillicores: c.web.useCpu, memoryBytes: c.web.useMemory }],
      },
    ],
    nodes: [],
  };
  return { s, u };
}

/** A ledger holding `specs`, the first as cluster 1: every snapshot instant written for each cluster in turn. */
function ledger(path: string, specs: readonly ClusterSpec[]): Db {
  const db = openDb({ path });
  const ids = declareClusters(
    db,
    specs.map((c) => c.name),
    T0,
    { namedFrom: 'context', region: 'us-west-2' },
  );
  const kube = createKubeRepository(db);
  for (let t = T0; t <= END; t += STEP)
    specs.forEach((c, i) => {
      const { s, u } = snapshotOf(c, t);
      const built = buildSnapshotRows(s, () => ({ pricePerHour: c.usdPerHour, currency: 'USD', source: 'pricing-api' }));
      kube.writeSnapshot({
        snapshot: s,
        ...built,
        runId: null,
        clusterId: ids[i],
        usage: { rows: joinSnapshotUsage(s, u), status: u.status, retentionMs: 3 * 24 * HOUR_MS },
      });
    });
  return db;
}

const dir = mkdtempSync(join(tmpdir(), 'ledger-clusters-readers-'));
let both: FastifyInstance;
let alone: Record<'alpha' | 'beta', FastifyInstance>;
const dbs: Db[] = [];

const appOf = (db: Db): FastifyInstance => {
  dbs.push(db);
  return buildApp({ db, webRoot: join(dir, 'no-web'), now: () => END + HOUR_MS, cacheResponses: false });
};

async function get<T>(app: FastifyInstance, url: string): Promise<T> {
  const res = await app.inject({ method: 'GET', url });
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode} ${res.body.slice(0, 400)}`);
  return res.json();
}
const iso = (ms: number): string => new Date(ms).toISOString();
const RANGE = `from=${iso(T0)}&to=${iso(END + STEP)}`;
const WEB_USAGE = 'namespace=shop&kind=Deployment&name=web&container=web&window=1d';
const COMPARE_AT = `at=${iso(T0 + HOUR_MS)}&window=1h`;

beforeAll(() => {
  both = appOf(ledger(join(dir, 'both.db'), [ALPHA, BETA]));
  alone = { alpha: appOf(ledger(join(dir, 'alpha.db'), [ALPHA])), beta: appOf(ledger(join(dir, 'beta.db'), [BETA])) };
});
afterAll(async () => {
  for (const app of [both, alone.alpha, alone.beta]) await app?.close();
  for (const db of dbs) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('one cluster of a two-cluster ledger answers as its own ledger', () => {
  const urls = [
    '/api/workloads/recommendations?window=1d',
    `/api/workloads/usage?${WEB_USAGE}`,
    `/api/consolidation/events?${RANGE}&kind=all`,
    `/api/consolidation/compare?${COMPARE_AT}`,
    `/api/consolidation/timeline?${RANGE}`,
  ];
  it.each(urls)('%s', async (url) => {
    for (const name of ['alpha', 'beta'] as const) {
      const sep = url.includes('?') ? '&' : '?';
      expect(await get(both, `${url}${sep}cluster=${name}`), name).toEqual(await get(alone[name], url));
    }
  });
});

describe('Workloads by cluster (worked by hand)', () => {
  it('recommendations: each cluster its own web row; All clusters both, each naming its cluster', async () => {
    const fig = (r: RecommendationsResponse['rows'][number]) => [
      r.cluster,
      r.namespace,
      r.workloadName,
      r.currentCpuMillicores,
      r.recommendedCpuMillicores,
      (r.currentMemoryBytes ?? 0) / MiB,
      r.recommendedMemoryBytes / MiB,
      r.nodePool,
      r.replicas,
    ];
    const a = await get<RecommendationsResponse>(both, '/api/workloads/recommendations?window=1d&cluster=alpha');
    expect(a.rows.map(fig)).toEqual([[undefined, 'shop', 'web', 500, 100, 1024, 345, 'general', 1]]);
    const b = await get<RecommendationsResponse>(both, '/api/workloads/recommendations?window=1d&cluster=beta');
    expect(b.rows.map(fig)).toEqual([[undefined, 'shop', 'web', 1000, 400, 2048, 690, 'general', 1]]);
    // beta's capacity at its newest snapshot: one m5.large, web's 1,000m of its 2,000m requested.
    expect(b.capacity?.cluster).toMatchObject({ nodes: 1, allocCpuMillicores: 2000, requestCpuMillicores: 1000, usageCpuMillicores: 400 });

    const all = await get<RecommendationsResponse>(both, '/api/workloads/recommendations?window=1d');
    expect(all.rows.map(fig).sort()).toEqual([
      ['alpha', 'shop', 'web', 500, 100, 1024, 345, 'general', 1],
      ['beta', 'shop', 'web', 1000, 400, 2048, 690, 'general', 1],
    ]);
    expect(all.namespaces.map((n) => [n.cluster, n.namespace])).toEqual([
      ['alpha', 'shop'],
      ['beta', 'shop'],
    ]);
    expect(all.teams.map((t) => [t.cluster, t.team])).toEqual([
      ['alpha', 'storefront'],
      ['beta', 'storefront'],
    ]);
    // Capacity is per cluster (not summed): each cluster's own, under `clusters`.
    expect(all.capacity).toBeNull();
    expect(all.clusters?.map((c) => [c.cluster, c.capacity?.cluster.allocCpuMillicores, c.capacity?.cluster.requestCpuMillicores])).toEqual(
      [
        ['alpha', 4000, 500],
        ['beta', 2000, 1000],
      ],
    );
    expect(all.totals.requestShareMonthlyUsd).toBeCloseTo(a.totals.requestShareMonthlyUsd + b.totals.requestShareMonthlyUsd, 9);
  });

  it('the CSV names the cluster under All clusters only', async () => {
    const header = async (url: string) => (await both.inject({ method: 'GET', url })).body.split('\r\n')[0].split(',');
    expect((await header('/api/workloads/recommendations?window=1d&format=csv'))[0]).toBe('cluster');
    expect(await header('/api/workloads/recommendations?window=1d&format=csv&cluster=beta')).not.toContain('cluster');
  });

  it('usage: one cluster its own hours; All clusters each cluster’s hours, naming it', async () => {
    const hours = (r: WorkloadUsageResponse) => r.points.map((p) => [p.cluster, p.hourMs - T0, p.cpuP95Millicores, p.requestCpuMillicores]);
    const a = await get<WorkloadUsageResponse>(both, `/api/workloads/usage?${WEB_USAGE}&cluster=alpha`);
    expect(hours(a)).toEqual([0, 1, 2, 3].map((h) => [undefined, h * HOUR_MS, 100, 500]));
    const all = await get<WorkloadUsageResponse>(both, `/api/workloads/usage?${WEB_USAGE}`);
    expect(hours(all)).toEqual([
      ...[0, 1, 2, 3].map((h) => ['alpha', h * HOUR_MS, 100, 500]),
      ...[0, 1, 2, 3].map((h) => ['beta', h * HOUR_MS, 400, 1000]),
    ]);
  });
});

describe('Consolidation by cluster (worked by hand)', () => {
  it('events: each cluster its own disruption; All clusters both, naming their cluster', async () => {
    const ev = (r: ConsolidationEventsResponse) => r.rows.map((e) => [e.cluster, e.atMs - T0, e.nodeName, e.reason, e.action]);
    const a = await get<ConsolidationEventsResponse>(both, `/api/consolidation/events?${RANGE}&cluster=alpha`);
    expect([a.total, ev(a)]).toEqual([1, [[undefined, HOUR_MS - 30_000, 'n2', 'Underutilized', 'Delete']]]);
    const b = await get<ConsolidationEventsResponse>(both, `/api/consolidation/events?${RANGE}&cluster=beta`);
    expect([b.total, ev(b)]).toEqual([1, [[undefined, 2 * HOUR_MS - 30_000, 'n2', 'Empty', 'Delete']]]);
    const all = await get<ConsolidationEventsResponse>(both, `/api/consolidation/events?${RANGE}`);
    expect([all.total, ev(all)]).toEqual([
      2,
      [
        ['alpha', HOUR_MS - 30_000, 'n2', 'Underutilized', 'Delete'],
        ['beta', 2 * HOUR_MS - 30_000, 'n2', 'Empty', 'Delete'],
      ],
    ]);
  });

  it('compare: each cluster’s nodes and cost; an event’s windows are its own cluster’s', async () => {
    const head = (r: ConsolidationCompareResponse) =>
      r.rows
        .filter((x) => x.scope === 'cluster')
        .map((x) => [
          x.cluster,
          ...[x.before.nodesAvg, x.before.usdPerHourAvg, x.after.nodesAvg, x.after.usdPerHourAvg].map((v) => +v.toFixed(6)),
        ]);
    expect(head(await get(both, `/api/consolidation/compare?${COMPARE_AT}&cluster=alpha`))).toEqual([[undefined, 2, 0.384, 1, 0.192]]);
    expect(head(await get(both, `/api/consolidation/compare?${COMPARE_AT}&cluster=beta`))).toEqual([[undefined, 2, 0.192, 2, 0.192]]);
    expect(head(await get(both, `/api/consolidation/compare?${COMPARE_AT}`))).toEqual([
      ['alpha', 2, 0.384, 1, 0.192],
      ['beta', 2, 0.192, 2, 0.192],
    ]);
    const events = await get<ConsolidationEventsResponse>(both, `/api/consolidation/events?${RANGE}`);
    const betaEvent = events.rows.find((e) => e.cluster === 'beta');
    const around = await get<ConsolidationCompareResponse>(both, `/api/consolidation/compare?event=${betaEvent?.id ?? ''}&window=1h`);
    // beta's event is at T0 + 2 h − 30 s: the after window holds 30 s of the 1 h 45 snapshot (2 nodes) and 59.5 min of
    // one node: (2 × 0.5 + 59.5) / 60 = 1.008333 nodes, (0.192 × 0.5 + 0.096 × 59.5) / 60 = $0.0968/h.
    expect([around.event?.cluster, head(around)]).toEqual(['beta', [['beta', 2, 0.192, +(60.5 / 60).toFixed(6), 0.0968]]]);
  });

  it('timeline: packing per cluster, nodes and cost summed', async () => {
    const first = (r: ConsolidationTimelineResponse) =>
      r.series
        .filter((x) => x.scope === 'cluster')
        .map((x) => [x.cluster, x.points[0].tMs - T0, x.points[0].nodesAvg, +x.points[0].usdPerHourAvg.toFixed(6), x.points[0].cpu]);
    expect(first(await get(both, `/api/consolidation/timeline?${RANGE}&cluster=beta`))).toEqual([[undefined, 0, 2, 0.192, 0.25]]);
    const all = await get<ConsolidationTimelineResponse>(both, `/api/consolidation/timeline?${RANGE}`);
    expect(first(all)).toEqual([
      ['alpha', 0, 2, 0.384, 0.0625],
      ['beta', 0, 2, 0.192, 0.25],
    ]);
    expect(all.totals?.[0]).toEqual({ tMs: T0, nodesAvg: 4, usdPerHourAvg: expect.closeTo(0.576, 9) as number });
    expect(all.events.map((e) => [e.cluster, e.nodePool, e.reason])).toEqual([
      ['alpha', 'general', 'Underutilized'],
      ['beta', 'general', 'Empty'],
    ]);
  });
});
