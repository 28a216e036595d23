import { Type, type Static } from '@sinclair/typebox';
import { NodeClaimReasonsSchema, NODEPOOL_OR_UNTAGGED_PATTERN, DAY_PATTERN } from './bill.js';
import { CostMetricSchema } from './cost.js';
import { FormatSchema, Nullable } from './common.js';

/**
 * "Explain this bill" over the Cost and Usage Report (GET /api/bill/cur/lines, /api/bill/cur/explain): the CUR's
 * per-resource daily lines as imported (`nodepool-ledger cur import`), a resource-day taken apart like a Cost
 * Explorer line — which NodePool and NodeClaim, the resource id, the line item type, the commitment (Savings Plan
 * or reservation ARN) that covered it, and usage amount × rate, amortized against unblended.
 * Money is USD; `billUsd` is in the response's metric.
 */

/** Where the CUR figures come from: the import sources and billing periods read, newest import per period. */
export const CurSourceInfoSchema = Type.Object({
  /** Sources read (`/path/to/export`, `s3://bucket/prefix/export`, `athena:db.table`), one per billing period. */
  sources: Type.Array(Type.String()),
  /** YYYY-MM billing periods imported, oldest first. */
  billingPeriods: Type.Array(Type.String()),
  /** When the newest of those periods was imported, ISO 8601 UTC; null when nothing is imported. */
  importedAt: Nullable(Type.String()),
  /** In words, e.g. "CUR 2.0 export s3://…/ledger, billing periods 2026-11, imported 2026-12-02T06:00:00Z". */
  text: Type.String(),
});
export type CurSourceInfo = Static<typeof CurSourceInfoSchema>;

export const CurLinesQuerySchema = Type.Object(
  {
    day: Type.Optional(Type.String({ pattern: DAY_PATTERN, description: 'A UTC day, YYYY-MM-DD. Default: the newest day of the CUR.' })),
    nodepool: Type.Optional(
      Type.String({ pattern: NODEPOOL_OR_UNTAGGED_PATTERN, maxLength: 253, description: "Only this NodePool ('' = no NodePool)." }),
    ),
    metric: Type.Optional(CostMetricSchema),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type CurLinesQuery = Static<typeof CurLinesQuerySchema>;

export const ResourceKindSchema = Type.Union([Type.Literal('instance'), Type.Literal('volume'), Type.Literal('other')]);

/** One resource's CUR lines of the day, summed (expand it with /api/bill/cur/explain?resource=). */
export const CurResourceSchema = Type.Object({
  resourceId: Type.String(),
  resourceKind: ResourceKindSchema,
  /** instances | volumes | data-transfer | other. */
  category: Type.String(),
  /** '' = no NodePool tag and no NodeClaim we know by instance id. */
  nodePool: Type.String(),
  /** '' = unknown (volumes never carry one). */
  nodeClaim: Type.String(),
  /**
   * The EKS cluster of the resource: its cluster tag, else the cluster of the NodeClaim we collected with its instance
   * id ('' = neither). Named when the ledger holds several clusters.
   */
  cluster: Type.Optional(Type.String()),
  lineItemTypes: Type.Array(Type.String()),
  usageTypes: Type.Array(Type.String()),
  /** True when a Savings Plan or reservation covered some of it. */
  committed: Type.Boolean(),
  billUsd: Type.Number(),
  unblendedUsd: Type.Number(),
  amortizedUsd: Type.Number(),
});
export type CurResource = Static<typeof CurResourceSchema>;

export const CurLinesResponseSchema = Type.Object({
  source: CurSourceInfoSchema,
  metric: CostMetricSchema,
  /** UTC days with CUR resource lines, oldest first (for a picker). */
  days: Type.Array(Type.String()),
  /** The day shown; null when the CUR holds none. */
  day: Nullable(Type.String()),
  /** Largest bill first. */
  resources: Type.Array(CurResourceSchema),
  totals: Type.Object({
    billUsd: Type.Number(),
    /** Per NodePool ('' = none), largest first; per cluster and NodePool when the ledger holds several clusters. */
    byNodePool: Type.Array(
      Type.Object({ nodePool: Type.String(), cluster: Type.Optional(Type.String()), billUsd: Type.Number(), resources: Type.Integer() }),
    ),
  }),
});
export type CurLinesResponse = Static<typeof CurLinesResponseSchema>;

export const CurExplainQuerySchema = Type.Object(
  {
    day: Type.Optional(Type.String({ pattern: DAY_PATTERN, description: 'A UTC day, YYYY-MM-DD. Default: the newest day of the CUR.' })),
    resource: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9:/._-]{0,199}$',
        maxLength: 200,
        description: 'A resource id (i-…, vol-…). Default: every resource of the day (of `nodepool`), without NodeClaim reasons.',
      }),
    ),
    nodepool: Type.Optional(Type.String({ pattern: NODEPOOL_OR_UNTAGGED_PATTERN, maxLength: 253 })),
    metric: Type.Optional(CostMetricSchema),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type CurExplainQuery = Static<typeof CurExplainQuerySchema>;

