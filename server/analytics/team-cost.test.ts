import { describe, expect, it } from 'vitest';
import { allocateCents, toCents } from './cents.js';
import { attributeTeamCost, type NamespaceCostSums, type PoolCostSums, type TeamCostOptions } from './team-cost.js';

/*
 * One general node, 4 vCPU / 16 GiB at $1.00/h, for 1 hour (node cost $1.00):
 *   web  (team web)  requests 1 vCPU + 8 GiB: cpu share 0.25, memory share 0.50
 *   jobs (team data) requests 1 vCPU + 0 GiB: cpu share 0.25, memory share 0
 * Σ price × cpu efficiency = 0.50, Σ price × memory efficiency = 0.50.
 * AWS split: 9 × 4 + 16 = 52 units; cpu part 36/52, memory part 16/52; web has 1/2 of the pods' cpu and all their memory.
 */
const web: NamespaceCostSums = {
  namespace: 'web',
  nodePool: 'general',
  team: 'web',
  requestShareUsd: 0.375,
  cpuShareUsd: 0.25,
  memoryShareUsd: 0.5,
  awsSplitUsd: 18 / 52 + 16 / 52,
  legacyRequestShareUsd: 0,
};
const jobs: NamespaceCostSums = {
  namespace: 'jobs',
  nodePool: 'general',
  team: 'data',
  requestShareUsd: 0.125,
  cpuShareUsd: 0.25,
  memoryShareUsd: 0,
  awsSplitUsd: 18 / 52,
  legacyRequestShareUsd: 0,
};
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

  it('AWS split: the whole node goes to its pods', () => {
    // web 34/52 = 0.6538, data 18/52 = 0.3462 -> 65 + 35 cents (largest remainder), idle 0
    const r = attributeTeamCost([web, jobs], pools, opts({ method: 'aws-split' }));
    expect(lines(r)).toEqual([
      ['team', 'web', 0.65],
      ['team', 'data', 0.35],
      ['idle', null, 0],
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
    const old = { ...jobs, cpuShareUsd: 0, memoryShareUsd: 0, awsSplitUsd: 0, legacyRequestShareUsd: 0.125 };
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
