import { describe, expect, it } from 'vitest';
import { allocateCents, toCents } from './cents.js';
import { attributeTeamCost, type NamespaceCostSums, type PoolCostSums, type TeamCostOptions } from './team-cost.js';

/*
 * One general node, 4 vCPU / 16 GiB at $1.00/h, for 1 hour (node cost $1.00), its capacity its allocatable:
 *   web  (team web)  requests 1 vCPU + 8 GiB: cpu share 0.25, memory share 0.50
 *   jobs (team data) requests 1 vCPU + 0 GiB: cpu share 0.25, memory share 0
 * Σ price × cpu efficiency = 0.50, Σ price × memory efficiency = 0.50.
 * AWS split: 9 × 4 + 16 = 52 units, 9/52 per vCPU, 1/52 per GiB. Split: web 9/52 + 8/52 = 17/52, jobs 9/52. Unused:
 *   2 vCPU (18/52, half each) and 8 GiB (8/52, all web's: jobs allocates no memory): web 17/52, jobs 9/52.
 * OpenCost: 4 × 7.460703 + 16 = 45.842813 GiB-equivalents: $0.0218137 per GiB, $0.1627453 per core:
 *   web 0.1627453 + 8 × 0.0218137 = 0.3372547, jobs 0.1627453; idle 0.5.
 */
const sums = (o: Partial<NamespaceCostSums>): NamespaceCostSums => ({
  namespace: 'x',
  nodePool: 'general',
  team: null,
  requestShareUsd: 0,
  cpuShareUsd: 0,
  memoryShareUsd: 0,
  legacyRequestShareUsd: 0,
  awsSplitCostUsd: 0,
  awsUnusedCostUsd: 0,
  openCostUsd: 0,
  legacyMethodsUsd: 0,
  podHours: 1,
  usagePodHours: 0,
  ...o,
});
const web = sums({
  namespace: 'web',
  team: 'web',
  requestShareUsd: 0.375,
  cpuShareUsd: 0.25,
  memoryShareUsd: 0.5,
  awsSplitCostUsd: 17 / 52,
  awsUnusedCostUsd: 17 / 52,
  openCostUsd: 0.3372547,
});
const jobs = sums({
  namespace: 'jobs',
  team: 'data',
  requestShareUsd: 0.125,
  cpuShareUsd: 0.25,
  awsSplitCostUsd: 9 / 52,
  awsUnusedCostUsd: 9 / 52,
  openCostUsd: 0.1627453,
});
const pools: PoolCostSums[] = [{ nodePool: 'general', costUsd: 1, costWeightedCpuUsd: 0.5, costWeightedMemoryUsd: 0.5 }];
const opts = (o: Partial<TeamCostOptions> = {}): TeamCostOptions => ({
  method: 'request-share',
  weights: { cpu: 0.5, memory: 0.5 },
  idle: 'line',
  teamOf: (r) => r.team,
  ...o,
});
const lines = (r: ReturnType<typeof attributeTeamCost>) => r.rows.map((l) => [l.kind, l.team, l.costUsd]);

