import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeClaimRecord } from '../../core/model.js';
import { type Db, openDb } from '../../db/open-db.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { createCostLinesRepository } from '../../db/repositories/cost-lines-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { type CostExplorerOptions, createCostExplorerHandler } from '../../sandbox/serve/cost-explorer.js';
import { newContext, serveHandlers, type ServedHandlers, useDummyAwsCredentials } from '../../test/fixtures/serve-handlers.js';
import { GiB, snapshotWrite } from '../../test/fixtures/snapshots.js';
import { T, TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { AwsRequestCounter } from '../aws-request-counter.js';
import { checkCostAllocationTags, chooseClusterTag } from './allocation-tags.js';
import { createCostExplorerClient } from './client.js';
import { collectCostExplorer, contiguousRuns, type CostExplorerDeps } from './collect.js';

useDummyAwsCredentials();

/**
 * HOURLY and per-instance (GetCostAndUsageWithResources) lines, the cluster-tag choice, and retries, against the
 * sandbox's Cost Explorer over the tiny scenario (its bill is worked by hand in test/fixtures/tiny-scenario.ts).
 * At 11-15 00:00 the last 14 days are 11-02 .. 11-14.
 */
const WINDOW = { startMs: T('2026-11-01T00:00:00Z'), endMs: TINY_END };
const RECENT = { fromMs: T('2026-11-02T00:00:00Z'), toMs: TINY_END };
const ALL = { fromMs: WINDOW.startMs, toMs: WINDOW.endMs };

describe('collectCostExplorer: hourly and per-instance lines, cluster tag, retries', () => {
  let dir: string;
  let db: Db;
  let served: ServedHandlers | null = null;
  const clients: { destroy(): void }[] = [];
  const client = (url: string) => {
    const c = createCostExplorerClient({ endpoint: url });
    clients.push(c);
    return c;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-ce-recent-'));
    db = openDb({ path: join(dir, 'ledger.db') });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await served?.close();
    served = null;
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Page size 12: 335 hourly slots take 28 pages, 15 per-instance slots 2, 16 daily slots 2. */
  const serve = async (options: CostExplorerOptions = {}): Promise<ServedHandlers> => {
    served = await serveHandlers([createCostExplorerHandler({ pageSize: 12, ...options })], newContext(tinyScenario(), TINY_END));
    return served;
  };
  const deps = (s: ServedHandlers, extra: Partial<CostExplorerDeps> = {}): CostExplorerDeps => ({
    db,
    ce: client(s.url),
    clusterName: 'tiny-cluster',
    now: TINY_END,
    hourly: true,
    resources: true,
    // The compute queries' pages are counted by hand here; EC2 - Other is tested in collect.test.ts.
    otherCosts: false,
    ...extra,
  });
  const logged = (s: ServedHandlers, op: string): number => s.ctx.requestLog.filter((r) => r.operation === `ce:${op}`).length;

  it('pages HOURLY lines over the last 14 days; they add up to the DAILY lines, half hours and price changes included', async () => {
    const s = await serve();
    const result = await collectCostExplorer(deps(s), WINDOW);
    const hourly = result.queries.find((q) => q.granularity === 'HOURLY');
    expect(hourly).toMatchObject({ requested: { start: '2026-11-02T00:00:00Z', end: '2026-11-15T00:00:00Z' }, requests: 28 });
    const lines = createCostLinesRepository(db);
    const q = { source: 'cost-explorer', granularity: 'HOURLY' as const, groupBy: 'PURCHASE_TYPE' as const };
    const general = lines
      .listCostLines({ ...q, fromMs: T('2026-11-02T00:00:00Z'), toMs: T('2026-11-03T00:00:00Z') })
      .filter((l) => l.nodePool === 'general');
    // 06:30 .. 16:30: two half hours at the ends and nine whole hours of 0.096.
    expect(general.map((l) => l.unblendedUsd)).toEqual([0.048, ...Array(9).fill(0.096), 0.048]);
    const spotAt = (iso: string): number | undefined =>
      lines.listCostLines({ ...q, fromMs: T(iso), toMs: T(iso) + 3_600_000 }).find((l) => l.nodePool === 'spot-batch')?.unblendedUsd;
    // 04:00-05:00: half an hour at 0.07, half at 0.08; the price falls to 0.065 at 09:00.
    expect(spotAt('2026-11-03T04:00:00Z')).toBeCloseTo(0.5 * 0.07 + 0.5 * 0.08, 12);
    expect(spotAt('2026-11-03T09:00:00Z')).toBeCloseTo(0.065, 12);

    const byDay = (granularity: 'DAILY' | 'HOURLY') =>
      lines
        .costPerNodePoolPerDay({ ...RECENT, granularity })
        .map((d) => [d.day, d.nodePool, d.purchaseType, Math.round(d.unblendedUsd * 1e9) / 1e9]);
    expect(byDay('HOURLY')).toEqual(byDay('DAILY'));
    expect(byDay('HOURLY')).toHaveLength(13 + 2);
  });

  it('falls back to DAILY alone when the account has not enabled HOURLY (ValidationException), counting the refused call', async () => {
    const s = await serve({ hourlyEnabled: false });
    const result = await collectCostExplorer(deps(s, { resources: false }), WINDOW);
    const hourly = result.queries.find((q) => q.granularity === 'HOURLY');
    expect(hourly?.unavailable).toMatch(/^ValidationException: Hourly granularity is not enabled/);
    expect(hourly).toMatchObject({ requests: 1, lines: 0 });
    const lines = createCostLinesRepository(db);
    expect(lines.listCostLines({ source: 'cost-explorer', granularity: 'HOURLY', groupBy: 'PURCHASE_TYPE', ...RECENT })).toEqual([]);
    expect(lines.costPerNodePoolPerDay(ALL).reduce((sum, d) => sum + d.unblendedUsd, 0)).toBeCloseTo(0.96 + 0.87 + 336 * 0.192, 8);
    // 2 + 2 DAILY pages and the refused HOURLY call, all stored.
    expect(createApiRequestsRepository(db).countApiRequests({ service: 'ce', operation: 'GetCostAndUsage' })).toBe(5);
    expect(logged(s, 'GetCostAndUsage')).toBe(5);
  });

  it('stores per-instance lines and joins them to NodeClaims and Nodes by instance id; the managed node keeps its own line', async () => {
    const s = await serve();
    const result = await collectCostExplorer(deps(s, { hourly: false }), WINDOW);
    expect(result.queries.find((q) => q.groupBy === 'RESOURCE_ID')).toMatchObject({
      api: 'GetCostAndUsageWithResources',
      requested: { start: '2026-11-02', end: '2026-11-15' },
      requests: 2,
    });
    expect(logged(s, 'GetCostAndUsageWithResources')).toBe(2);

    // What the cluster showed: general's NodeClaim (its Node already gone), spot-batch's NodeClaim and Node, the managed Node.
    const w = snapshotWrite(T('2026-11-03T06:00:00Z'), [
      {
        name: 'ip-10-0-2-20.ec2.internal',
        nodePool: 'spot-batch',
        capacityType: 'spot',
        instanceType: 'c5.xlarge',
        zone: 'us-east-1b',
        cpuMillicores: 3920,
        memoryBytes: 7 * GiB,
        requestedCpuMillicores: 0,
        requestedMemoryBytes: 0,
        usdPerHour: 0.07,
      },
      {
        name: 'ip-10-0-3-30.ec2.internal',
        nodePool: null,
        capacityType: 'on-demand',
        instanceType: 'm5.xlarge',
        zone: 'us-east-1c',
        cpuMillicores: 3920,
        memoryBytes: 15 * GiB,
        requestedCpuMillicores: 0,
        requestedMemoryBytes: 0,
        usdPerHour: 0.192,
      },
    ]);
    const ids: Record<string, string> = {
      'ip-10-0-2-20.ec2.internal': 'i-0000000000000000b',
      'ip-10-0-3-30.ec2.internal': 'i-0000000000000000c',
    };
    w.snapshot.nodes = w.snapshot.nodes.map((n) => ({
      ...n,
      instanceId: ids[n.name],
      nodeClaim: n.nodePool === null ? null : 'spot-batch-fghij',
    }));
    const claim = (c: Partial<NodeClaimRecord> & Pick<NodeClaimRecord, 'name' | 'instanceId'>): NodeClaimRecord => ({
      nodePool: null,
      nodeName: null,
      instanceType: null,
      capacityType: null,
      zone: null,
      createdAt: 0,
      disruptionReason: null,
      conditions: [],
      ...c,
    });
    w.snapshot.nodeClaims = [
      claim({
        name: 'general-abcde',
        instanceId: 'i-0000000000000000a',
        nodePool: 'general',
        nodeName: 'ip-10-0-1-10.ec2.internal',
        instanceType: 'm5.large',
        capacityType: 'on-demand',
      }),
      claim({
        name: 'spot-batch-fghij',
        instanceId: 'i-0000000000000000b',
        nodePool: 'spot-batch',
        nodeName: 'ip-10-0-2-20.ec2.internal',
        instanceType: 'c5.xlarge',
        capacityType: 'spot',
      }),
    ];
    createKubeRepository(db).writeSnapshot(w);

    const costs = createCostLinesRepository(db).costPerNodeClaim(RECENT);
    expect(costs.map((c) => ({ ...c, unblendedUsd: Math.round(c.unblendedUsd * 1e9) / 1e9 }))).toEqual([
      {
        // 13 days x 24 h x 0.192 = 59.904; the last two days are still estimates.
        instanceId: 'i-0000000000000000c',
        nodeClaim: null,
        nodeName: 'ip-10-0-3-30.ec2.internal',
        nodePool: '',
        instanceType: 'm5.xlarge',
        capacityType: 'on-demand',
        unblendedUsd: 59.904,
        // The Savings Plan (0.10/h at 28 % off) covers 0.10 of it each hour alone, what general's m5.large leaves on
        // 11-02 (9 whole hours 0.10 - 0.06912, 2 half hours 0.10 - 0.03456): savings = commitment used / 0.72 x 0.28.
        amortizedUsd: expect.closeTo(59.904 - (((312 - 11) * 0.1 + 9 * (0.1 - 0.06912) + 2 * (0.1 - 0.03456)) / 0.72) * 0.28, 9),
        usageHours: 312,
        estimated: true,
        firstDayMs: T('2026-11-02T00:00:00Z'),
        lastDayMs: T('2026-11-14T00:00:00Z'),
      },
      {
        instanceId: 'i-0000000000000000a',
        nodeClaim: 'general-abcde',
        nodeName: 'ip-10-0-1-10.ec2.internal',
        nodePool: 'general',
        instanceType: 'm5.large',
        capacityType: 'on-demand',
        unblendedUsd: 0.96,
        amortizedUsd: expect.closeTo(0.96 * 0.72, 9), // wholly covered by the Savings Plan
        usageHours: 10,
        estimated: false,
        firstDayMs: T('2026-11-02T00:00:00Z'),
        lastDayMs: T('2026-11-02T00:00:00Z'),
      },
      {
        instanceId: 'i-0000000000000000b',
        nodeClaim: 'spot-batch-fghij',
        nodeName: 'ip-10-0-2-20.ec2.internal',
        nodePool: 'spot-batch',
        instanceType: 'c5.xlarge',
        capacityType: 'spot',
        unblendedUsd: 0.87,
        amortizedUsd: expect.closeTo(0.87, 9),
        usageHours: 12,
        estimated: false,
        firstDayMs: T('2026-11-03T00:00:00Z'),
        lastDayMs: T('2026-11-03T00:00:00Z'),
      },
    ]);
  });

  it('filters by kubernetes.io/cluster/NAME when eks:eks-cluster-name is not an active tag (that filter would find nothing)', async () => {
    const s = await serve({ inactiveTags: ['eks:eks-cluster-name'] });
    const ce = client(s.url);
    const choice = chooseClusterTag('tiny-cluster', await checkCostAllocationTags(ce, 'tiny-cluster'));
    expect(choice).toEqual({ tag: { key: 'kubernetes.io/cluster/tiny-cluster', value: 'owned' }, active: true });

    await collectCostExplorer(deps(s, { hourly: false, resources: false, clusterTag: choice.tag }), WINDOW);
    const total = (pool: string) =>
      createCostLinesRepository(db)
        .costPerNodePoolPerDay(ALL)
        .filter((d) => d.nodePool === pool)
        .reduce((sum, d) => sum + d.unblendedUsd, 0);
    expect(total('general')).toBeCloseTo(0.96, 9);
    expect(total('')).toBeCloseTo(336 * 0.192, 8);

    const db2 = openDb({ path: join(dir, 'eks-filter.db') });
    await collectCostExplorer({ ...deps(s, { hourly: false, resources: false }), db: db2 }, WINDOW);
    expect(createCostLinesRepository(db2).costPerNodePoolPerDay(ALL)).toEqual([]);
    db2.close();
  });

  it('retries throttled and unavailable calls of every Cost Explorer operation, and counts each attempt', async () => {
    const s = await serve();
    s.ctx.faults.push(
      { match: 'GetCostAndUsageWithResources', status: 400, remaining: 2 },
      { match: 'ListCostAllocationTags', status: 503, remaining: 1 },
      { match: 'GetCostAndUsage', status: 500, remaining: 1 },
    );
    const counter = new AwsRequestCounter();
    const ce = counter.attach(client(s.url), 'ce');
    let tagPages = 0;
    // Two tags a page: the five keys take three pages.
    const tags = await checkCostAllocationTags(ce, 'tiny-cluster', {
      maxResults: 2,
      onRequest: () => {
        tagPages += 1;
      },
    });
    expect(tags.active).toHaveLength(5);
    expect(tagPages).toBe(3);
    const result = await collectCostExplorer({ ...deps(s, { hourly: false }), ce }, WINDOW);
    expect(result.requests).toBe(2 + 2 + 2);
    expect(counter.entries()).toEqual([
      ['ce:GetCostAndUsage', 4 + 1],
      ['ce:GetCostAndUsageWithResources', 2 + 2],
      ['ce:ListCostAllocationTags', 3 + 1],
    ]);
    for (const [key, n] of counter.entries()) expect(logged(s, key.slice(3))).toBe(n);
  });
});

describe.each([
  [[], []],
  [[0], [[0, 1]]],
  [
    [0, 1, 2, 5, 6, 9],
    [
      [0, 3],
      [5, 7],
      [9, 10],
    ],
  ],
])('contiguousRuns(%j)', (starts, runs) => {
  it(`is ${JSON.stringify(runs)}`, () => expect(contiguousRuns(starts, 1)).toEqual(runs));
});
