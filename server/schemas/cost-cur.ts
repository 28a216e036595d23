import { Type, type Static } from '@sinclair/typebox';
import { CurSourceInfoSchema } from './bill-cur.js';
import { billQueryProperties, CostMetricSchema } from './cost.js';
import { Nullable } from './common.js';

/**
 * A NodePool's bill from the Cost and Usage Report (GET /api/cost/cur/daily): per UTC day x NodePool x category
 * (instances, volumes, data transfer, other) in the chosen metric, and the reconciliation the CUR adds — per day the
 * CUR, Cost Explorer and our estimate side by side. USD.
 */

export const CurDailyQuerySchema = Type.Object(billQueryProperties, { additionalProperties: false });
export type CurDailyQuery = Static<typeof CurDailyQuerySchema>;

export const CurCategorySchema = Type.Union([
  Type.Literal('instances'),
  Type.Literal('volumes'),
  Type.Literal('data-transfer'),
  Type.Literal('other'),
]);
export type CurCategory = Static<typeof CurCategorySchema>;

export const CurDailyRowSchema = Type.Object({
  /** UTC day, YYYY-MM-DD. */
  day: Type.String(),
  /**
   * The lines' cluster tag (eks:eks-cluster-name; '' = none): only without `cluster` on a ledger holding several
   * clusters, where each cluster's NodePools are rows of their own.
   */
  cluster: Type.Optional(Type.String()),
  /** karpenter.sh/nodepool (the tag, or our NodeClaim of the instance id); '' = none found. */
  nodePool: Type.String(),
  category: CurCategorySchema,
  /** In the response's metric. */
  billUsd: Type.Number(),
  unblendedUsd: Type.Number(),
  amortizedUsd: Type.Number(),
  netUnblendedUsd: Type.Number(),
  netAmortizedUsd: Type.Number(),
  publicOnDemandUsd: Type.Number(),
  /** Part of billUsd whose NodePool came from our NodeClaims (the instance's tag was missing). */
  byNodeClaimUsd: Type.Number(),
});
export type CurDailyRow = Static<typeof CurDailyRowSchema>;

/** One NodePool over the range, by category, in the metric. */
export const CurNodePoolTotalSchema = Type.Object({
  nodePool: Type.String(),
  /** As the rows': only when they name their cluster (two clusters' `general` are two totals). */
  cluster: Type.Optional(Type.String()),
  instancesUsd: Type.Number(),
  volumesUsd: Type.Number(),
  dataTransferUsd: Type.Number(),
  otherUsd: Type.Number(),
  totalUsd: Type.Number(),
});
export type CurNodePoolTotal = Static<typeof CurNodePoolTotalSchema>;

/** One UTC day: the three figures of the NodePools' cost (or one NodePool's with `nodepool`). */
export const CurReconciliationDaySchema = Type.Object({
  day: Type.String(),
  /** The CUR in the metric, USD; null without CUR lines that day. */
  curUsd: Nullable(Type.Number()),
  /** Cost Explorer in the metric, USD; null without a synced bill that day. */
  costExplorerUsd: Nullable(Type.Number()),
  /** Our estimate from snapshots (instances only), USD; null without snapshots. */
  estimateUsd: Nullable(Type.Number()),
  /** curUsd − estimateUsd (missing side as 0); null without CUR lines. */
  curMinusEstimateUsd: Nullable(Type.Number()),
  /** curUsd − costExplorerUsd; null when either is missing. */
  curMinusCostExplorerUsd: Nullable(Type.Number()),
});
export type CurReconciliationDay = Static<typeof CurReconciliationDaySchema>;

export const CurDailyResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  metric: CostMetricSchema,
  /** True when the CUR has NodePool lines in the range. */
  available: Type.Boolean(),
  source: CurSourceInfoSchema,
  /** By day, NodePool, category. */
  rows: Type.Array(CurDailyRowSchema),
  /** Largest first. */
  byNodePool: Type.Array(CurNodePoolTotalSchema),
  reconciliation: Type.Array(CurReconciliationDaySchema),
  totals: Type.Object({
    /** Σ CUR in the metric. */
    curUsd: Type.Number(),
    /** Σ Cost Explorer and Σ estimate over the days the CUR covers only (so the three compare). */
    costExplorerUsd: Type.Number(),
    estimateUsd: Type.Number(),
  }),
  notes: Type.Array(Type.String()),
});
export type CurDailyResponse = Static<typeof CurDailyResponseSchema>;