describe('attributeTeamCost', () => {
  it('a split that leaves idle (default weights 0.5/0.5)', () => {
    // web 0.5 × 0.25 + 0.5 × 0.5 = 0.375; data 0.5 × 0.25 = 0.125; idle 1 − 0.5 = 0.50
    const r = attributeTeamCost([web, jobs], pools, opts());
    expect(lines(r)).toEqual([
      ['team', 'web', 0.38],
      ['team', 'data', 0.12],
      ['idle', null, 0.5],
    ]);
    expect(r.totals).toEqual({ nodeCostUsd: 1, teamsUsd: 0.5, idleUsd: 0.5, residualUsd: 0 });
    expect(r.rows[0].share).toBe(0.38);
  });

  it('other weights: 0.7 cpu / 0.3 memory', () => {
    // web 0.7 × 0.25 + 0.3 × 0.5 = 0.325; data 0.7 × 0.25 = 0.175; idle 1 − 0.5 = 0.5 = 1 − (0.7 × 0.5 + 0.3 × 0.5)
    const r = attributeTeamCost([web, jobs], pools, opts({ weights: { cpu: 0.7, memory: 0.3 } }));
    expect(lines(r)).toEqual([
      ['team', 'web', 0.33],
      ['team', 'data', 0.17],
      ['idle', null, 0.5],
    ]);
    expect(r.totals.residualUsd).toBeCloseTo(0, 12);
  });

  it('idle spread over the teams by their share', () => {
    // idle 0.50 spread 0.375 : 0.125 -> web 0.375 + 0.375 = 0.75, data 0.125 + 0.125 = 0.25
    const r = attributeTeamCost([web, jobs], pools, opts({ idle: 'spread' }));
    expect(lines(r)).toEqual([
      ['team', 'web', 0.75],
      ['team', 'data', 0.25],
    ]);
    expect(r.rows[0].idleSpreadUsd).toBeCloseTo(0.38, 12);
    expect(r.totals).toMatchObject({ teamsUsd: 1, idleUsd: 0 });
  });

  it("AWS split, idle as a line: AWS's split cost per team, the unused capacity's cost as idle", () => {
    // web 17/52 = 32.69 cents, data 9/52 = 17.31, idle 26/52 = 50 -> the missing cent to web (largest remainder).
    const r = attributeTeamCost([web, jobs], pools, opts({ method: 'aws-split' }));
    expect(lines(r)).toEqual([
      ['team', 'web', 0.33],
      ['team', 'data', 0.17],
      ['idle', null, 0.5],
    ]);
    expect(r.totals.residualUsd).toBe(0);
  });

  it("AWS split, idle spread: the unused cost goes to the pods as AWS hands it (AWS's total split cost)", () => {
    // web 34/52 = 65.38 cents, data 18/52 = 34.62 -> 65 + 35; nothing left unassigned.
    const r = attributeTeamCost([web, jobs], pools, opts({ method: 'aws-split', idle: 'spread' }));
    expect(lines(r)).toEqual([
      ['team', 'web', 0.65],
      ['team', 'data', 0.35],
    ]);
    expect(r.rows.map((l) => l.idleSpreadUsd)).toEqual([0.33, 0.17]);
  });

  it('AWS split, idle spread with unassigned cost left (a node without pods): handed first, the rest by cost', () => {
    // + batch pool $0.30 with no pods: unassigned under AWS, spread to nobody (no team there) -> its own idle line.
    const r = attributeTeamCost(
      [web, jobs],
      [...pools, { nodePool: 'batch', costUsd: 0.3, costWeightedCpuUsd: 0, costWeightedMemoryUsd: 0 }],
      opts({ method: 'aws-split', idle: 'spread' }),
    );
    expect(lines(r)).toEqual([
      ['team', 'web', 0.65],
      ['team', 'data', 0.35],
      ['idle', null, 0.3],
    ]);
    // On general alone with $0.13 more than AWS assigned (as if a podless node ran there): handed 17/52 and 9/52,
    // then 0.13 split 34 : 18 -> web 0.6538 + 0.0850 = 0.7388, data 0.3462 + 0.0450 = 0.3912.
    const more = attributeTeamCost([web, jobs], [{ ...pools[0], costUsd: 1.13 }], opts({ method: 'aws-split', idle: 'spread' }));
    expect(lines(more)).toEqual([
      ['team', 'web', 0.74],
      ['team', 'data', 0.39],
    ]);
  });

  it('OpenCost: workload cost per team, the rest idle', () => {
    // web 33.73 cents, data 16.27, idle 50.00 -> the missing cent to web.
    const r = attributeTeamCost([web, jobs], pools, opts({ method: 'opencost' }));
    expect(lines(r)).toEqual([
      ['team', 'web', 0.34],
      ['team', 'data', 0.16],
      ['idle', null, 0.5],
    ]);
  });

  it('a NodePool without pods is all idle; team labels can come from elsewhere', () => {
    const r = attributeTeamCost(
      [web, jobs],
      [...pools, { nodePool: 'batch', costUsd: 0.3, costWeightedCpuUsd: 0, costWeightedMemoryUsd: 0 }],
      opts({ teamOf: (n) => n.namespace.toUpperCase() }),
    );
    expect(lines(r)).toEqual([
      ['team', 'WEB', 0.38],
      ['team', 'JOBS', 0.12],
      ['idle', null, 0.3],
      ['idle', null, 0.5],
    ]);
    expect(r.teams).toEqual([
      { kind: 'team', team: 'WEB', costUsd: 0.38 },
      { kind: 'team', team: 'JOBS', costUsd: 0.12 },
      { kind: 'idle', team: null, costUsd: 0.8 },
    ]);
    expect(r.totals.nodeCostUsd).toBe(1.3);
  });

  it('says so when snapshots predate the per-resource shares, and keeps their 50/50 cost', () => {
    const old = { ...jobs, cpuShareUsd: 0, memoryShareUsd: 0, legacyRequestShareUsd: 0.125 };
    const r = attributeTeamCost([web, old], pools, opts({ weights: { cpu: 0.7, memory: 0.3 } }));
    // web 0.325, data keeps its stored 0.125, idle 1 − 0.45 = 0.55; the one cent of the two halves goes to the first line.
    expect(lines(r)).toEqual([
      ['team', 'web', 0.33],
      ['team', 'data', 0.12],
      ['idle', null, 0.55],
    ]);
    expect(r.notes).toHaveLength(1);
  });
});

