/**
 * A NodePool's bill from the Cost and Usage Report (pure, no I/O): the imported per-day rows summed per day x
 * NodePool x category in a metric, per NodePool over the range, and per day beside Cost Explorer and our estimate.
 */

import type { CurNodePoolDay } from '../../db/repositories/cur-repository.js';
import type { CurDailyRow, CurNodePoolTotal, CurReconciliationDay } from '../schemas/cost-cur.js';
import type { CostMetric, DailyCostRow } from '../schemas/cost.js';
import { inMetric } from '../explain/cur-explain.js';

const CATEGORY_ORDER = ['instances', 'volumes', 'data-transfer', 'other'] as const;

/**
 * Per day x NodePool x category (how the NodePool was found added up), sorted so; `byCluster` (every cluster of a
 * ledger holding several): per cluster tag too, each row naming it ('' = no cluster tag), so two clusters' `general`
 * stay two rows. Without it the clusters are added up.
 */
export function curDailyRows(rows: readonly CurNodePoolDay[], metric: CostMetric, byCluster = false): CurDailyRow[] {
  const out = new Map<string, CurDailyRow>();
  for (const r of rows) {
    const k = `${r.day}\u0000${byCluster ? r.cluster : ''}\u0000${r.nodePool}\u0000${r.category}`;
    const t = out.get(k) ?? {
      day: r.day,
      ...(byCluster ? { cluster: r.cluster } : {}),
      nodePool: r.nodePool,
      category: r.category,
      billUsd: 0,
      unblendedUsd: 0,
      amortizedUsd: 0,
      netUnblendedUsd: 0,
      netAmortizedUsd: 0,
      publicOnDemandUsd: 0,
      byNodeClaimUsd: 0,
    };
    const bill = inMetric(r, metric);
    t.billUsd += bill;
    t.unblendedUsd += r.unblendedUsd;
    t.amortizedUsd += r.amortizedUsd;
    t.netUnblendedUsd += r.netUnblendedUsd;
    t.netAmortizedUsd += r.netAmortizedUsd;
    t.publicOnDemandUsd += r.publicOnDemandUsd;
    if (r.attributedBy === 'nodeclaim') t.byNodeClaimUsd += bill;
    out.set(k, t);
  }
  return [...out.values()].sort(
    (a, b) =>
      a.day.localeCompare(b.day) ||
      (a.cluster ?? '').localeCompare(b.cluster ?? '') ||
      a.nodePool.localeCompare(b.nodePool) ||
      CATEGORY_ORDER.indexOf(a.category) - CATEGORY_ORDER.indexOf(b.category),
  );
}

/** Per NodePool (and cluster, when rows name theirs) over the range, by category; largest first ('' = no NodePool found, kept). */
export function curByNodePool(rows: readonly CurDailyRow[]): CurNodePoolTotal[] {
  const out = new Map<string, CurNodePoolTotal>();
  for (const r of rows) {
    const k = r.cluster === undefined ? r.nodePool : `${r.nodePool}\u0000${r.cluster}`;
    const t = out.get(k) ?? {
      nodePool: r.nodePool,
      ...(r.cluster === undefined ? {} : { cluster: r.cluster }),
      instancesUsd: 0,
      volumesUsd: 0,
      dataTransferUsd: 0,
      otherUsd: 0,
      totalUsd: 0,
    };
    if (r.category === 'instances') t.instancesUsd += r.billUsd;
    else if (r.category === 'volumes') t.volumesUsd += r.billUsd;
    else if (r.category === 'data-transfer') t.dataTransferUsd += r.billUsd;
    else t.otherUsd += r.billUsd;
    t.totalUsd += r.billUsd;
    out.set(k, t);
  }
  return [...out.values()].sort(
    (a, b) => b.totalUsd - a.totalUsd || a.nodePool.localeCompare(b.nodePool) || (a.cluster ?? '').localeCompare(b.cluster ?? ''),
  );
}

/**
 * Per day: the CUR, Cost Explorer (bill rows in the metric, storage and network included) and our estimate (instances
 * only, as it always is). `days` lists every day of the range.
 */
export function curReconciliation(
  days: readonly string[],
  cur: readonly CurDailyRow[],
  costExplorer: readonly Pick<DailyCostRow, 'day' | 'billUsd' | 'estimateUsd'>[],
): CurReconciliationDay[] {
  const sumBy = <R>(list: readonly R[], day: string, pick: (r: R) => number | null, dayOf: (r: R) => string): number | null => {
    const values = list
      .filter((r) => dayOf(r) === day)
      .map(pick)
      .filter((v): v is number => v !== null);
    return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
  };
  return days.map((day) => {
    const curUsd = sumBy(
      cur,
      day,
      (r) => r.billUsd,
      (r) => r.day,
    );
    const costExplorerUsd = sumBy(
      costExplorer,
      day,
      (r) => r.billUsd,
      (r) => r.day,
    );
    const estimateUsd = sumBy(
      costExplorer,
      day,
      (r) => r.estimateUsd,
      (r) => r.day,
    );
    return {
      day,
      curUsd,
      costExplorerUsd,
      estimateUsd,
      curMinusEstimateUsd: curUsd === null ? null : curUsd - (estimateUsd ?? 0),
      curMinusCostExplorerUsd: curUsd === null || costExplorerUsd === null ? null : curUsd - costExplorerUsd,
    };
  });
}
