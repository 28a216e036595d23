import { Type, type Static } from '@sinclair/typebox';
import { CapacityTypeSchema, CurrencySchema, Nullable, rangeQueryProperties } from './common.js';

/**
 * What the cluster cost: GET /api/cost/nodepools/daily (the Cost Explorer bill and our estimate per UTC day x
 * NodePool x purchase kind) and GET /api/reconciliation/daily (the two side by side, the difference and its likely
 * cause).
 */

/**
 * The Cost Explorer metric bill figures are read in: UnblendedCost, AmortizedCost (Savings Plans and Reserved
 * Instances spread over the usage they cover), NetUnblendedCost / NetAmortizedCost (after credits and private discounts).
 */
export const CostMetricSchema = Type.Union(
  [Type.Literal('unblended'), Type.Literal('amortized'), Type.Literal('net-unblended'), Type.Literal('net-amortized')],
  { description: 'The Cost Explorer cost metric of bill figures. Default: amortized when commitments apply in the range, else unblended.' },
);
export type CostMetric = Static<typeof CostMetricSchema>;

/** The range query of bill routes, with the metric. */
export const billQueryProperties = { ...rangeQueryProperties, metric: Type.Optional(CostMetricSchema) };

/** Which part of a NodePool's bill a row is: its instances, or its volumes and network ("EC2 - Other"). */
export const CostBandSchema = Type.Union([Type.Literal('compute'), Type.Literal('storage-network')]);
export type CostBand = Static<typeof CostBandSchema>;

export const DailyCostQuerySchema = Type.Object(billQueryProperties, { additionalProperties: false });
export type DailyCostQuery = Static<typeof DailyCostQuerySchema>;

/**
 * One UTC day x NodePool x purchase kind. A Cost Explorer purchase type and our capacity type share a
 * row when they are billed the same ("On Demand Instances" = on-demand and reserved, "Spot Instances" = spot);
 * other purchase types (Savings Plans, Reserved Instances, ...) get rows of their own with no estimate.
 */
export const DailyCostRowSchema = Type.Object({
  /** UTC day start, YYYY-MM-DD. */
  day: Type.String(),
  /** karpenter.sh/nodepool value; '' = untagged bill lines / nodes without a NodePool. */
  nodePool: Type.String(),
  /** Cost Explorer PURCHASE_TYPE value, as given; null for estimate-only rows. */
  purchaseType: Nullable(Type.String()),
  /** Our capacity type; null where a purchase type has no Karpenter equivalent. */
  capacityType: Nullable(CapacityTypeSchema),
  /** compute: instance hours; storage-network: the NodePool's volumes and data transfer (EC2 - Other, no estimate). */
  band: CostBandSchema,
  /** The bill in the response's metric, USD; null when the bill has no line for this row. */
  billUsd: Nullable(Type.Number()),
  /** Cost Explorer UnblendedCost, USD; null when the bill has no line for this row. */
  billUnblendedUsd: Nullable(Type.Number()),
  /** Cost Explorer AmortizedCost, USD (differs from unblended under Savings Plans / RIs); null if not fetched. */
  billAmortizedUsd: Nullable(Type.Number()),
  /** NetUnblendedCost, USD (after credits and private discounts); null if not fetched (lines synced before it was asked for). */
  billNetUnblendedUsd: Nullable(Type.Number()),
  /** NetAmortizedCost, USD; null if not fetched. */
  billNetAmortizedUsd: Nullable(Type.Number()),
  /** True when Cost Explorer still marks the day as estimated (not final). */
  billEstimated: Type.Boolean(),
  /** Our estimate from snapshots (Σ price per hour × hours, intervals capped at 15 min), USD; null if none. */
  estimateUsd: Nullable(Type.Number()),
  /**
   * The part of estimateUsd that ran in on-demand capacity reservations (capacity type `reserved`), USD; null if
   * none. AWS bills it at the on-demand rate under On Demand Instances, so it is estimated in the on-demand row.
   */
  estimateReservedUsd: Nullable(Type.Number()),
});
export type DailyCostRow = Static<typeof DailyCostRowSchema>;