/*
 * The node of core/rollup.test.ts "one node, three methods" ($0.52/h, an m5.xlarge with allocatable 3.5 vCPU / 14 GiB;
 * web 1.75 vCPU + 3.5 GiB, jobs 0.7 vCPU + 7 GiB), for one hour: the three methods differ and each adds up, in cents.
 */
describe('attributeTeamCost: one node where the three methods differ', () => {
  const w = sums({
    namespace: 'web',
    team: 'web',
    requestShareUsd: 0.195,
    cpuShareUsd: 0.26,
    memoryShareUsd: 0.13,
    awsSplitCostUsd: 0.1925,
    awsUnusedCostUsd: 0.1179762,
    openCostUsd: 0.1877991,
  });
  const j = sums({
    namespace: 'jobs',
    team: 'data',
    requestShareUsd: 0.182,
    cpuShareUsd: 0.104,
    memoryShareUsd: 0.26,
    awsSplitCostUsd: 0.133,
    awsUnusedCostUsd: 0.0765238,
    openCostUsd: 0.1386411,
  });
  // Σ price × cpu efficiency 0.52 × 2.45/3.5 = 0.364, memory 0.52 × 10.5/14 = 0.39.
  const node: PoolCostSums[] = [{ nodePool: 'general', costUsd: 0.52, costWeightedCpuUsd: 0.364, costWeightedMemoryUsd: 0.39 }];

  it.each([
    // cents: web, data, idle (largest remainder to the line with the biggest fraction of a cent)
    ['request share: 19.5, 18.2, 14.3', opts(), [0.2, 0.18, 0.14]],
    ['AWS split, idle as a line: 19.25, 13.3, 19.45', opts({ method: 'aws-split' }), [0.19, 0.13, 0.2]],
    ['AWS split, idle spread: 31.05, 20.95', opts({ method: 'aws-split', idle: 'spread' }), [0.31, 0.21]],
    ['OpenCost: 18.78, 13.86, 19.36', opts({ method: 'opencost' }), [0.19, 0.14, 0.19]],
  ] as [string, TeamCostOptions, number[]][])('%s', (_name, o, expected) => {
    const r = attributeTeamCost([w, j], node, o);
    expect(r.rows.map((l) => l.costUsd)).toEqual(expected);
    expect(r.rows.reduce((t, l) => t + Math.round(l.costUsd * 100), 0)).toBe(52);
    expect(r.totals.nodeCostUsd).toBe(0.52);
    expect(Math.abs(r.totals.residualUsd)).toBeLessThan(1e-9);
  });
});

