import { Type, type Static } from '@sinclair/typebox';
import { Nullable, rangeQueryProperties } from './analytics-common.js';
import { CapacityTypeSchema } from './reports.js';

/**
 * NodePool cost comparison (GET /api/nodepools/compare) and reconciliation of our estimate with the
 * Cost Explorer bill (GET /api/reconciliation/daily).
 */

export const NodePoolCompareQuerySchema = Type.Object(rangeQueryProperties, { additionalProperties: false });
export type NodePoolCompareQuery = Static<typeof NodePoolCompareQuerySchema>;

export const NodePoolCompareRowSchema = Type.Object({
  /** '' = nodes not launched by Karpenter. */
  nodePool: Type.String(),
  capacityType: CapacityTypeSchema,
  /** Σ price × hours, USD (our estimate from snapshots). */
  costUsd: Type.Number(),
  nodeHours: Type.Number(),
  nodesAvg: Type.Number(),
  vcpuHoursAllocatable: Type.Number(),
  memoryGiBHoursAllocatable: Type.Number(),
  vcpuHoursRequested: Type.Number(),
  memoryGiBHoursRequested: Type.Number(),
  /** The whole node cost ÷ allocatable vCPU-hours (not split between cpu and memory), USD. */
  usdPerVcpuHourAllocatable: Nullable(Type.Number()),
  usdPerGiBHourAllocatable: Nullable(Type.Number()),
  /** The whole node cost ÷ requested vCPU-hours: what a requested vCPU-hour really cost; null when nothing was requested. */
  usdPerVcpuHourRequested: Nullable(Type.Number()),
  usdPerGiBHourRequested: Nullable(Type.Number()),
  /** The same instances at the on-demand price, USD; null when an on-demand price was unknown for some snapshots. */
  onDemandEquivalentUsd: Nullable(Type.Number()),
  /** onDemandEquivalentUsd − costUsd (spot savings; 0 for on-demand), USD. */
  savingsUsd: Nullable(Type.Number()),
  /** savingsUsd ÷ onDemandEquivalentUsd. */
  savingsFraction: Nullable(Type.Number()),
});
export type NodePoolCompareRow = Static<typeof NodePoolCompareRowSchema>;

export const NodePoolCompareResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  /** By NodePool, then on-demand, spot, reserved. */
  rows: Type.Array(NodePoolCompareRowSchema),
  totals: Type.Object({
    costUsd: Type.Number(),
    nodeHours: Type.Number(),
    onDemandEquivalentUsd: Nullable(Type.Number()),
    savingsUsd: Nullable(Type.Number()),
  }),
});
export type NodePoolCompareResponse = Static<typeof NodePoolCompareResponseSchema>;

export const ReconciliationQuerySchema = Type.Object(rangeQueryProperties, { additionalProperties: false });
export type ReconciliationQuery = Static<typeof ReconciliationQuerySchema>;

/**
 * Why the bill and our estimate differ, most likely first:
 * - match: within 1 % (or 1 cent);
 * - bill-not-final: Cost Explorer still marks the day Estimated;
 * - no-bill: no bill line (tags not active as cost allocation tags, day not fetched yet, or cost under another tag value);
 * - no-estimate: no snapshots (the collector was not running) or a purchase type we cannot see in the cluster;
 * - untagged: the untagged line ('' NodePool): nodes without the karpenter.sh/nodepool tag, or hours billed before the tag landed;
 * - amortized-differs: AmortizedCost differs from UnblendedCost by > 1 % (Savings Plans, Reserved Instances);
 * - spot-price-within-hour: a spot line within 5 %: spot prices moving within the hour while we sample every few minutes;
 * - sampling: an on-demand line within 5 %: nodes started or stopped between snapshots;
 * - unexplained: none of the above.
 */
export const ReconciliationCauseSchema = Type.Union([
  Type.Literal('match'),
  Type.Literal('bill-not-final'),
  Type.Literal('no-bill'),
  Type.Literal('no-estimate'),
  Type.Literal('untagged'),
  Type.Literal('amortized-differs'),
  Type.Literal('spot-price-within-hour'),
  Type.Literal('sampling'),
  Type.Literal('unexplained'),
]);
export type ReconciliationCause = Static<typeof ReconciliationCauseSchema>;

export const ReconciliationRowSchema = Type.Object({
  /** UTC day, YYYY-MM-DD. */
  day: Type.String(),
  /** karpenter.sh/nodepool tag value; '' = untagged. */
  nodePool: Type.String(),
  capacityType: Nullable(CapacityTypeSchema),
  /** Cost Explorer PURCHASE_TYPE, as given. */
  purchaseType: Nullable(Type.String()),
  /** Cost Explorer UnblendedCost, USD. */
  billUsd: Nullable(Type.Number()),
  billAmortizedUsd: Nullable(Type.Number()),
  billEstimated: Type.Boolean(),
  /** Our estimate: Σ price × hours from snapshots, USD. */
  estimateUsd: Nullable(Type.Number()),
  /** bill − estimate, USD (missing side counted as 0). */
  differenceUsd: Type.Number(),
  /** differenceUsd ÷ estimate; null without an estimate. */
  differenceFraction: Nullable(Type.Number()),
  cause: ReconciliationCauseSchema,
  /** The cause in a sentence. */
  causeText: Type.String(),
});
export type ReconciliationRow = Static<typeof ReconciliationRowSchema>;

export const ReconciliationDaySchema = Type.Object({
  day: Type.String(),
  billUsd: Type.Number(),
  estimateUsd: Type.Number(),
  differenceUsd: Type.Number(),
  /** The cause of the row with the largest absolute difference that day. */
  mainCause: ReconciliationCauseSchema,
});

export const ReconciliationResponseSchema = Type.Object({
  /** First day (YYYY-MM-DD). */
  from: Type.String(),
  /** Day after the last (exclusive). */
  to: Type.String(),
  rows: Type.Array(ReconciliationRowSchema),
  days: Type.Array(ReconciliationDaySchema),
  totals: Type.Object({ billUsd: Type.Number(), estimateUsd: Type.Number(), differenceUsd: Type.Number() }),
});
export type ReconciliationResponse = Static<typeof ReconciliationResponseSchema>;
