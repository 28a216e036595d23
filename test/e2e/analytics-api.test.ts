import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacityType } from '../../core/labels.js';
import type { EventRecord, KubeSnapshot, NodeClaimRecord, NodeRecord, PodRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { buildApp } from '../../server/app.js';
import type {
  ConsolidationCompareResponse,
  ConsolidationEventsResponse,
  ConsolidationTimelineResponse,
} from '../../server/schemas/consolidation.js';
import type { EfficiencySummaryResponse, NodesResponse } from '../../server/schemas/efficiency.js';
import type { NodePoolCompareResponse } from '../../server/schemas/nodepools.js';
import type { ErrorResponse } from '../../server/schemas/common.js';
import type { TeamCostResponse } from '../../server/schemas/teams.js';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import type { CurExplainResponse, CurLinesResponse } from '../../server/schemas/bill-cur.js';
import type { CurDailyResponse } from '../../server/schemas/cost-cur.js';
import type { TeamCurResponse } from '../../server/schemas/teams-cur.js';
import { MINUTE_MS } from '../../core/time.js';

/*
 * A small cluster through the real path (buildSnapshotRows -> writeSnapshot -> SQLite -> routes), every 15 minutes
 * from 09:00 to 11:00 UTC (the 11:00 snapshot is the newest: it weighs nothing).
 *   general (on-demand): node-a and node-b, 4 vCPU / 16 GiB at $0.20/h. web-1 (team web) 1.5 vCPU + 2 GiB on node-a;
 *     jobs-1 (team data) 1.5 vCPU + 2 GiB on node-b. At 10:00 Karpenter deletes node-b (Underutilized) and jobs-1 moves
 *     to node-a.
 *   batch (spot): node-s, 2 vCPU / 4 GiB at $0.06/h (on-demand $0.17/h); batch-1 (team data) 1 vCPU + 1 GiB.
 * Hand-worked, [09:00, 11:00):
 *   general cost 0.40 × 1 h + 0.20 × 1 h = $0.60; batch 0.06 × 2 = $0.12; node cost $0.72.
 *   Before 10:00 general cpu 3 / 8 = 0.375, memory 4 / 32 = 0.125; after 3 / 4 = 0.75, 4 / 16 = 0.25.
 *   Request share 50/50: web 0.5 × (1.5/4 + 2/16) × 0.20 = $0.05/h × 2 h = $0.10; data on general the same $0.10;
 *   data on batch 0.5 × (1/2 + 1/4) × 0.06 = $0.0225/h × 2 h = $0.045; idle general 0.60 − 0.20 = $0.40, batch $0.075.
 *   AWS split (no instance labels or status.capacity here: allocatable stands in): a general node is 9 × 4 + 16 = 52
 *   units, $0.2 × 9/52 per vCPU, $0.2/52 per GiB; a pod of 1.5 vCPU + 2 GiB splits 3.1/52 per hour, alone or with the
 *   other (3 vCPU, 4 GiB fit). Over 2 h web and data each split 6.2/52 = $0.1192 on general; batch (18 + 4 = 22 units)
 *   1 vCPU + 1 GiB = $0.06 × (9 + 1)/22 = $0.0273/h, $0.0545. Idle (AWS's unused cost) general 0.60 − 0.2385 = $0.3615,
 *   batch $0.0655. Spread as AWS hands it: every node's unused cost goes to its pods, web 0.30, data 0.30 + 0.12.
 *   OpenCost: a general node's $0.20 over 4 × 7.460703 + 16 = 45.842813 GiB-equivalents ($0.0043627 per GiB,
 *   $0.0325491 per core): 1.5 vCPU + 2 GiB = $0.0575491/h, $0.1151 over 2 h; batch 2 × 7.460703 + 4 = 18.921407
 *   ($0.0031710 per GiB, $0.0236583 per core): $0.0268290/h, $0.0537. Idle general 0.60 − 0.2302 = $0.3698, batch $0.0663.
 */

const GiB = 1024 ** 3;
const at = (hhmm: string): number => Date.parse(`2026-11-01T${hhmm}:00Z`);
const T_DELETE = at('10:00');
const PRICES: Record<string, { usd: number; onDemand: number }> = {
  'node-a': { usd: 0.2, onDemand: 0.2 },
  'node-b': { usd: 0.2, onDemand: 0.2 },
  'node-s': { usd: 0.06, onDemand: 0.17 },
};

function node(name: string, nodePool: string, capacityType: CapacityType, cpu: number, memGiB: number): NodeRecord {
  return {
    name,
    nodeClaim: `${nodePool}-${name.slice(-1)}`,
    nodePool,
    instanceType: capacityType === 'spot' ? 'c5.large' : 'm5.xlarge',
    capacityType,
    zone: 'us-east-1a',
    instanceId: `i-${name}`,
    createdAt: at('08:00'),
    allocatable: { cpuMillicores: cpu, memoryBytes: memGiB * GiB, pods: 58, gpu: 0 },
    labels: {},
  };
}
const claim = (n: NodeRecord): NodeClaimRecord => ({
  name: n.nodeClaim ?? '',
  nodePool: n.nodePool,
  nodeName: n.name,
  instanceType: n.instanceType,
  capacityType: n.capacityType,
  zone: n.zone,
  instanceId: n.instanceId,
  createdAt: n.createdAt,
  disruptionReason: null,
  conditions: [],
});
function pod(name: string, namespace: string, team: string, nodeName: string, cpu: number, memGiB: number): PodRecord {
  return {
    uid: `uid-${name}`,
    namespace,
    name,
    nodeName,
    phase: 'Running',
    ownerKind: 'ReplicaSet',
    ownerName: name,
    team,
    requests: { cpuMillicores: cpu, memoryBytes: memGiB * GiB, pods: 1, gpu: 0 },
    doNotDisrupt: false,
    createdAt: at('08:00'),
    labels: {},
  };
}
function disruption(uid: string, kind: 'Node' | 'NodeClaim', name: string): EventRecord {
  return {
    uid,
    at: T_DELETE,
    type: 'Normal',
    reason: 'DisruptionTerminating',
    message: `Disrupting ${kind}: Underutilized/Delete`,
    kind,
    name,
    namespace: null,
  };
}

function snapshotAt(t: number): KubeSnapshot {
  const a = node('node-a', 'general', 'on-demand', 4000, 16);
  const b = node('node-b', 'general', 'on-demand', 4000, 16);
  const s = node('node-s', 'batch', 'spot', 2000, 4);
  const beforeDelete = t < T_DELETE;
  const nodes = beforeDelete ? [a, b, s] : [a, s];
  return {
    takenAt: t,
    nodePools: [],
    namespaces: [
      { name: 'web', team: 'web', labels: { team: 'web', 'example.com/owner': 'shop' } },
      { name: 'jobs', team: 'data', labels: { team: 'data', 'example.com/owner': 'analytics' } },
      { name: 'batch', team: 'data', labels: { team: 'data', 'example.com/owner': 'analytics' } },
    ],
    nodes,
    nodeClaims: nodes.map(claim),
    pods: [
      pod('web-1', 'web', 'web', 'node-a', 1500, 2),
      pod('jobs-1', 'jobs', 'data', beforeDelete ? 'node-b' : 'node-a', 1500, 2),
      pod('batch-1', 'batch', 'data', 'node-s', 1000, 1),
    ],
    events: t === T_DELETE ? [disruption('e1', 'Node', 'node-b'), disruption('e2', 'NodeClaim', 'general-b')] : [],
  };
}

let dir: string;
let db: Db;
let app: FastifyInstance;
const get = async <T>(url: string, headers: Record<string, string> = {}) => {
  const res = await app.inject({ url, headers });
  return { status: res.statusCode, body: res.json<T>(), res };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-analytics-api-'));
  db = openDb({ path: join(dir, 'ledger.db') });
  const kube = createKubeRepository(db);
  for (let t = at('09:00'); t <= at('11:00'); t += 15 * MINUTE_MS) {
    const s = snapshotAt(t);
    const rows = buildSnapshotRows(
      s,
      (n) => ({ pricePerHour: PRICES[n.name].usd, currency: 'USD', source: 'pricing-api' }),
      (n) => PRICES[n.name].onDemand,
    );
    kube.writeSnapshot({ snapshot: s, ...rows, runId: null });
  }
  app = buildApp({ db, webRoot: join(dir, 'no-web'), now: () => at('12:00') });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const RANGE = 'from=2026-11-01T09:00:00Z&to=2026-11-01T11:00:00Z';

describe('GET /api/efficiency/summary', () => {
  it('time-weighted and cost-weighted efficiency per NodePool and for the cluster', async () => {
    const { status, body } = await get<EfficiencySummaryResponse>(`/api/efficiency/summary?${RANGE}`);
    expect(status).toBe(200);
    expect(body.hours).toBe(2);
    const general = body.rows.find((r) => r.nodePool === 'general');
    // cpu (3000 × 1 h + 3000 × 1 h) / (8000 × 1 h + 4000 × 1 h) = 0.5; memory 8 / 48; nodes 1.5 on average
    expect(general?.cpu).toBeCloseTo(0.5, 12);
    expect(general?.memory).toBeCloseTo(1 / 6, 12);
    expect(general?.costWeightedCpu).toBeCloseTo(0.5, 12);
    expect(general?.nodesAvg).toBeCloseTo(1.5, 12);
    expect(general?.costUsd).toBeCloseTo(0.6, 12);
    // idle: (8000 − 3000 + 4000 − 3000) / 2 h avg = 3 vCPU. Money, each node's price split by relative price
    // (4 × 0.031611 = 0.126444 CPU, 16 × 0.004237 = 0.067792 memory: w_cpu 0.650981, w_memory 0.349019):
    // 09:00–10:00 two nodes each 0.2 × (0.650981 × 1.5/4 + 0.349019 × 2/16) = 0.2 × 0.287745 = 0.057549 requested;
    // 10:00–11:00 node-a 0.2 × (0.650981 × 3/4 + 0.349019 × 4/16) = 0.115098. Idle 0.60 − 0.230196 = 0.369804, the
    // OpenCost team idle of general above ($0.3698: one weighting), / 2 h = $0.184902/h (50/50 made it 0.40 / 2 = 0.20).
    expect(general?.idleVcpuAvg).toBeCloseTo(3, 12);
    expect(general?.idleUsdPerHourAvg).toBeCloseTo(0.184902, 6);
    // The rates: CPU parts 0.130196 × 2 node-hours + 0.130196 × 1 over 12 vCPU-hours = $0.0325491 a vCPU-hour (OpenCost's
    // per core above); memory 0.0698038 × 3 over 48 GiB-hours = $0.0043627 a GiB-hour.
    expect(general?.idleRates.usdPerVcpuHour).toBeCloseTo(0.0325491, 7);
    expect(general?.idleRates.usdPerGiBHour).toBeCloseTo(0.0043627, 7);
    expect(general?.idleRates.usdPerGpuHour).toBeNull();
    expect(body.idleWeighting).toMatch(/relative price/);
    expect(body.rows[0]).toMatchObject({ scope: 'cluster', nodePool: null });
    expect(body.rows[0].costUsd).toBeCloseTo(0.72, 12);
  });
});

describe('GET /api/consolidation/*', () => {
  it('finds the disruption from its Node and NodeClaim events, once', async () => {
    const { body } = await get<ConsolidationEventsResponse>(`/api/consolidation/events?${RANGE}`);
    expect(body.rows).toHaveLength(1);
    expect(body.rows[0]).toMatchObject({
      id: `${T_DELETE}-general-b`,
      nodeName: 'node-b',
      nodeClaim: 'general-b',
      nodePool: 'general',
      reason: 'Underutilized',
      action: 'Delete',
      nodeDeletedAt: '2026-11-01T10:00:00.000Z',
    });
  });

  it('a before/after with one node removed: equal 1 h windows around the event', async () => {
    const { status, body } = await get<ConsolidationCompareResponse>(`/api/consolidation/compare?event=${T_DELETE}-general-b`);
    expect(status).toBe(200);
    expect(body.before).toEqual({ from: '2026-11-01T09:00:00.000Z', to: '2026-11-01T10:00:00.000Z' });
    const g = body.rows.find((r) => r.nodePool === 'general');
    expect(g?.consolidated).toBe(true);
    expect(g?.before).toMatchObject({ hours: 1, nodesAvg: 2, cpu: 0.375, memory: 0.125 });
    expect(g?.after).toMatchObject({ hours: 1, nodesAvg: 1, cpu: 0.75, memory: 0.25 });
    expect(g?.before.usdPerHourAvg).toBeCloseTo(0.4, 12);
    expect(g?.after.usdPerHourAvg).toBeCloseTo(0.2, 12);
    expect(body.rows.find((r) => r.nodePool === 'batch')?.change.nodesAvg).toBe(0);
  });

  it('compares around a chosen instant too, with another window', async () => {
    // [09:30, 10:00) vs [10:00, 10:30): same answer for general.
    const { body } = await get<ConsolidationCompareResponse>(
      '/api/consolidation/compare?at=2026-11-01T10:00:00Z&window=30m&nodepool=general',
    );
    expect(body.event).toBeNull();
    expect(body.rows.map((r) => r.nodePool)).toEqual([null, 'general']);
    expect(body.rows[1].change.cpu).toBeCloseTo(0.375, 12);
  });

  it('timeline series per NodePool with the event marked', async () => {
    const { body } = await get<ConsolidationTimelineResponse>(`/api/consolidation/timeline?${RANGE}`);
    const general = body.series.find((s) => s.nodePool === 'general');
    expect(body.bucketMs).toBe(MINUTE_MS); // the finest bucket that keeps 2 h within 400 points
    expect(general?.points.map((p) => p.nodesAvg)).toEqual([2, 2, 2, 2, 1, 1, 1, 1]);
    expect(body.events).toEqual([
      { id: `${T_DELETE}-general-b`, atMs: T_DELETE, nodePool: 'general', reason: 'Underutilized', action: 'Delete', count: 1 },
    ]);
  });
});

describe('GET /api/nodepools/compare', () => {
  it('cost per vCPU-hour of allocatable and of requested capacity, and spot savings', async () => {
    const { body } = await get<NodePoolCompareResponse>(`/api/nodepools/compare?${RANGE}`);
    const general = body.rows.find((r) => r.nodePool === 'general');
    // $0.60 over 12 allocatable vCPU-hours and 6 requested
    expect(general?.nodeHours).toBeCloseTo(3, 12);
    expect(general?.usdPerVcpuHourAllocatable).toBeCloseTo(0.05, 12);
    expect(general?.usdPerVcpuHourRequested).toBeCloseTo(0.1, 12);
    const batch = body.rows.find((r) => r.nodePool === 'batch');
    // on demand 0.17 × 2 = $0.34; savings 0.34 − 0.12 = $0.22
    expect(batch?.onDemandEquivalentUsd).toBeCloseTo(0.34, 12);
    expect(batch?.savingsUsd).toBeCloseTo(0.22, 12);
  });
});

describe('GET /api/teams/cost', () => {
  it('splits node cost by request share with idle per NodePool, in cents that add up', async () => {
    const { body } = await get<TeamCostResponse>(`/api/teams/cost?${RANGE}`);
    // batch data 4.5 and batch idle 7.5 cents tie for the missing cent: the first line (data) gets it.
    expect(body.rows.map((r) => [r.kind, r.team, r.nodePool, r.costUsd])).toEqual([
      ['team', 'data', 'batch', 0.05],
      ['team', 'data', 'general', 0.1],
      ['team', 'web', 'general', 0.1],
      ['idle', null, 'batch', 0.07],
      ['idle', null, 'general', 0.4],
    ]);
    expect(body.teams).toEqual([
      { kind: 'team', team: 'data', costUsd: 0.15 },
      { kind: 'team', team: 'web', costUsd: 0.1 },
      { kind: 'idle', team: null, costUsd: 0.47 },
    ]);
    expect(body.totals).toMatchObject({ nodeCostUsd: 0.72, teamsUsd: 0.25, idleUsd: 0.47 });
    expect(Math.abs(body.totals.residualUsd)).toBeLessThan(1e-9);
  });

  it('with cpu-only weights, AWS split, idle spread and another label', async () => {
    // cpu only: web 0.075/h × 2 h = 0.15; data general 0.15, batch 0.03 × 2 = 0.06; idle general 0.30, batch 0.06
    const cpu = (await get<TeamCostResponse>(`/api/teams/cost?${RANGE}&weights=1,0`)).body;
    expect(cpu.teams).toEqual([
      { kind: 'team', team: 'data', costUsd: 0.21 },
      { kind: 'team', team: 'web', costUsd: 0.15 },
      { kind: 'idle', team: null, costUsd: 0.36 },
    ]);
    // AWS split, idle as a line: cents 5.45 (data batch), 11.92 (data general), 11.92 (web), 6.55 and 36.15 (idle):
    // the 3 missing cents to the largest remainders (.923, .923, .545).
    const aws = (await get<TeamCostResponse>(`/api/teams/cost?${RANGE}&method=aws-split`)).body;
    expect(aws.rows.map((r) => [r.kind, r.team, r.nodePool, r.costUsd])).toEqual([
      ['team', 'data', 'batch', 0.05],
      ['team', 'data', 'general', 0.12],
      ['team', 'web', 'general', 0.12],
      ['idle', null, 'batch', 0.07],
      ['idle', null, 'general', 0.36],
    ]);
    expect(aws.methodInfo).toMatchObject({ id: 'aws-split', name: 'AWS split cost allocation' });
    expect(aws.feed).toMatchObject({ usage: 'none', usagePodHoursShare: 0 });
    expect(aws.feed.note).toContain('fed by requests only (no usage collected)');
    expect(aws.weights).toBeNull();
    // ... and spread as AWS hands it: every node's unused cost to its pods, web 0.30, data 0.30 + 0.12, no idle.
    const awsSpread = (await get<TeamCostResponse>(`/api/teams/cost?${RANGE}&method=aws-split&idle=spread`)).body;
    expect(awsSpread.teams).toEqual([
      { kind: 'team', team: 'data', costUsd: 0.42 },
      { kind: 'team', team: 'web', costUsd: 0.3 },
    ]);
    // OpenCost: cents 5.37, 11.51, 11.51, 6.63, 36.98: the 3 missing cents to .980, .634 and the first .510.
    const opencost = (await get<TeamCostResponse>(`/api/teams/cost?${RANGE}&method=opencost`)).body;
    expect(opencost.rows.map((r) => [r.kind, r.team, r.nodePool, r.costUsd])).toEqual([
      ['team', 'data', 'batch', 0.05],
      ['team', 'data', 'general', 0.12],
      ['team', 'web', 'general', 0.11],
      ['idle', null, 'batch', 0.07],
      ['idle', null, 'general', 0.37],
    ]);
    expect(opencost.methodInfo.source).toMatch(/OpenCost Specification/);
    expect(opencost.totals).toMatchObject({ nodeCostUsd: 0.72, teamsUsd: 0.28, idleUsd: 0.44, residualUsd: 0 });
    // idle spread: general 0.40 split 0.10 : 0.10; batch 0.075 to data
    const spread = (await get<TeamCostResponse>(`/api/teams/cost?${RANGE}&idle=spread`)).body;
    expect(spread.teams).toEqual([
      { kind: 'team', team: 'data', costUsd: 0.42 },
      { kind: 'team', team: 'web', costUsd: 0.3 },
    ]);
    const owner = (await get<TeamCostResponse>(`/api/teams/cost?${RANGE}&label=example.com/owner&team=analytics`)).body;
    expect(owner.teams).toEqual([{ kind: 'team', team: 'analytics', costUsd: 0.15 }]);
    expect(owner.notes[0]).toMatch(/namespace label "example.com\/owner"/);
  });
});

/*
 * Usage, once collected, feeds AWS split and OpenCost (max(request, usage)) and never the request share. A database of
 * its own: node-a alone with web-1 (1.5 vCPU + 2 GiB) at 12:00 and 12:15 (12:30 the newest, weighing nothing); at
 * 12:00 web-1 used 3 vCPU and 1 GiB, at 12:15 no usage was collected: half of the pod-hours had usage. Node cost
 * $0.20 × 0.5 h = $0.10.
 *   request share: 0.5 × (1.5/4 + 2/16) × 0.20 × 0.5 h = $0.025 -> 2.5 + 7.5 cents, the tie to the first line: 0.03.
 *   AWS split: (3 × 1.8 + 2 × 0.2)/52 × 0.25 h + (1.5 × 1.8 + 2 × 0.2)/52 × 0.25 h = 2.225/52 = $0.0428 (0.03 from
 *   requests alone). OpenCost: (3 × 0.0325491 + 2 × 0.0043627) × 0.25 + 0.0575491 × 0.25 = $0.0410.
 */
describe('GET /api/teams/cost with usage collected for part of the range', () => {
  let usageDir: string;
  let usageDb: Db;
  let usageApp: FastifyInstance;
  beforeAll(async () => {
    usageDir = mkdtempSync(join(tmpdir(), 'ledger-analytics-usage-'));
    usageDb = openDb({ path: join(usageDir, 'ledger.db') });
    const kube = createKubeRepository(usageDb);
    const a = node('node-a', 'general', 'on-demand', 4000, 16);
    for (const [hhmm, usage] of [
      ['12:00', { cpuMillicores: 3000, memoryBytes: 1 * GiB }],
      ['12:15', undefined],
      ['12:30', undefined],
    ] as const) {
      const s: KubeSnapshot = {
        takenAt: at(hhmm),
        nodePools: [],
        namespaces: [{ name: 'web', team: 'web', labels: {} }],
        nodes: [a],
        nodeClaims: [claim(a)],
        pods: [{ ...pod('web-1', 'web', 'web', 'node-a', 1500, 2), usage }],
        events: [],
      };
      kube.writeSnapshot({
        snapshot: s,
        ...buildSnapshotRows(s, () => ({ pricePerHour: 0.2, currency: 'USD', source: 'pricing-api' })),
        runId: null,
      });
    }
    usageApp = buildApp({ db: usageDb, webRoot: join(usageDir, 'no-web'), now: () => at('13:00') });
    await usageApp.ready();
  });
  afterAll(async () => {
    await usageApp.close();
    usageDb.close();
    rmSync(usageDir, { recursive: true, force: true });
  });
  const cost = async (method: string) =>
    (
      await usageApp.inject({ url: `/api/teams/cost?from=2026-11-01T12:00:00Z&to=2026-11-01T12:30:00Z&method=${method}` })
    ).json<TeamCostResponse>();

  it.each([
    ['request-share', [0.03, 0.07], 'not-applicable', null],
    ['aws-split', [0.04, 0.06], 'partial', 0.5],
    ['opencost', [0.04, 0.06], 'partial', 0.5],
  ] as [string, number[], string, number | null][])('%s: web and idle %j; usage %s', async (method, usd, usage, share) => {
    const body = await cost(method);
    expect(body.rows.map((r) => r.costUsd)).toEqual(usd);
    expect(body.totals.nodeCostUsd).toBe(0.1);
    expect(body.feed).toMatchObject({ usage, usagePodHoursShare: share });
    if (usage === 'partial') expect(body.feed.note).toMatch(/max\(request, usage\) for 50 % of pod-hours/);
  });
});

describe('GET /api/nodes and /api/efficiency/nodes', () => {
  it('the node table at a snapshot, sorted and paged', async () => {
    const { body } = await get<NodesResponse>('/api/nodes?at=2026-11-01T09:50:00Z&sort=cpu&order=desc&limit=2');
    expect(body.snapshotAt).toBe('2026-11-01T09:45:00.000Z');
    expect(body.total).toBe(3);
    // node-s 1000/2000 = 0.5 first, then node-a and node-b at 1500/4000 = 0.375 (ties by name)
    expect(body.rows.map((r) => [r.name, r.cpu])).toEqual([
      ['node-s', 0.5],
      ['node-a', 0.375],
    ]);
    expect(body.rows[1]).toMatchObject({ nodePool: 'general', capacityType: 'on-demand', usdPerHour: 0.2, ageHours: 1.75, idleVcpu: 2.5 });
  });

  it('a node averaged over a window', async () => {
    // (09:30, 10:30]: node-a at 1500 m for 09:45 and 3000 m for 10:00, 10:15, 10:30, each 15 min: 2625 m on average
    const { body } = await get<NodesResponse>('/api/efficiency/nodes?at=2026-11-01T10:30:00Z&window=1h&nodepool=general');
    const a = body.rows.find((r) => r.name === 'node-a');
    expect(body.windowFrom).toBe('2026-11-01T09:30:00.000Z');
    expect(a?.snapshots).toBe(4);
    expect(a?.requestedVcpu).toBeCloseTo(2.625, 12);
    expect(body.rows.find((r) => r.name === 'node-b')?.snapshots).toBe(1);
  });

  it('per-node efficiency a page at a time, by name, counting every node', async () => {
    const all = (await get<NodesResponse>('/api/efficiency/nodes?at=2026-11-01T09:50:00Z')).body;
    expect(all.rows.map((r) => r.name)).toEqual(['node-a', 'node-b', 'node-s']);
    const { body } = await get<NodesResponse>('/api/efficiency/nodes?at=2026-11-01T09:50:00Z&limit=1&offset=1');
    expect(body).toMatchObject({ total: 3, offset: 1 });
    expect(body.rows).toEqual([all.rows[1]]);
  });
});

describe('CSV downloads', () => {
  it('every table route answers CSV with format=csv or Accept: text/csv', async () => {
    const urls = [
      '/api/efficiency/summary',
      '/api/efficiency/nodes',
      '/api/nodes',
      '/api/consolidation/events',
      '/api/consolidation/timeline',
      '/api/nodepools/compare',
      '/api/reconciliation/daily',
      '/api/teams/cost',
    ].map((u) => (u.includes('nodes') ? `${u}?at=2026-11-01T10:00:00Z` : `${u}?${RANGE}`));
    for (const url of [...urls, `/api/consolidation/compare?event=${T_DELETE}-general-b`]) {
      const viaParam = await app.inject({ url: `${url}&format=csv` });
      expect(viaParam.statusCode, url).toBe(200);
      expect(viaParam.headers['content-type'], url).toBe('text/csv; charset=utf-8');
      expect(viaParam.headers['content-disposition']).toMatch(/^attachment; filename="[a-z-]+\.csv"$/);
      expect(viaParam.body.split('\r\n').length, url).toBeGreaterThan(2); // header, rows, final line end
      const viaAccept = await app.inject({ url, headers: { accept: 'text/csv' } });
      expect(viaAccept.headers['content-type'], url).toBe('text/csv; charset=utf-8');
      expect(viaAccept.body).toBe(viaParam.body);
      const json = await app.inject({ url, headers: { accept: 'application/json' } });
      expect(json.headers['content-type'], url).toMatch(/^application\/json/);
    }
  });

  it('the node tables as CSV hold every node, whatever page the JSON would give', async () => {
    for (const path of ['/api/nodes', '/api/efficiency/nodes']) {
      const res = await app.inject({ url: `${path}?at=2026-11-01T09:50:00Z&limit=1&offset=2&format=csv` });
      const names = res.body
        .trim()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(',')[0]);
      expect(names, path).toEqual(['node-a', 'node-b', 'node-s']);
      const page = (await get<NodesResponse>(`${path}?at=2026-11-01T09:50:00Z&limit=1&offset=2`)).body;
      expect(
        page.rows.map((r) => r.name),
        path,
      ).toEqual(['node-s']);
    }
  });

  it('the team table as CSV: the same cents, one row per line', async () => {
    const res = await app.inject({ url: `/api/teams/cost?${RANGE}&format=csv` });
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('kind,team,nodePool,costUsd,share,idleSpreadUsd');
    expect(lines.slice(1).map((l) => l.split(',').slice(1, 4).join(' '))).toEqual([
      'data batch 0.05',
      'data general 0.1',
      'web general 0.1',
      ' batch 0.07',
      ' general 0.4',
    ]);
  });
});

describe('bad query parameters: 400 naming the parameter', () => {
  it.each([
    ['/api/efficiency/summary?from=yesterday', 'from'],
    ['/api/efficiency/summary?nodepool=Bad_Pool', 'nodepool'],
    ['/api/efficiency/summary?format=xml', 'format'],
    ['/api/efficiency/nodes?window=3d', 'window'],
    ['/api/efficiency/nodes?window=2m', 'window'],
    ['/api/nodes?at=2026-02-30', 'at'],
    ['/api/nodes?sort=price', 'sort'],
    ['/api/nodes?limit=9999', 'limit'],
    ['/api/nodes?capacityType=preemptible', 'capacityType'],
    ['/api/consolidation/events?reason=Bored', 'reason'],
    ['/api/consolidation/events?kind=some', 'kind'],
    ['/api/consolidation/events?limit=0', 'limit'],
    ['/api/consolidation/events?limit=1001', 'limit'],
    ['/api/consolidation/events?offset=-1', 'offset'],
    ['/api/consolidation/events?limit=ten', 'limit'],
    ['/api/consolidation/compare', 'event'],
    ['/api/consolidation/compare?event=nope', 'event'],
    ['/api/consolidation/compare?at=2026-11-01T10:00:00Z&event=1-general-b', 'at'],
    ['/api/consolidation/compare?at=2026-11-01T10:00:00Z&window=25h', 'window'],
    ['/api/teams/cost?weights=0.6,0.6', 'weights'],
    ['/api/teams/cost?weights=half', 'weights'],
    ['/api/teams/cost?method=aws-split&weights=0.5,0.5', 'weights'],
    ['/api/teams/cost?method=opencost&weights=0.5,0.5', 'weights'],
    ['/api/teams/cost?method=kubecost', 'method'],
    ['/api/teams/cost?idle=hide', 'idle'],
    ['/api/teams/cost?label=Not%20A%20Label', 'label'],
    ['/api/teams/cost?groupBy=pod', 'groupBy'],
    ['/api/reconciliation/daily?from=2026-11-05&to=2026-11-01', 'to'],
    ['/api/nodepools/compare?to=2026-13-01', 'to'],
  ])('%s -> "%s"', async (url, param) => {
    const { status, body } = await get<ErrorResponse>(url);
    expect(status).toBe(400);
    expect(body.message).toMatch(new RegExp(`parameter "${param}"`));
  });

  it('an unknown event id is a 404 that says where to find ids', async () => {
    const { status, body } = await get<ErrorResponse>(`/api/consolidation/compare?event=${T_DELETE}-general-zz`);
    expect(status).toBe(404);
    expect(body.message).toMatch(/\/api\/consolidation\/events/);
  });
});

describe('OpenAPI', () => {
  it('serves the document at /docs/json and a page at /docs listing the analytics routes', async () => {
    const json = await get<{ openapi: string; paths: Record<string, unknown> }>('/docs/json');
    expect(json.body.openapi).toMatch(/^3\./);
    for (const p of [
      '/api/efficiency/summary',
      '/api/efficiency/nodes',
      '/api/nodes',
      '/api/consolidation/events',
      '/api/consolidation/compare',
      '/api/consolidation/timeline',
      '/api/nodepools/compare',
      '/api/reconciliation/daily',
      '/api/teams/cost',
    ]) {
      expect(Object.keys(json.body.paths)).toContain(p);
    }
    const page = await app.inject({ url: '/docs' });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('GET /api/teams/cost');
    expect(page.body).not.toMatch(/<script|style=/);
  });
});

/*
 * The CUR views over the same cluster: a billing period written through the CUR repository as the import writes it.
 * 2026-11-01 (the day of the snapshots), AWS's split per namespace: web split 0.14 + unused 0.16, jobs 0.12 + 0.14,
 * batch 0.04 + 0.02 (net: 10 % off everything; at public on-demand prices 1.5 times as much). Teams as collected: web -> web, jobs and batch -> data.
 *   idle=line: data 0.12 + 0.04 = 0.16, web 0.14, idle 0.16 + 0.14 + 0.02 = 0.32.
 * Resource lines: node-a's 2 h under a Savings Plan (0.40 on demand, 0.28 amortized) and its negation; node-b 1 h
 * on demand 0.20; node-s 2 h spot 0.12; a general volume 0.05. NodePool bill amortized: general 0.28 + 0.20 + 0.05
 * = 0.53 (instances 0.48, volumes 0.05), batch 0.12.
 */
describe('the CUR views (GET /api/teams/cur, /api/cost/cur/daily, /api/bill/cur/*)', () => {
  const SP = 'arn:aws:savingsplans::123456789012:savingsplan/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
  const DAY = '2026-11-01';
  const dayMs = Date.parse(`${DAY}T00:00:00Z`);
  const metrics = (unblended: number, amortized: number) => ({
    unblendedUsd: unblended,
    amortizedUsd: amortized,
    netUnblendedUsd: unblended * 0.9,
    netAmortizedUsd: amortized * 0.9,
  });
  const resource = (
    resourceId: string,
    lineItemType: string,
    usageType: string,
    nodePool: string,
    nodeClaim: string,
    usageAmount: number,
    unblended: number,
    amortized: number,
    commitmentArn = '',
  ) => ({
    day: DAY,
    dayMs,
    resourceId,
    lineItemType,
    usageType,
    productCode: 'AmazonEC2',
    operation: 'RunInstances',
    category: usageType.includes('EBS') ? ('volumes' as const) : ('instances' as const),
    cluster: 'ledger',
    nodePool,
    nodeClaim,
    attributedBy: 'tag' as const,
    commitmentArn,
    usageAmount,
    publicOnDemandUsd: Math.max(0, unblended),
    lineCount: 1,
    ...metrics(unblended, amortized),
  });
  const split = (namespace: string, nodePool: string, splitUsd: number, unusedUsd: number) => ({
    day: DAY,
    dayMs,
    cluster: 'ledger',
    nodePool,
    namespace,
    splitCostUsd: splitUsd,
    unusedCostUsd: unusedUsd,
    netSplitCostUsd: splitUsd * 0.9,
    netUnusedCostUsd: unusedUsd * 0.9,
    publicOnDemandSplitCostUsd: splitUsd * 1.5,
    publicOnDemandUnusedCostUsd: unusedUsd * 1.5,
    vcpuHours: 1,
    memoryGbHours: 1,
    podCount: 1,
    lineCount: 2,
  });
  const npDay = (nodePool: string, category: 'instances' | 'volumes', unblended: number, amortized: number) => ({
    day: DAY,
    dayMs,
    cluster: 'ledger',
    nodePool,
    category,
    attributedBy: 'tag' as const,
    usageAmount: 1,
    publicOnDemandUsd: unblended,
    lineCount: 1,
    ...metrics(unblended, amortized),
  });

  beforeAll(() => {
    createCurRepository(db).replacePeriod({
      summary: {
        source: '/exports/ledger',
        billingPeriod: '2026-11',
        periodStartMs: Date.parse('2026-11-01T00:00:00Z'),
        importedAt: Date.parse('2026-11-02T06:00:00Z'),
        curRows: 12,
        unblendedUsd: 0.37,
        amortizedUsd: 0.65,
        unattributedLines: 0,
        unattributedUsd: 0,
        nodeClaimFilledLines: 0,
        splitLines: 6,
        manifestExecutionId: null,
      },
      files: [],
      nodePoolDays: [
        npDay('general', 'instances', 0.2, 0.48),
        npDay('general', 'volumes', 0.05, 0.05),
        npDay('batch', 'instances', 0.12, 0.12),
      ],
      namespaceDays: [split('web', 'general', 0.14, 0.16), split('jobs', 'general', 0.12, 0.14), split('batch', 'batch', 0.04, 0.02)],
      resourceDays: [
        resource('i-node-a', 'SavingsPlanCoveredUsage', 'USE1-BoxUsage:m5.xlarge', 'general', 'general-a', 2, 0.4, 0.28, SP),
        resource('i-node-a', 'SavingsPlanNegation', 'USE1-BoxUsage:m5.xlarge', 'general', 'general-a', 2, -0.4, 0, SP),
        resource('i-node-b', 'Usage', 'USE1-BoxUsage:m5.xlarge', 'general', 'general-b', 1, 0.2, 0.2),
        resource('i-node-s', 'Usage', 'USE1-SpotUsage:c5.large', 'batch', 'batch-s', 2, 0.12, 0.12),
        resource('vol-0a1b2c3d', 'Usage', 'USE1-EBS:VolumeUsage.gp3', 'general', '', 0.0164, 0.05, 0.05),
      ],
    });
  });

  it('Teams: AWS split (CUR) per team and day beside the three methods, CUR − ours, idle shown', async () => {
    const { status, body } = await get<TeamCurResponse>('/api/teams/cur?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z');
    expect(status).toBe(200);
    expect(body.available).toBe(true);
    expect(body.series.map((s) => s.name)).toEqual(['Request share', 'AWS split cost allocation', 'OpenCost', 'AWS split (CUR)']);
    expect(body.series[3].source).toBe('CUR 2.0 /exports/ledger, billing period 2026-11, imported 2026-11-02T06:00Z.');
    // Our methods over the day are /api/teams/cost over the day, to the cent.
    const day = (await get<TeamCostResponse>('/api/teams/cost?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z')).body;
    const rs = new Map(day.teams.map((t) => [t.team ?? t.kind, t.costUsd]));
    const cents = (x: number) => Math.round(x * 100) / 100;
    expect(body.rows.map((r) => [r.kind, r.team, r.curUsd, r.ours['request-share'], r.differenceUsd['request-share']])).toEqual([
      ['team', 'data', 0.16, rs.get('data'), cents(0.16 - (rs.get('data') ?? NaN))],
      ['team', 'web', 0.14, rs.get('web'), cents(0.14 - (rs.get('web') ?? NaN))],
      ['idle', null, 0.32, rs.get('idle'), cents(0.32 - (rs.get('idle') ?? NaN))],
    ]);
    expect(body.totals.map((t) => [t.team, t.curUsd])).toEqual([
      ['data', 0.16],
      ['web', 0.14],
      [null, 0.32],
    ]);
    // Spread: AWS hands the unused cost to the pods: data 0.16 + 0.16 = 0.32, web 0.30; no idle row. Net: 10 % off.
    const spread = (
      await get<TeamCurResponse>('/api/teams/cur?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&idle=spread&metric=net-amortized')
    ).body;
    expect(spread.rows.map((r) => [r.kind, r.team, r.curUsd])).toEqual([
      ['team', 'data', 0.29],
      ['team', 'web', 0.27],
    ]);
    // At public on-demand prices (1.5 × the billed split here): data 0.24, web 0.21, idle 0.48; said in the notes.
    const od = (await get<TeamCurResponse>('/api/teams/cur?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&basis=public-on-demand')).body;
    expect(od.basis).toBe('public-on-demand');
    expect(od.rows.map((r) => [r.team, r.curUsd])).toEqual([
      ['data', 0.24],
      ['web', 0.21],
      [null, 0.48],
    ]);
    expect(od.notes.join(' ')).toContain('public on-demand cost: commitments and discounts are out of the difference');
    // Another label and one team: the namespace label example.com/owner names jobs and batch "analytics".
    const owner = (
      await get<TeamCurResponse>('/api/teams/cur?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&label=example.com/owner&team=analytics')
    ).body;
    expect(owner.rows.map((r) => [r.team, r.curUsd])).toEqual([['analytics', 0.16]]);
    // A day without CUR lines: no CUR figure, no difference, said in the notes.
    const later = (await get<TeamCurResponse>('/api/teams/cur?from=2026-10-31T00:00:00Z&to=2026-11-02T00:00:00Z')).body;
    expect(later.curDays).toEqual([DAY]);
    expect(later.notes).toContain('The CUR has split lines for 1 of 2 days; the other days are not compared.');
    const csv = await app.inject({ url: '/api/teams/cur?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&format=csv' });
    expect(csv.body.split('\r\n')[0]).toBe(
      'day,kind,team,curUsd,requestShareUsd,awsSplitUsd,openCostUsd,curMinusRequestShareUsd,curMinusAwsSplitUsd,curMinusOpenCostUsd',
    );
  });

  it('NodePools: the CUR bill per NodePool and category in the metric, beside Cost Explorer and our estimate', async () => {
    const { body } = await get<CurDailyResponse>('/api/cost/cur/daily?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z');
    expect(body.metric).toBe('amortized'); // the CUR's amortized differs from its unblended: commitments apply
    expect(body.byNodePool.map((p) => [p.nodePool, cents2(p.instancesUsd), cents2(p.volumesUsd), cents2(p.totalUsd)])).toEqual([
      ['general', 0.48, 0.05, 0.53],
      ['batch', 0.12, 0, 0.12],
    ]);
    expect(body.reconciliation).toHaveLength(1);
    expect(cents2(body.reconciliation[0].curUsd ?? NaN)).toBe(0.65);
    expect(body.reconciliation[0].costExplorerUsd).toBeNull(); // no Cost Explorer bill synced here
    const unblended = (
      await get<CurDailyResponse>('/api/cost/cur/daily?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&metric=unblended')
    ).body;
    expect(cents2(unblended.totals.curUsd)).toBe(0.37);
  });

  it('Explain: the day lists resources; a Savings Plan instance-day explains with its NodeClaim and ARN', async () => {
    const lines = (await get<CurLinesResponse>('/api/bill/cur/lines')).body;
    expect(lines.days).toEqual([DAY]);
    expect(lines.day).toBe(DAY); // the newest by default
    expect(lines.resources.map((r) => [r.resourceId, r.resourceKind, r.nodePool, r.committed, cents2(r.billUsd)])).toEqual([
      ['i-node-a', 'instance', 'general', true, 0.28],
      ['i-node-b', 'instance', 'general', false, 0.2],
      ['i-node-s', 'instance', 'batch', false, 0.12],
      ['vol-0a1b2c3d', 'volume', 'general', false, 0.05],
    ]);
    const { status, body } = await get<CurExplainResponse>(`/api/bill/cur/explain?day=${DAY}&resource=i-node-a`);
    expect(status).toBe(200);
    const [e] = body.explanations;
    expect(e.lines.map((l) => [l.lineItemType, l.commitment?.arn])).toEqual([
      ['SavingsPlanCoveredUsage', SP],
      ['SavingsPlanNegation', SP],
    ]);
    expect(e.lines[0].text).toContain('2 instance-hours × $0.2 on-demand = $0.40 unblended');
    expect(e.node).toMatchObject({ nodeName: 'node-a', nodeClaim: 'general-a', nodePool: 'general', instanceType: 'm5.xlarge' });
    expect(e.node?.reasons?.capacityType.chosen).toBe('on-demand');
    expect(e.summary).toMatch(/^i-node-a \(instance, NodeClaim general-a of NodePool general\) on 2026-11-01: \$0\.28 amortized/);
    // A NodePool's day, without reasons; an unknown resource is an empty answer, not an error.
    const general = (await get<CurExplainResponse>(`/api/bill/cur/explain?nodepool=general&metric=unblended`)).body;
    expect(general.explanations.map((x) => [x.resourceId, cents2(x.billUsd)])).toEqual([
      ['i-node-b', 0.2],
      ['vol-0a1b2c3d', 0.05],
      ['i-node-a', 0],
    ]);
    expect(general.explanations.every((x) => x.node === null)).toBe(true);
    expect((await get<CurExplainResponse>(`/api/bill/cur/explain?resource=i-0000`)).body.explanations).toEqual([]);
  });
});

const cents2 = (x: number): number => Math.round(x * 100) / 100;