/*
 * The same node with usage (core/rollup.test.ts "usage feeds AWS split and OpenCost"): jobs uses 1.5 vCPU (above its
 * 0.7 request) and 2 GiB (below its 7), web stays under its requests. Charged max(request, usage):
 *   request share (requests only, by definition): 0.195, 0.182, idle 0.143, as before;
 *   AWS split: web 0.1925; jobs 1.5 × 0.09 + 7 × 0.01 = 0.205; unused 0.75 vCPU × 0.09 + 5.5 GiB × 0.01 = 0.1225, shared
 *     web 1.75/3.25 × 0.0675 + 1/3 × 0.055 = 0.0546795, jobs 1.5/3.25 × 0.0675 + 2/3 × 0.055 = 0.0678205;
 *   OpenCost: web 0.1877991; jobs 1.5 × 0.0846276 + 7 × 0.0113431 = 0.2063431; idle 0.52 − both = 0.1258578.
 * Each adds up to 52 cents.
 */
describe('attributeTeamCost: the three methods on that node with usage, each to the cent', () => {
  const w = sums({
    namespace: 'web',
    team: 'web',
    requestShareUsd: 0.195,
    cpuShareUsd: 0.26,
    memoryShareUsd: 0.13,
    awsSplitCostUsd: 0.1925,
    awsUnusedCostUsd: 0.0546795,
    openCostUsd: 0.1877991,
    usagePodHours: 1,
  });
  const j = sums({
    namespace: 'jobs',
    team: 'data',
    requestShareUsd: 0.182,
    cpuShareUsd: 0.104,
    memoryShareUsd: 0.26,
    awsSplitCostUsd: 0.205,
    awsUnusedCostUsd: 0.0678205,
    openCostUsd: 0.2063431,
    usagePodHours: 1,
  });
  const node: PoolCostSums[] = [{ nodePool: 'general', costUsd: 0.52, costWeightedCpuUsd: 0.364, costWeightedMemoryUsd: 0.39 }];

  it.each([
    ['request share: 19.5, 18.2, 14.3', opts(), [0.2, 0.18, 0.14]],
    // Rows biggest first: data now costs more than web.
    ['AWS split · max(request, usage), idle as a line: data 20.5, web 19.25, 12.25', opts({ method: 'aws-split' }), [0.21, 0.19, 0.12]],
    ['AWS split · max(request, usage), idle spread: data 27.28, web 24.72', opts({ method: 'aws-split', idle: 'spread' }), [0.27, 0.25]],
    ['OpenCost · max(request, usage): data 20.63, web 18.78, 12.59', opts({ method: 'opencost' }), [0.21, 0.19, 0.12]],
  ] as [string, TeamCostOptions, number[]][])('%s', (_name, o, expected) => {
    const r = attributeTeamCost([w, j], node, o);
    expect(r.rows.map((l) => l.costUsd)).toEqual(expected);
    expect(r.rows.reduce((t, l) => t + Math.round(l.costUsd * 100), 0)).toBe(52);
    expect(Math.abs(r.totals.residualUsd)).toBeLessThan(1e-9);
  });
});

describe('cents', () => {
  it.each([
    [[1 / 3, 1 / 3, 1 / 3], 100, [34, 33, 33]],
    [[0.375, 0.125, 0.5], 100, [38, 12, 50]],
    [[0.29, 0.71], 100, [29, 71]], // 0.29 × 100 is 28.999999999999996 in floating point
    [[0.506, 0.506], 101, [51, 50]],
    [[0.5, 0.5, -0.0001], 100, [50, 50, 0]],
    [[0.2, 0.2], 39, [20, 19]], // floors already exceed the total: take from the smallest remainder
  ])('allocateCents(%j, %i) = %j', (values, total, expected) => {
    const out = allocateCents(values, total);
    expect(out).toEqual(expected);
    expect(out.reduce((t, c) => t + c, 0)).toBe(total);
  });
  it('toCents rounds half away from zero despite float noise', () => {
    expect([toCents(0.285), toCents(1.005), toCents(-0.285), toCents(2.675)]).toEqual([29, 101, -29, 268]);
  });
});
