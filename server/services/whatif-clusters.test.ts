import { describe, expect, it } from 'vitest';
import type { FootprintJson, HeadroomResponse, WhyNotResponse } from '../schemas/whatif.js';
import { headroomAcrossClusters, whyNotAcrossClusters } from './whatif-clusters.js';

/*
 * Two clusters' what-if answers side by side (issue 25: Savings under "All clusters"). The figures are worked by hand:
 * a month is 730 hours (the answers' own × 730), so 0.20 USD/h of headroom is 146 USD a month.
 */

const fp = (nodes: number, usdPerHour: number): FootprintJson => ({
  nodes,
  usdPerHour,
  mix: [{ instanceType: 'm5.large', capacityType: 'on-demand', nodes, usdPerHour }],
});

const about = (snapshotAt: string, catalogueSource: string, lacks: string[] = []) => ({
  simulation: true as const,
  snapshotAt,
  currency: 'USD' as const,
  catalogueSource,
  assumptions: ['A re-pack places each pod from scratch.', ...lacks],
});

/** One NodePool "general": today 1 node at `today` USD/h, the best and spot as given. */
function headroom(snapshotAt: string, today: number, best: number, spot: number, unschedulable: number): HeadroomResponse {
  const row = {
    nodePool: 'general',
    today: fp(2, today),
    repack: fp(1, best),
    best: fp(1, best),
    bestSource: 'repack' as const,
    spot: fp(1, spot),
    spotSource: 'repack' as const,
    headroomUsdPerHour: today - best,
    headroomUsdPerMonth: Math.round((today - best) * 730 * 1e6) / 1e6,
    spotUsdPerHour: best - spot,
    spotUsdPerMonth: Math.round((best - spot) * 730 * 1e6) / 1e6,
  };
  return {
    ...about(snapshotAt, 'stored prices'),
    rows: [row],
    totals: {
      todayUsdPerHour: today,
      bestUsdPerHour: best,
      spotUsdPerHour: spot,
      headroomUsdPerMonth: row.headroomUsdPerMonth,
      spotUsdPerMonth: row.spotUsdPerMonth,
    },
    unschedulable: Array.from({ length: unschedulable }, (_, i) => ({ pod: `default/p${i}`, nodePool: 'general', reason: 'too big' })),
    unschedulableCount: unschedulable,
    unpricedNodes: [],
  };
}

describe('a what-if over every cluster of the ledger: each cluster its own answer, sums where they add', () => {
  // week4: general 1.00 -> 0.80 USD/h (146 USD/month), spot 0.80 -> 0.50 (219). staging: general 0.50, no headroom,
  // spot 0.50 -> 0.25 (182.50). Together: today 1.50 USD/h, headroom 146, spot 401.50 USD/month.
  const week4 = headroom('2026-11-01T23:00:00.000Z', 1.0, 0.8, 0.5, 1);
  const staging = headroom('2026-11-01T23:05:00.000Z', 0.5, 0.5, 0.25, 0);
  const all = headroomAcrossClusters([
    { cluster: 'week4', answer: week4 },
    { cluster: 'staging', answer: staging },
  ]);

  it('headroom: two clusters\' "general" are two rows, each naming its cluster, each as that cluster answered it', () => {
    expect(all.rows.map((r) => [r.cluster, r.nodePool, r.headroomUsdPerMonth, r.spotUsdPerMonth])).toEqual([
      ['week4', 'general', 146, 219],
      ['staging', 'general', 0, 182.5],
    ]);
    const { cluster, ...asAnswered } = all.rows[1] ?? { cluster: undefined };
    expect(cluster).toBe('staging');
    expect(asAnswered).toEqual(staging.rows[0]);
  });

  it('headroom: the totals add (cost per hour, savings per month); each cluster keeps its own in its section', () => {
    expect(all.totals).toEqual({
      todayUsdPerHour: 1.5,
      bestUsdPerHour: 1.3,
      spotUsdPerHour: 0.75,
      headroomUsdPerMonth: 146,
      spotUsdPerMonth: 401.5,
    });
    expect(all.clusters?.map((c) => [c.cluster, c.snapshotAt, c.totals, c.unschedulableCount])).toEqual([
      ['week4', week4.snapshotAt, week4.totals, 1],
      ['staging', staging.snapshotAt, staging.totals, 0],
    ]);
    expect(all.snapshotAt).toBe('2026-11-01T23:05:00.000Z');
    expect(all.unschedulable).toEqual([{ cluster: 'week4', pod: 'default/p0', nodePool: 'general', reason: 'too big' }]);
    expect(all.unschedulableCount).toBe(1);
  });

  it("why-not: each node names its cluster; each cluster's next round stays its own (no command for all)", () => {
    const decision = (node: string) => ({
      node,
      nodePool: 'general',
      instanceType: 'm5.large',
      capacityType: 'on-demand',
      zone: 'us-east-1a',
      pods: 3,
      usdPerHour: 0.096,
      usdPerMonth: 70.08,
      decision: 'keep' as const,
      reason: 'pods would not fit elsewhere',
      wording: 'ledger' as const,
    });
    const command = {
      action: 'delete' as const,
      reason: 'underutilized',
      method: 'single-node',
      candidates: ['ip-10-0-1-5'],
      replacement: null,
      savingsUsdPerHour: 0.096,
    };
    const a: WhyNotResponse = { ...about('2026-11-01T23:00:00.000Z', 'x'), nodes: [decision('ip-10-0-1-5')], command };
    const b: WhyNotResponse = { ...about('2026-11-01T23:05:00.000Z', 'y'), nodes: [decision('ip-10-0-1-5')], command: null };
    const w = whyNotAcrossClusters([
      { cluster: 'week4', answer: a },
      { cluster: 'staging', answer: b },
    ]);
    expect(w.nodes.map((n) => `${n.cluster}/${n.node}`)).toEqual(['week4/ip-10-0-1-5', 'staging/ip-10-0-1-5']);
    expect(w.command).toBeNull();
    expect(w.clusters?.map((c) => [c.cluster, c.command])).toEqual([
      ['week4', command],
      ['staging', null],
    ]);
  });
});
