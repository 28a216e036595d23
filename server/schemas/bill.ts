import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, FormatSchema, ISO_DATE_OR_DATE_TIME_PATTERN, Nullable } from './common.js';

/**
 * The API contract of "Explain this bill": TypeBox schemas give Fastify its validation and serialization, and
 * `Static<>` gives the TypeScript types that web/ imports (type-only).
 *
 * Units: money is USD (Cost Explorer UnblendedCost unless named otherwise), hours are decimal hours, prices are
 * USD per hour, cpu in millicores, memory in bytes. Instants are ISO 8601 UTC strings. A bill line covers
 * [periodStart, periodEnd): one UTC day for DAILY lines, one hour for HOURLY, one calendar month for MONTHLY.
 */

/** A karpenter.sh/nodepool tag value, or '' for the untagged line. */
export const NODEPOOL_OR_UNTAGGED_PATTERN = '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$';
/** `cost-explorer` (synced) or `csv:<name>` (imported). */
export const BILL_SOURCE_PATTERN = '^(cost-explorer|csv:[A-Za-z0-9][A-Za-z0-9._-]{0,63})$';
/** The name an import is stored under (becomes `csv:<name>`). */
export const IMPORT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
export const DAY_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

const IsoInstant = (description: string) => Type.String({ pattern: ISO_DATE_OR_DATE_TIME_PATTERN, maxLength: 40, description });

export const BillGroupBySchema = Type.Union([
  Type.Literal('PURCHASE_TYPE'),
  Type.Literal('INSTANCE_TYPE'),
  Type.Literal('RESOURCE_ID'),
  Type.Literal('USAGE_TYPE'),
  /** Grouped by the NodePool tag only (a Cost Explorer console CSV export has one grouping). */
  Type.Literal('NONE'),
]);
/** The second grouping of a line (the first is always the karpenter.sh/nodepool tag). */
export type BillGroupBy = Static<typeof BillGroupBySchema>;

export const BillGranularitySchema = Type.Union([Type.Literal('HOURLY'), Type.Literal('DAILY'), Type.Literal('MONTHLY')]);
export type BillGranularity = Static<typeof BillGranularitySchema>;

export const BillLineSchema = Type.Object({
  /** Row id to pass to /api/bill/explain; null for lines that are not stored (practice bills). */
  id: Nullable(Type.Integer()),
  /** `cost-explorer`, `csv:<name>`, or `practice:<seed>`. */
  source: Type.String(),
  granularity: BillGranularitySchema,
  /** ISO 8601 UTC, inclusive. */
  periodStart: Type.String(),
  /** ISO 8601 UTC, exclusive. */
  periodEnd: Type.String(),
  /** karpenter.sh/nodepool tag value; '' = untagged (nodes without the tag, or every node when the tag is not active). */
  nodePool: Type.String(),
  groupBy: BillGroupBySchema,
  /** The purchase type ("On Demand Instances", "Spot Instances"), instance type or instance id; '' when groupBy is NONE. */
  dimensionValue: Type.String(),
  /** UnblendedCost, in `currency` (the name predates currencies). */
  unblendedUsd: Type.Number(),
  /** USD, or CNY for a China account's bill (Cost Explorer's Unit); imported CSVs are USD. */
  currency: CurrencySchema,
  /** AmortizedCost, in `currency`; null when the source did not carry it. */
  amortizedUsd: Nullable(Type.Number()),
  usageQuantity: Nullable(Type.Number()),
  usageUnit: Nullable(Type.String()),
  /** Cost Explorer still calls the period an estimate (not final). */
  estimated: Type.Boolean(),
  /**
   * The EKS cluster the line is of (its eks:eks-cluster-name tag), named when the ledger holds several clusters
   * (absent in a one-cluster ledger, which answers as it always did).
   */
  cluster: Type.Optional(Type.String()),
});
export type BillLine = Static<typeof BillLineSchema>;

export const BillSourceSummarySchema = Type.Object({
  source: Type.String(),
  /** 'cost-explorer' (synced) or 'csv' (imported). */
  kind: Type.Union([Type.Literal('cost-explorer'), Type.Literal('csv')]),
  lines: Type.Integer(),
  groupBys: Type.Array(BillGroupBySchema),
  /** First and last period start, ISO 8601 UTC. */
  firstPeriod: Type.String(),
  lastPeriod: Type.String(),
  /** For imports: when, and the uploaded file's name; null for synced lines. */
  importedAt: Nullable(Type.String()),
  fileName: Nullable(Type.String()),
});
export type BillSourceSummary = Static<typeof BillSourceSummarySchema>;

