import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository';
import type { ReportsRepository } from '../../db/repositories/reports-repository';
import { mergeDailyCost } from '../analytics/daily-cost';
import { nodePoolCompareRows, nodePoolCompareTotals } from '../analytics/nodepool-cost';
import { dayCeil, dayFloor, isoInstant, utcDay } from '../analytics/range';
import { reconcileDays, reconcileRows } from '../analytics/reconciliation';
import type { NodePoolCompareResponse, ReconciliationResponse } from '../schemas/nodepool-cost';
import { rangeOf, type RangeContext } from './analytics-range';

/** NodePool x capacity type cost comparison, and the bill reconciled with our estimate per day. */
export function createNodePoolCostService(packing: AnalyticsPackingRepository, reports: ReportsRepository, ctx: RangeContext) {
  return {
    compare(q: { from?: string; to?: string; nodepool?: string }): NodePoolCompareResponse {
      const range = rangeOf(ctx, q);
      const rows = nodePoolCompareRows(packing.poolSums(range), packing.coverage(range).hours);
      return { from: isoInstant(range.fromMs), to: isoInstant(range.toMs), rows, totals: nodePoolCompareTotals(rows) };
    },

    /** Whole UTC days (from rounded down, to rounded up), as the bill comes per day. */
    reconciliation(q: { from?: string; to?: string; nodepool?: string }): ReconciliationResponse {
      const range = rangeOf(ctx, q);
      const days = { fromMs: dayFloor(range.fromMs), toMs: dayCeil(range.toMs), nodePool: range.nodePool };
      const rows = reconcileRows(mergeDailyCost(reports.billByDay(days), reports.estimateByDay(days)));
      const billUsd = rows.reduce((t, r) => t + (r.billUsd ?? 0), 0);
      const estimateUsd = rows.reduce((t, r) => t + (r.estimateUsd ?? 0), 0);
      return {
        from: utcDay(days.fromMs), to: utcDay(days.toMs), rows, days: reconcileDays(rows),
        totals: { billUsd, estimateUsd, differenceUsd: billUsd - estimateUsd },
      };
    },
  };
}

export type NodePoolCostService = ReturnType<typeof createNodePoolCostService>;