export const DailyCostResponseSchema = Type.Object({
  /** First day (YYYY-MM-DD); `from` rounded down to UTC midnight. */
  from: Type.String(),
  /** Day after the last (exclusive, YYYY-MM-DD); `to` rounded up to UTC midnight. */
  to: Type.String(),
  /** The currency of every amount (CNY for a China cluster). */
  currency: CurrencySchema,
  /** The metric billUsd is in (asked for, or the default). */
  metric: CostMetricSchema,
  /** True when commitments (Savings Plans, RIs) apply in the range: amortized differs from unblended somewhere. */
  commitments: Type.Boolean(),
  /** Sorted by day, NodePool, then purchase kind. */
  rows: Type.Array(DailyCostRowSchema),
  totals: Type.Object({
    /** Σ bill in the metric, USD. */
    billUsd: Type.Number(),
    /** Σ estimate, USD. */
    estimateUsd: Type.Number(),
    /** Σ bill of the storage-network band (volumes, data transfer), in the metric, USD. */
    storageNetworkUsd: Type.Number(),
  }),
});
export type DailyCostResponse = Static<typeof DailyCostResponseSchema>;

export const ReconciliationQuerySchema = Type.Object(billQueryProperties, { additionalProperties: false });
export type ReconciliationQuery = Static<typeof ReconciliationQuerySchema>;

/**
 * Why the bill and our estimate differ, most likely first:
 * - match: within 1 % (or 1 cent);
 * - bill-not-final: Cost Explorer still marks the day Estimated;
 * - no-bill: no bill line (tags not active as cost allocation tags, day not fetched yet, or cost under another tag value);
 * - no-estimate: no snapshots (the collector was not running) or a purchase type we cannot see in the cluster;
 * - untagged: the untagged line ('' NodePool): nodes without the karpenter.sh/nodepool tag, or hours billed before the tag landed;
 * - amortized-differs: AmortizedCost differs from UnblendedCost by > 1 % (Savings Plans, Reserved Instances);
 * - volumes: a storage-network row (volumes, data transfer), which our estimate does not cover;
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
  Type.Literal('volumes'),
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
  /** Cost Explorer PURCHASE_TYPE, as given ("EC2 - Other" for the storage-network band). */
  purchaseType: Nullable(Type.String()),
  band: CostBandSchema,
  /** The bill in the response's metric, USD. */
  billUsd: Nullable(Type.Number()),
  billUnblendedUsd: Nullable(Type.Number()),
  billAmortizedUsd: Nullable(Type.Number()),
  billNetUnblendedUsd: Nullable(Type.Number()),
  billNetAmortizedUsd: Nullable(Type.Number()),
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

/**
 * The gap between the bill and our estimate, by cause, USD (bill side minus estimate side; + = the bill is higher).
 * Where the data cannot give a cause's amount it is null, never a guess.
 */
export const GapCauseKeySchema = Type.Union([
  Type.Literal('commitments'),
  Type.Literal('credits-discounts'),
  Type.Literal('volumes'),
  Type.Literal('untagged'),
  Type.Literal('spot-within-hour'),
  Type.Literal('other'),
]);
export type GapCauseKey = Static<typeof GapCauseKeySchema>;

export const GapCauseSchema = Type.Object({
  cause: GapCauseKeySchema,
  /** USD; null where the data does not give the amount. */
  amountUsd: Nullable(Type.Number()),
  /** How the amount is worked out, in a sentence. */
  text: Type.String(),
});
export type GapCause = Static<typeof GapCauseSchema>;

export const ReconciliationResponseSchema = Type.Object({
  /** First day (YYYY-MM-DD). */
  from: Type.String(),
  /** Day after the last (exclusive). */
  to: Type.String(),
  /** The metric of every bill figure. */
  metric: CostMetricSchema,
  commitments: Type.Boolean(),
  /** The total gap (bill in the metric − estimate) split by cause; the amounts add up to totals.differenceUsd. */
  causes: Type.Array(GapCauseSchema),
  rows: Type.Array(ReconciliationRowSchema),
  days: Type.Array(ReconciliationDaySchema),
  totals: Type.Object({ billUsd: Type.Number(), estimateUsd: Type.Number(), differenceUsd: Type.Number() }),
});
export type ReconciliationResponse = Static<typeof ReconciliationResponseSchema>;