export const BillLinesQuerySchema = Type.Object(
  {
    source: Type.Optional(Type.String({ pattern: BILL_SOURCE_PATTERN, maxLength: 80, description: 'Default: cost-explorer.' })),
    from: Type.Optional(IsoInstant('Inclusive start (UTC). Default: 14 days before `to`.')),
    to: Type.Optional(IsoInstant('Exclusive end (UTC). Default: the UTC midnight after the newest line of the source.')),
    groupBy: Type.Optional(BillGroupBySchema),
    granularity: Type.Optional(BillGranularitySchema),
    nodepool: Type.Optional(
      Type.String({ pattern: NODEPOOL_OR_UNTAGGED_PATTERN, maxLength: 253, description: "Only this NodePool ('' = untagged)." }),
    ),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type BillLinesQuery = Static<typeof BillLinesQuerySchema>;

export const BillLinesResponseSchema = Type.Object({
  source: Type.String(),
  from: Type.String(),
  to: Type.String(),
  /**
   * The grouping shown. One source can hold the same money grouped two ways (PURCHASE_TYPE and INSTANCE_TYPE):
   * lines and totals are of one grouping only, so they add up. Default: PURCHASE_TYPE, else the first available.
   */
  groupBy: BillGroupBySchema,
  availableGroupBys: Type.Array(BillGroupBySchema),
  /** Likewise one granularity (HOURLY lines repeat the DAILY money): DAILY where the grouping has it. */
  granularity: BillGranularitySchema,
  availableGranularities: Type.Array(BillGranularitySchema),
  /** Every source in the database, for a picker. */
  sources: Type.Array(BillSourceSummarySchema),
  /** The currency of every amount below: the source's (a China account's bill is CNY; imported CSVs are USD). */
  currency: CurrencySchema,
  /** Sorted by period, NodePool, dimension value. */
  lines: Type.Array(BillLineSchema),
  totals: Type.Object({
    unblendedUsd: Type.Number(),
    /**
     * Per NodePool ('' = untagged), sorted by name; in a ledger of several clusters per cluster and NodePool (two
     * clusters' `default` are two rows), sorted by NodePool then cluster.
     */
    byNodePool: Type.Array(
      Type.Object({ nodePool: Type.String(), cluster: Type.Optional(Type.String()), unblendedUsd: Type.Number(), lines: Type.Integer() }),
    ),
  }),
});
export type BillLinesResponse = Static<typeof BillLinesResponseSchema>;

export const BillExplainQuerySchema = Type.Object(
  {
    lineId: Type.Optional(Type.Integer({ minimum: 1, description: 'A stored line (from /api/bill/lines).' })),
    // Or the line's key:
    source: Type.Optional(Type.String({ pattern: BILL_SOURCE_PATTERN, maxLength: 80 })),
    period: Type.Optional(IsoInstant('The line period start (a day for DAILY lines).')),
    nodepool: Type.Optional(Type.String({ pattern: NODEPOOL_OR_UNTAGGED_PATTERN, maxLength: 253 })),
    groupBy: Type.Optional(BillGroupBySchema),
    dimension: Type.Optional(Type.String({ maxLength: 200 })),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type BillExplainQuery = Static<typeof BillExplainQuerySchema>;

export const ResourceTotalsSchema = Type.Object({ cpuMillicores: Type.Integer(), memoryBytes: Type.Number(), pods: Type.Integer() });
export type ResourceTotals = Static<typeof ResourceTotalsSchema>;

export const RequirementCheckSchema = Type.Object({
  key: Type.String(),
  /** In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte, as written in the NodePool. */
  operator: Type.String(),
  values: Type.Array(Type.String()),
  /** Karpenter's minValues for the key; null when unset. */
  minValues: Nullable(Type.Integer()),
  /** The requirement as one line, e.g. `karpenter.k8s.aws/instance-generation Gte 3`. */
  text: Type.String(),
  /** The node's label value; null when the node has no such label. */
  nodeValue: Nullable(Type.String()),
  /** As Karpenter judges it (an absent label meets only NotIn and DoesNotExist); null when it cannot be judged (an operator this version does not know). */
  satisfied: Nullable(Type.Boolean()),
});
export type RequirementCheck = Static<typeof RequirementCheckSchema>;

export const LifecycleEventSchema = Type.Object({ at: Type.String(), reason: Type.String(), message: Type.String() });
export type LifecycleEvent = Static<typeof LifecycleEventSchema>;

export const NodeClaimReasonsSchema = Type.Object({
  /** Which NodePool requirements admitted the instance type (each checked against the node's labels). */
  instanceType: Type.Object({
    nodePoolFound: Type.Boolean(),
    requirements: Type.Array(RequirementCheckSchema),
    summary: Type.String(),
  }),
  /** Which pods' requests led to the size. */
  size: Type.Object({
    /** Pods on the node at its first snapshot (DaemonSet pods included), the ones it was launched for. */
    launchPods: Type.Array(
      Type.Object({
        namespace: Type.String(),
        name: Type.String(),
        ownerKind: Nullable(Type.String()),
        cpuMillicores: Type.Integer(),
        memoryBytes: Type.Number(),
      }),
    ),
    /** When that first snapshot was taken; null without one. */
    observedAt: Nullable(Type.String()),
    requested: ResourceTotalsSchema,
    allocatable: ResourceTotalsSchema,
    /** The next smaller instance type the NodePool admits (same family where there is one), and whether the pods fit it. */
    smallerType: Nullable(
      Type.Object({
        instanceType: Type.String(),
        allocatable: ResourceTotalsSchema,
        fits: Type.Boolean(),
      }),
    ),
    summary: Type.String(),
  }),
  capacityType: Type.Object({
    /** The NodePool's karpenter.sh/capacity-type values. */
    allowed: Type.Array(Type.String()),
    chosen: Type.String(),
    summary: Type.String(),
  }),
  created: Type.Object({
    kind: Type.Union([Type.Literal('provisioning'), Type.Literal('replacement'), Type.Literal('not-karpenter'), Type.Literal('unknown')]),
    /** Disruption reason when it replaced another NodeClaim (Underutilized, Drifted, ...). */
    reason: Nullable(Type.String()),
    /** NodeClaims (or nodes) it replaced. */
    replaces: Type.Array(Type.String()),
    events: Type.Array(LifecycleEventSchema),
    summary: Type.String(),
  }),
  removed: Type.Object({
    kind: Type.Union([
      Type.Literal('consolidation'),
      Type.Literal('interruption'),
      Type.Literal('drift'),
      Type.Literal('expiry'),
      Type.Literal('deleted'),
      Type.Literal('still-running'),
    ]),
    reason: Nullable(Type.String()),
    at: Nullable(Type.String()),
    replacedBy: Type.Array(Type.String()),
    events: Type.Array(LifecycleEventSchema),
    summary: Type.String(),
  }),
});
export type NodeClaimReasons = Static<typeof NodeClaimReasonsSchema>;

export const ExplainedNodeClaimSchema = Type.Object({
  nodeName: Type.String(),
  /** null for nodes Karpenter did not launch (managed node groups). */
  nodeClaim: Nullable(Type.String()),
  nodePool: Nullable(Type.String()),
  instanceId: Nullable(Type.String()),
  instanceType: Type.String(),
  capacityType: Type.String(),
  zone: Type.String(),
  /** Its life, ISO 8601 UTC; removedAt null while it runs. */
  launchedAt: Type.String(),
  removedAt: Nullable(Type.String()),
  /** The part of its life inside the line's period. */
  from: Type.String(),
  to: Type.String(),
  hours: Type.Number(),
  /** Time-weighted price over those hours, USD per hour, with the range it moved in (spot). */
  unitPriceUsdPerHour: Type.Number(),
  minUsdPerHour: Type.Number(),
  maxUsdPerHour: Type.Number(),
  /**
   * Where the price came from: pricing-api | spot-history | static-table (REGION) — which of Karpenter's static
   * tables priced it — | unknown (plain static-table for prices stored before the table was named).
   */
  priceSource: Type.String(),
  priceChanges: Type.Integer(),
  /** hours × prices in effect, integrated exactly over the price history. */
  computedUsd: Type.Number(),
  reasons: NodeClaimReasonsSchema,
});
export type ExplainedNodeClaim = Static<typeof ExplainedNodeClaimSchema>;

export const RemainderCauseSchema = Type.Object({
  code: Type.Union([
    Type.Literal('rounding'),
    Type.Literal('spot-within-hour'),
    Type.Literal('untagged-hours'),
    Type.Literal('tags-not-active'),
    Type.Literal('no-snapshot-data'),
    Type.Literal('deletion-time-uncertain'),
    Type.Literal('discounts'),
    Type.Literal('unknown-prices'),
    Type.Literal('unmatched'),
  ]),
  message: Type.String(),
  /** The money this cause can account for, USD, where it can be sized; null otherwise. */
  usd: Nullable(Type.Number()),
});
export type RemainderCause = Static<typeof RemainderCauseSchema>;

export const ExplanationStatusSchema = Type.Union([
  /** The NodeClaims add up to the line within the tolerance. */
  Type.Literal('explained'),
  /** A remainder above the tolerance, with its likely causes. */
  Type.Literal('partly-explained'),
  /** The data cannot split this line (e.g. tags not active) or holds nothing for it. */
  Type.Literal('cannot-explain'),
]);
export type ExplanationStatus = Static<typeof ExplanationStatusSchema>;

export const ExplanationSchema = Type.Object({
  line: BillLineSchema,
  status: ExplanationStatusSchema,
  /** One plain sentence for the page header. */
  summary: Type.String(),
  /** Sorted by computed cost, largest first. */
  nodeClaims: Type.Array(ExplainedNodeClaimSchema),
  lineUsd: Type.Number(),
  computedUsd: Type.Number(),
  /** lineUsd − computedUsd. */
  remainderUsd: Type.Number(),
  /** A cent, plus for spot NodeClaims how much the price moved within their hours (hour-start vs exact pricing). */
  toleranceUsd: Type.Number(),
  remainderCauses: Type.Array(RemainderCauseSchema),
  /** Plain-language caveats (data coverage, purchase types the tool does not model, ...). */
  notes: Type.Array(Type.String()),
});
export type Explanation = Static<typeof ExplanationSchema>;

export const ImportQuerySchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        pattern: IMPORT_NAME_PATTERN,
        maxLength: 64,
        description: 'Stored as csv:<name>; default from the file name. Re-importing a name replaces it.',
      }),
    ),
    granularity: Type.Optional(
      Type.Union([Type.Literal('DAILY'), Type.Literal('MONTHLY'), Type.Literal('HOURLY')], {
        description: 'Default: read from the dates.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportQuery = Static<typeof ImportQuerySchema>;

export const ImportResponseSchema = Type.Object({
  source: Type.String(),
  fileName: Nullable(Type.String()),
  /** 'ce-console-tag': a Cost Explorer console "Download CSV" grouped by the karpenter.sh/nodepool tag. */
  layout: Type.String(),
  granularity: BillGranularitySchema,
  lines: Type.Integer(),
  periods: Type.Integer(),
  nodePools: Type.Array(Type.String()),
  totalUsd: Type.Number(),
  /** The file's own total row, USD; null when absent. */
  fileTotalUsd: Nullable(Type.Number()),
  /** True when a source of that name was replaced. */
  replaced: Type.Boolean(),
  warnings: Type.Array(Type.String()),
});
export type ImportResponse = Static<typeof ImportResponseSchema>;

export const PerturbationSchema = Type.Union([
  Type.Literal('none'),
  Type.Literal('untagged-node'),
  Type.Literal('spot-hourly-price'),
  Type.Literal('tags-inactive'),
]);
/** What the sandbox changed in a hypothetical bill (part of the answer, not the question). */
export type Perturbation = Static<typeof PerturbationSchema>;

export const PracticeQuerySchema = Type.Object(
  {
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2 ** 31 - 1,
        description: 'Picks the day (unless given), the perturbation and the question. Default 1.',
      }),
    ),
    day: Type.Optional(Type.String({ pattern: DAY_PATTERN, description: 'A day of the sandbox scenario, YYYY-MM-DD.' })),
    perturbation: Type.Optional(PerturbationSchema),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type PracticeQuery = Static<typeof PracticeQuerySchema>;

export const PracticeQuestionSchema = Type.Object({
  seed: Type.Integer(),
  day: Type.String(),
  scenario: Type.String(),
  /** What to work out, in words. */
  prompt: Type.String(),
  /** The hypothetical bill as Cost Explorer would show it (grouped by the NodePool tag). */
  lines: Type.Array(BillLineSchema),
  /** Index into `lines` of the line the prompt asks about. */
  focusLine: Type.Integer(),
  /** The same bill as the Cost Explorer console's CSV download, for POST /api/bill/import. */
  csv: Type.String(),
});
export type PracticeQuestion = Static<typeof PracticeQuestionSchema>;

export const PracticeAnswersSchema = Type.Object({
  seed: Type.Integer(),
  day: Type.String(),
  perturbation: PerturbationSchema,
  /** What the sandbox did to the bill, in words. */
  whatChanged: Type.String(),
  /** One per question line, same order. */
  explanations: Type.Array(ExplanationSchema),
});
export type PracticeAnswers = Static<typeof PracticeAnswersSchema>;
