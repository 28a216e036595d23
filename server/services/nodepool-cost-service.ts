import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import type { ReportsRepository } from '../../db/repositories/reports-repository.js';
import { hasCommitments, mergeDailyCost } from '../analytics/daily-cost.js';
import { nodePoolCompareRows, nodePoolCompareTotals } from '../analytics/nodepool-cost.js';
import { dayCeil, dayFloor, isoInstant, utcDay } from '../analytics/range.js';
import { gapByCause, reconcileDays, reconcileRows } from '../analytics/reconciliation.js';
import type { NodePoolCompareResponse, NodePoolCompareRow } from '../schemas/nodepools.js';
import type { CostMetric, ReconciliationResponse } from '../schemas/cost.js';
import { rangeOf, type RangeContext } from './analytics-range.js';

/** NodePool x capacity type cost comparison, and the bill reconciled with our estimate per day. */
export function createNodePoolCostService(packing: AnalyticsPackingRepository, reports: ReportsRepository, ctx: RangeContext) {
  return {
    /** Over one cluster (clusterId) or every cluster of the ledger (null: their NodePools' sums added up). */
    compare(q: { from?: string; to?: string; nodepool?: string }, clusterId: number | null = null): NodePoolCompareResponse {
      const range = rangeOf(ctx, q, clusterId);
      const rows = nodePoolCompareRows(packing.poolSums(range), packing.coverage(range).hours);
      return { from: isoInstant(range.fromMs), to: isoInstant(range.toMs), rows, totals: nodePoolCompareTotals(rows) };
    },

    /**
     * The comparison at one snapshot, per hour: costUsd is USD/h, savingsUsd the spot savings in USD/h, nodesAvg the
     * nodes then (the rows of that snapshot as one hour's sums). The exposition's "now" (server/metrics/).
     */
    atSnapshot(takenAtMs: number): NodePoolCompareRow[] {
      return nodePoolCompareRows(packing.poolRowsAt(takenAtMs), 1);
    },

    /** Whole UTC days (from rounded down, to rounded up), as the bill comes per day. */
    reconciliation(
      q: { from?: string; to?: string; nodepool?: string; metric?: CostMetric },
      clusterId: number | null = null,
    ): ReconciliationResponse {
      const range = rangeOf(ctx, q, clusterId);
      const days = { fromMs: dayFloor(range.fromMs), toMs: dayCeil(range.toMs), nodePool: range.nodePool, clusterId };
      const bill = reports.billByDay(days);
      const commitments = hasCommitments(bill);
      const metric = q.metric ?? (commitments ? 'amortized' : 'unblended');
      const merged = mergeDailyCost(bill, reports.estimateByDay(days), metric);
      const rows = reconcileRows(merged);
      const billUsd = rows.reduce((t, r) => t + (r.billUsd ?? 0), 0);
      const estimateUsd = rows.reduce((t, r) => t + (r.estimateUsd ?? 0), 0);
      return {
        from: utcDay(days.fromMs),
        to: utcDay(days.toMs),
        metric,
        commitments,
        causes: gapByCause(merged, metric),
        rows,
        days: reconcileDays(rows),
        totals: { billUsd, estimateUsd, differenceUsd: billUsd - estimateUsd },
      };
    },
  };
}

export type NodePoolCostService = ReturnType<typeof createNodePoolCostService>;