export const CurCommitmentSchema = Type.Object({
  kind: Type.Union([Type.Literal('savings-plan'), Type.Literal('reservation')]),
  arn: Type.String(),
});

/** One CUR line (per resource, day, line item type, usage type) and why it costs what it does. */
export const CurExplainedLineSchema = Type.Object({
  day: Type.String(),
  resourceId: Type.String(),
  /** line_item_line_item_type: Usage, SavingsPlanCoveredUsage, SavingsPlanNegation, DiscountedUsage, Credit, … */
  lineItemType: Type.String(),
  usageType: Type.String(),
  productCode: Type.String(),
  nodePool: Nullable(Type.String()),
  nodeClaim: Nullable(Type.String()),
  commitment: Nullable(CurCommitmentSchema),
  usageAmount: Type.Number(),
  unblendedUsd: Type.Number(),
  amortizedUsd: Type.Number(),
  netUnblendedUsd: Nullable(Type.Number()),
  netAmortizedUsd: Nullable(Type.Number()),
  publicOnDemandUsd: Nullable(Type.Number()),
  /** In the response's metric. */
  billUsd: Type.Number(),
  /** unblended ÷ usage amount (USD per hour, GB-month, GB…); null without usage. */
  unblendedRateUsd: Nullable(Type.Number()),
  amortizedRateUsd: Nullable(Type.Number()),
  /** Usage × rate, and what the commitment made of it, in words. */
  text: Type.String(),
});
export type CurExplainedLine = Static<typeof CurExplainedLineSchema>;

/** The NodeClaim we collected with this instance id: its life that day, our estimate at public prices, and why it exists. */
export const CurNodeClaimSchema = Type.Object({
  nodeName: Type.String(),
  nodeClaim: Nullable(Type.String()),
  nodePool: Nullable(Type.String()),
  instanceType: Type.String(),
  capacityType: Type.String(),
  zone: Type.String(),
  launchedAt: Type.String(),
  removedAt: Nullable(Type.String()),
  /** Its hours inside the day (as far as snapshots know). */
  hours: Type.Number(),
  /** Our estimate of those hours at the prices then in effect, USD; null without a price. */
  estimateUsd: Nullable(Type.Number()),
  priceSource: Type.String(),
  /** Why Karpenter launched it this size and type, and how it went; null when not asked (a whole day). */
  reasons: Nullable(NodeClaimReasonsSchema),
});
export type CurNodeClaim = Static<typeof CurNodeClaimSchema>;

export const CurResourceExplanationSchema = Type.Object({
  day: Type.String(),
  resourceId: Type.String(),
  resourceKind: ResourceKindSchema,
  nodePool: Nullable(Type.String()),
  nodeClaim: Nullable(Type.String()),
  /**
   * The EKS cluster of the resource: its cluster tag, else the cluster of the NodeClaim we collected with its instance
   * id ('' = neither). Named when the ledger holds several clusters.
   */
  cluster: Type.Optional(Type.String()),
  metric: CostMetricSchema,
  /** Σ lines in the metric. */
  billUsd: Type.Number(),
  totals: Type.Object({
    unblendedUsd: Type.Number(),
    amortizedUsd: Type.Number(),
    netUnblendedUsd: Type.Number(),
    netAmortizedUsd: Type.Number(),
  }),
  /** Usage first, then what commitments, negations and credits did. */
  lines: Type.Array(CurExplainedLineSchema),
  node: Nullable(CurNodeClaimSchema),
  summary: Type.String(),
  notes: Type.Array(Type.String()),
});
export type CurResourceExplanation = Static<typeof CurResourceExplanationSchema>;

export const CurExplainResponseSchema = Type.Object({
  source: CurSourceInfoSchema,
  metric: CostMetricSchema,
  /** null when the CUR holds no day. */
  day: Nullable(Type.String()),
  /** Largest bill first. */
  explanations: Type.Array(CurResourceExplanationSchema),
  /** Resources of the day left out past the first 200 (ask for one with `resource`). */
  omitted: Type.Integer(),
});
export type CurExplainResponse = Static<typeof CurExplainResponseSchema>;
