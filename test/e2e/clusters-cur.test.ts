import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { createCurRepository } from '../../db/repositories/cur-repository.js';
import { buildApp } from '../../server/app.js';
import type { CurExplainResponse, CurLinesResponse } from '../../server/schemas/bill-cur.js';
import type { CurDailyResponse } from '../../server/schemas/cost-cur.js';
import type { TeamCurResponse } from '../../server/schemas/teams-cur.js';
import { clusterDeclaration } from '../fixtures/cluster-declaration.js';

/*
 * The CUR's resource and split lines of a ledger holding two clusters, alpha and beta, each with a NodePool named
 * default (issue 25, branch readers25b). A line is of the cluster its cluster tag names; an untagged line of the
 * cluster whose NodeClaim had its instance id. Figures by hand, amortized = unblended (no commitments), 2026-11-01:
 *   alpha: i-a1 tagged alpha/default 10.00; i-a2 untagged, alpha's NodeClaim default-a2 had it: 4.00   -> 14.00
 *   beta:  i-b1 tagged beta/default 7.00; vol-b1 tagged beta (no NodePool) 1.50                         ->  8.50
 *   i-x untagged, no NodeClaim of ours: 2.00 (of no cluster)                            every cluster: 24.50
 * Split lines (groupBy=namespace): alpha web 0.30 (unused 0.10); beta web 0.20, batch 0.05.
 * NodePool days (/api/cost/cur/daily, the same lines summed per cluster tag x NodePool x category): alpha default
 * instances 10.00; beta default instances 7.00, beta '' volumes 1.50; untagged: default instances 4.00 (by NodeClaim),
 * '' instances 2.00. Cost Explorer's DAILY lines of the day: alpha default 9.50, beta default 7.25.
 *   alpha: CUR 10.00, Cost Explorer 9.50; beta: CUR 7.00 + 1.50 = 8.50, Cost Explorer 7.25; untagged 4 + 2 = 6.00 in
 *   neither (a note); every cluster: CUR 24.50, Cost Explorer 9.50 + 7.25 = 16.75.
 */

let db: Db;
let app: FastifyInstance;
const DAY = '2026-11-01';
const dayMs = Date.parse(`${DAY}T00:00:00Z`);

const cluster = (name: string) => clusterDeclaration(name);

const resource = (resourceId: string, clusterTag: string, nodePool: string, usd: number) => ({
  day: DAY,
  dayMs,
  resourceId,
  lineItemType: 'Usage',
  usageType: resourceId.startsWith('vol-') ? 'USE1-EBS:VolumeUsage.gp3' : 'USE1-BoxUsage:m5.xlarge',
  productCode: 'AmazonEC2',
  operation: 'RunInstances',
  category: resourceId.startsWith('vol-') ? ('volumes' as const) : ('instances' as const),
  cluster: clusterTag,
  nodePool,
  nodeClaim: '',
  attributedBy: nodePool === '' ? ('none' as const) : ('tag' as const),
  commitmentArn: '',
  usageAmount: 1,
  publicOnDemandUsd: usd,
  lineCount: 1,
  unblendedUsd: usd,
  amortizedUsd: usd,
  netUnblendedUsd: usd,
  netAmortizedUsd: usd,
});

const nodePoolDay = (
  clusterTag: string,
  nodePool: string,
  category: 'instances' | 'volumes',
  attributedBy: 'tag' | 'nodeclaim' | 'none',
  usd: number,
) => ({
  day: DAY,
  dayMs,
  cluster: clusterTag,
  nodePool,
  category,
  attributedBy,
  unblendedUsd: usd,
  amortizedUsd: usd,
  netUnblendedUsd: usd,
  netAmortizedUsd: usd,
  usageAmount: 1,
  publicOnDemandUsd: usd,
  lineCount: 1,
});

const split = (clusterTag: string, namespace: string, splitUsd: number, unusedUsd: number) => ({
  day: DAY,
  dayMs,
  cluster: clusterTag,
  nodePool: 'default',
  namespace,
  splitCostUsd: splitUsd,
  unusedCostUsd: unusedUsd,
  netSplitCostUsd: splitUsd,
  netUnusedCostUsd: unusedUsd,
  publicOnDemandSplitCostUsd: splitUsd,
  publicOnDemandUnusedCostUsd: unusedUsd,
  vcpuHours: 1,
  memoryGbHours: 1,
  podCount: 1,
  lineCount: 1,
});

