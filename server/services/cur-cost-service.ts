import type { CurRepository } from '../../db/repositories/cur-repository.js';
import type { ReportsRepository } from '../../db/repositories/reports-repository.js';
import { DAY_MS } from '../../core/time.js';
import { curByNodePool, curDailyRows, curReconciliation } from '../analytics/cur-daily.js';
import { curSourceInfo, newestPerPeriod } from '../analytics/cur-source.js';
import { hasCommitments, mergeDailyCost } from '../analytics/daily-cost.js';
import { dayCeil, dayFloor, utcDay } from '../analytics/range.js';
import type { CurSourceInfo } from '../schemas/bill-cur.js';
import type { CurDailyQuery, CurDailyResponse } from '../schemas/cost-cur.js';
import { rangeOf, type RangeContext } from './analytics-range.js';

/** Which imports the CUR figures come from, in words. */
export function curSourceOf(cur: Pick<CurRepository, 'periods'>): CurSourceInfo {
  const periods = cur.periods();
  const chosen = newestPerPeriod(periods.map((p) => ({ source: p.source, billingPeriod: p.billingPeriod, importedAtMs: p.importedAt })));
  return curSourceInfo(chosen, periods.length - chosen.length);
}

/** A NodePool's bill from the CUR per day and category, and the CUR beside Cost Explorer and our estimate (GET /api/cost/cur/daily). */
export function createCurCostService(
  cur: Pick<CurRepository, 'nodePoolDays' | 'periods'>,
  reports: ReportsRepository,
  ctx: RangeContext,
  clusters: () => readonly { id: number; name: string }[] = () => [],
) {
  return {
    /**
     * `clusterId` on a ledger holding several clusters: the CUR lines whose cluster tag is its name (an untagged line
     * is no one cluster's: said in a note), beside its own Cost Explorer lines and estimate; null: every line, each
     * row naming its cluster tag. A one-cluster ledger: every line, as before.
     */
    daily(q: CurDailyQuery, clusterId: number | null = null): CurDailyResponse {
      const range = rangeOf(ctx, q, clusterId);
      const fromMs = dayFloor(range.fromMs);
      const toMs = Math.max(dayCeil(range.toMs), fromMs + DAY_MS);
      const held = clusters();
      const several = held.length > 1;
      const name = several && clusterId !== null ? (held.find((c) => c.id === clusterId)?.name ?? null) : null;
      const inRange = cur.nodePoolDays({ fromMs, toMs }).filter((r) => range.nodePool === undefined || r.nodePool === range.nodePool);
      const raw = name === null ? inRange : inRange.filter((r) => r.cluster === name);
      const bill = reports.billByDay({ fromMs, toMs, nodePool: range.nodePool, clusterId });
      // The same default as the Cost Explorer figures (amortized when commitments apply), so the two read alike.
      const commitments = hasCommitments(bill) || raw.some((r) => Math.abs(r.amortizedUsd - r.unblendedUsd) > 0.01);
      const metric = q.metric ?? (commitments ? 'amortized' : 'unblended');
      const rows = curDailyRows(raw, metric, several && clusterId === null);
      const merged = mergeDailyCost(bill, reports.estimateByDay({ fromMs, toMs, nodePool: range.nodePool, clusterId }), metric);
      const days: string[] = [];
      for (let t = fromMs; t < toMs; t += DAY_MS) days.push(utcDay(t));
      const reconciliation = curReconciliation(days, rows, merged);
      const covered = reconciliation.filter((d) => d.curUsd !== null);
      const notes: string[] = [];
      if (rows.length === 0)
        notes.push('No Cost and Usage Report lines in this range: import an export with nodepool-ledger cur import PATH|s3://…');
      const unattributed = rows.filter((r) => r.nodePool === '').reduce((t, r) => t + r.billUsd, 0);
      if (unattributed > 0.005 && range.nodePool === undefined) {
        notes.push(
          `$${unattributed.toFixed(2)} of EC2 lines carry no karpenter.sh/nodepool tag and no NodeClaim we know by instance id (NodePool "").`,
        );
      }
      if (name !== null) {
        const untagged = curDailyRows(
          inRange.filter((r) => r.cluster === ''),
          metric,
        ).reduce((t, r) => t + r.billUsd, 0);
        if (untagged > 0.005)
          notes.push(
            `$${untagged.toFixed(2)} of CUR lines in this range carry no cluster tag (eks:eks-cluster-name): in no one cluster's figures, counted without cluster (all clusters).`,
          );
      }
      const filled = rows.reduce((t, r) => t + r.byNodeClaimUsd, 0);
      if (filled > 0.005)
        notes.push(`$${filled.toFixed(2)} found its NodePool through our NodeClaims by instance id (the tag was missing on the line).`);
      return {
        from: utcDay(fromMs),
        to: utcDay(toMs),
        metric,
        available: rows.length > 0,
        source: curSourceOf(cur),
        rows,
        byNodePool: curByNodePool(rows),
        reconciliation,
        totals: {
          curUsd: covered.reduce((t, d) => t + (d.curUsd ?? 0), 0),
          costExplorerUsd: covered.reduce((t, d) => t + (d.costExplorerUsd ?? 0), 0),
          estimateUsd: covered.reduce((t, d) => t + (d.estimateUsd ?? 0), 0),
        },
        notes,
      };
    },
  };
}

export type CurCostService = ReturnType<typeof createCurCostService>;
