import { describe, expect, it } from 'vitest';
import type { CurNodePoolDay } from '../../db/repositories/cur-repository.js';
import { curByNodePool, curDailyRows, curReconciliation } from './cur-daily.js';

/*
 * Two days of a NodePool's CUR rows, by hand:
 *   11-02 general instances: tag 3.00 unblended / 2.10 amortized (a Savings Plan), nodeclaim-filled 0.50 / 0.50;
 *         general volumes 0.40; general data transfer 0.06; '' (no NodePool) instances 1.00.
 *   11-03 general instances 3.50 / 2.60.
 * Amortized per NodePool: general instances 2.10 + 0.50 + 2.60 = 5.20, volumes 0.40, data transfer 0.06 -> 5.66; '' 1.00.
 */
const row = (
  day: string,
  nodePool: string,
  category: CurNodePoolDay['category'],
  unblended: number,
  amortized: number,
  attributedBy: CurNodePoolDay['attributedBy'] = 'tag',
): CurNodePoolDay => ({
  day,
  dayMs: Date.parse(`${day}T00:00:00Z`),
  cluster: 'c1',
  nodePool,
  category,
  attributedBy,
  unblendedUsd: unblended,
  amortizedUsd: amortized,
  netUnblendedUsd: unblended,
  netAmortizedUsd: amortized,
  usageAmount: 1,
  publicOnDemandUsd: unblended,
  lineCount: 1,
});
const rows = [
  row('2026-11-02', 'general', 'instances', 3, 2.1),
  row('2026-11-02', 'general', 'instances', 0.5, 0.5, 'nodeclaim'),
  row('2026-11-02', 'general', 'volumes', 0.4, 0.4),
  row('2026-11-02', 'general', 'data-transfer', 0.06, 0.06),
  row('2026-11-02', '', 'instances', 1, 1, 'none'),
  row('2026-11-03', 'general', 'instances', 3.5, 2.6),
];

describe('curDailyRows and curByNodePool', () => {
  const daily = curDailyRows(rows, 'amortized');
  it('adds up how the NodePool was found; keeps what came through our NodeClaims apart', () => {
    const first = daily.find((r) => r.day === '2026-11-02' && r.nodePool === 'general' && r.category === 'instances');
    expect(first?.billUsd).toBeCloseTo(2.6, 9);
    expect(first?.unblendedUsd).toBeCloseTo(3.5, 9);
    expect(first?.byNodeClaimUsd).toBeCloseTo(0.5, 9);
    expect(daily.map((r) => `${r.day} ${r.nodePool || '-'} ${r.category}`)).toEqual([
      '2026-11-02 - instances',
      '2026-11-02 general instances',
      '2026-11-02 general volumes',
      '2026-11-02 general data-transfer',
      '2026-11-03 general instances',
    ]);
  });
  it('per NodePool by category, largest first, the NodePool-less line kept', () => {
    const pools = curByNodePool(daily).map((p) =>
      [p.nodePool, p.instancesUsd, p.volumesUsd, p.dataTransferUsd, p.totalUsd].map((v) =>
        typeof v === 'number' ? Math.round(v * 100) / 100 : v,
      ),
    );
    expect(pools).toEqual([
      ['general', 5.2, 0.4, 0.06, 5.66],
      ['', 1, 0, 0, 1],
    ]);
  });
});

describe('curReconciliation: the CUR beside Cost Explorer and our estimate per day', () => {
  it.each([
    // day, CUR amortized, Cost Explorer, estimate, CUR − estimate, CUR − Cost Explorer
    ['2026-11-02', 4.06, 4.1, 4.5, -0.44, -0.04],
    ['2026-11-03', 2.6, null, 3.5, -0.9, null],
    ['2026-11-04', null, 1, null, null, null],
  ] as const)('%s', (day, cur, ce, est, curMinusEst, curMinusCe) => {
    const ceRows = [
      { day: '2026-11-02', billUsd: 4.1, estimateUsd: 4.5 },
      { day: '2026-11-03', billUsd: null, estimateUsd: 3.5 },
      { day: '2026-11-04', billUsd: 1, estimateUsd: null },
    ];
    const [r] = curReconciliation([day], curDailyRows(rows, 'amortized'), ceRows);
    const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
    expect([round(r.curUsd), r.costExplorerUsd, r.estimateUsd, round(r.curMinusEstimateUsd), round(r.curMinusCostExplorerUsd)]).toEqual([
      cur,
      ce,
      est,
      curMinusEst,
      curMinusCe,
    ]);
  });
});