beforeAll(async () => {
  db = openDb({ path: ':memory:' });
  const [alpha, beta] = createClustersRepository(db).declare([cluster('alpha'), cluster('beta')], 0);
  // Each cluster's NodeClaim; beta's has the same name as alpha's (names are per cluster), another instance.
  const claim = db.prepare(`INSERT INTO nodeclaims (name, nodepool, instance_id, created_at, first_seen, last_seen, cluster_id)
    VALUES (?, 'default', ?, ?, ?, ?, ?)`);
  claim.run('default-a2', 'i-a2', dayMs, dayMs, dayMs + 3_600_000, alpha.id);
  claim.run('default-a2', 'i-b9', dayMs, dayMs, dayMs + 3_600_000, beta.id);
  createCurRepository(db).replacePeriod({
    summary: {
      source: '/exports/two',
      billingPeriod: '2026-11',
      periodStartMs: dayMs,
      importedAt: dayMs + 86_400_000,
      curRows: 8,
      unblendedUsd: 24.5,
      amortizedUsd: 24.5,
      unattributedLines: 0,
      unattributedUsd: 0,
      nodeClaimFilledLines: 0,
      splitLines: 3,
      manifestExecutionId: null,
    },
    files: [],
    nodePoolDays: [
      nodePoolDay('alpha', 'default', 'instances', 'tag', 10),
      nodePoolDay('beta', 'default', 'instances', 'tag', 7),
      nodePoolDay('beta', '', 'volumes', 'none', 1.5),
      nodePoolDay('', 'default', 'instances', 'nodeclaim', 4),
      nodePoolDay('', '', 'instances', 'none', 2),
    ],
    namespaceDays: [split('alpha', 'web', 0.3, 0.1), split('beta', 'web', 0.2, 0), split('beta', 'batch', 0.05, 0)],
    resourceDays: [
      resource('i-a1', 'alpha', 'default', 10),
      resource('i-a2', '', '', 4),
      resource('i-b1', 'beta', 'default', 7),
      resource('vol-b1', 'beta', '', 1.5),
      resource('i-x', '', '', 2),
    ],
  });
  // Each cluster's Cost Explorer line of the day (as the collector stores them: DAILY x PURCHASE_TYPE, its cluster's id).
  const line = db.prepare(`INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool,
      dimension_value, unblended_usd, amortized_usd, estimated, fetched_at, cluster_id)
    VALUES ('cost-explorer', 'DAILY', ?, ?, 'PURCHASE_TYPE', 'default', 'On Demand Instances', ?, ?, 0, ?, ?)`);
  line.run(DAY, dayMs, 9.5, 9.5, dayMs + 86_400_000, alpha.id);
  line.run(DAY, dayMs, 7.25, 7.25, dayMs + 86_400_000, beta.id);
  app = buildApp({ db, webRoot: join(tmpdir(), 'no-web'), now: () => dayMs + 2 * 86_400_000, cacheResponses: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  db?.close();
});

const get = async <T>(url: string): Promise<T> => {
  const res = await app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return res.json() as T;
};
const cents = (usd: number): number => Math.round(usd * 100);

describe('the CUR by cluster (?cluster= on /api/bill/cur/*, /api/teams/cur)', () => {
  it('resources of one cluster: its tagged lines and the untagged ones its NodeClaims ran; every cluster: each resource names its cluster', async () => {
    const alpha = await get<CurLinesResponse>(`/api/bill/cur/lines?day=${DAY}&cluster=alpha`);
    const beta = await get<CurLinesResponse>(`/api/bill/cur/lines?day=${DAY}&cluster=beta`);
    const all = await get<CurLinesResponse>(`/api/bill/cur/lines?day=${DAY}`);
    const rows = (b: CurLinesResponse) => b.resources.map((r) => [r.resourceId, r.cluster, cents(r.billUsd)]);
    expect(rows(alpha)).toEqual([
      ['i-a1', 'alpha', 1000],
      ['i-a2', 'alpha', 400],
    ]);
    expect(rows(beta)).toEqual([
      ['i-b1', 'beta', 700],
      ['vol-b1', 'beta', 150],
    ]);
    expect([cents(alpha.totals.billUsd), cents(beta.totals.billUsd), cents(all.totals.billUsd)]).toEqual([1400, 850, 2450]);
    expect(rows(all)).toEqual([
      ['i-a1', 'alpha', 1000],
      ['i-b1', 'beta', 700],
      ['i-a2', 'alpha', 400],
      ['i-x', '', 200],
      ['vol-b1', 'beta', 150],
    ]);
    // The two clusters' default are two totals, never one of 17.00.
    expect(all.totals.byNodePool.map((p) => [p.nodePool, p.cluster, cents(p.billUsd)])).toEqual([
      ['default', 'alpha', 1000],
      ['default', 'beta', 700],
      ['', 'alpha', 400],
      ['', '', 200],
      ['', 'beta', 150],
    ]);
  });

  it('a resource explained names its cluster; under another cluster it is not there', async () => {
    const mine = await get<CurExplainResponse>(`/api/bill/cur/explain?day=${DAY}&resource=i-a2&cluster=alpha`);
    expect(mine.explanations.map((e) => [e.resourceId, e.cluster, cents(e.billUsd)])).toEqual([['i-a2', 'alpha', 400]]);
    const other = await get<CurExplainResponse>(`/api/bill/cur/explain?day=${DAY}&resource=i-a2&cluster=beta`);
    expect(other.explanations).toEqual([]);
    const day = await get<CurExplainResponse>(`/api/bill/cur/explain?day=${DAY}&cluster=beta`);
    expect(day.explanations.map((e) => e.resourceId)).toEqual(['i-b1', 'vol-b1']);
  });

  it("AWS's split per namespace of one cluster is that cluster's split lines; every cluster: both added", async () => {
    const range = 'from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&groupBy=namespace';
    const cur = (b: TeamCurResponse) => Object.fromEntries(b.rows.map((r) => [r.team ?? r.kind, cents(r.curUsd ?? NaN)]));
    expect(cur(await get<TeamCurResponse>(`/api/teams/cur?${range}&cluster=alpha`))).toEqual({ web: 30, idle: 10 });
    expect(cur(await get<TeamCurResponse>(`/api/teams/cur?${range}&cluster=beta`))).toEqual({ web: 20, batch: 5, idle: 0 });
    expect(cur(await get<TeamCurResponse>(`/api/teams/cur?${range}`))).toEqual({ web: 50, batch: 5, idle: 10 });
  });
});

describe('the CUR per day by cluster (?cluster= on /api/cost/cur/daily)', () => {
  const range = 'from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z';
  const rows = (b: CurDailyResponse) => b.rows.map((r) => [r.cluster, r.nodePool, r.category, cents(r.billUsd)]);
  const day = (b: CurDailyResponse) => {
    const d = b.reconciliation[0];
    return [d.day, cents(d.curUsd ?? NaN), cents(d.costExplorerUsd ?? NaN)];
  };

  it('one cluster: the lines its cluster tag names, beside its own Cost Explorer lines; the untagged ones in a note', async () => {
    const alpha = await get<CurDailyResponse>(`/api/cost/cur/daily?${range}&cluster=alpha`);
    expect(rows(alpha)).toEqual([[undefined, 'default', 'instances', 1000]]);
    expect(day(alpha)).toEqual([DAY, 1000, 950]);
    expect(alpha.notes).toContain(
      "$6.00 of CUR lines in this range carry no cluster tag (eks:eks-cluster-name): in no one cluster's figures, counted without cluster (all clusters).",
    );
    const beta = await get<CurDailyResponse>(`/api/cost/cur/daily?${range}&cluster=beta`);
    expect(rows(beta)).toEqual([
      [undefined, '', 'volumes', 150],
      [undefined, 'default', 'instances', 700],
    ]);
    expect(day(beta)).toEqual([DAY, 850, 725]);
    expect([cents(beta.totals.curUsd), cents(beta.totals.costExplorerUsd)]).toEqual([850, 725]);
    expect(beta.byNodePool.map((p) => [p.cluster, p.nodePool, cents(p.totalUsd)])).toEqual([
      [undefined, 'default', 700],
      [undefined, '', 150],
    ]);
  });

  it("every cluster: each row and NodePool total names its cluster tag (two clusters' default are two rows), all added", async () => {
    const all = await get<CurDailyResponse>(`/api/cost/cur/daily?${range}`);
    expect(rows(all)).toEqual([
      ['', '', 'instances', 200],
      ['', 'default', 'instances', 400],
      ['alpha', 'default', 'instances', 1000],
      ['beta', '', 'volumes', 150],
      ['beta', 'default', 'instances', 700],
    ]);
    expect(all.byNodePool.map((p) => [p.cluster, p.nodePool, cents(p.totalUsd)])).toEqual([
      ['alpha', 'default', 1000],
      ['beta', 'default', 700],
      ['', 'default', 400],
      ['', '', 200],
      ['beta', '', 150],
    ]);
    expect(day(all)).toEqual([DAY, 2450, 1675]);
  });
});
