import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The API contract of the overview dashboard: TypeBox schemas give Fastify its validation and
 * serialization, and `Static<>` gives the TypeScript types that web/ imports (type-only).
 *
 * Units: money is USD. "bill" figures are Cost Explorer UnblendedCost (AmortizedCost where named).
 * Days are UTC days written `YYYY-MM-DD`, each standing for [00:00, 24:00) UTC. Instants are ISO 8601
 * UTC strings, except chart points, which carry epoch milliseconds UTC (`...Ms`).
 */

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** `2026-11-01` (UTC midnight) or `2026-11-01T10:00:00Z` / `...+02:00` (a zone is required). */
export const ISO_DATE_OR_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';
/** A Kubernetes object name (DNS subdomain). */
export const NODEPOOL_NAME_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';

/** What each query parameter expects, in words: used in 400 messages. */
export const QUERY_PARAM_HINTS: Readonly<Record<string, string>> = {
  from: 'an ISO 8601 date like 2026-11-01 (UTC midnight) or a date-time with a zone like 2026-11-01T00:00:00Z',
  to: 'an ISO 8601 date like 2026-11-08 (UTC midnight) or a date-time with a zone like 2026-11-08T00:00:00Z',
  nodepool: 'a NodePool name (lower-case letters, digits, "-" and ".")',
};

const IsoInstant = (description: string) => Type.String({ pattern: ISO_DATE_OR_DATE_TIME_PATTERN, maxLength: 40, description });

export const RangeQuerySchema = Type.Object(
  {
    from: Type.Optional(IsoInstant('Inclusive start (UTC). Default: 14 days before `to`.')),
    to: Type.Optional(IsoInstant('Exclusive end (UTC). Default: the UTC midnight after the newest data.')),
    nodepool: Type.Optional(
      Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'Only this NodePool. Default: all.' }),
    ),
  },
  { additionalProperties: false },
);
/** Query of the cost and efficiency routes. */
export type RangeQuery = Static<typeof RangeQuerySchema>;

export const ErrorResponseSchema = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  /** For 400s: names the parameter and says what it expects. For 5xx: a generic message (details are logged). */
  message: Type.String(),
});
export type ErrorResponse = Static<typeof ErrorResponseSchema>;

export const DataSourceSchema = Type.Union([Type.Literal('sandbox'), Type.Literal('aws'), Type.Literal('unknown')]);
/** Where the data came from: the embedded sandbox (simulated cluster and bill) or a real AWS account. */
export type DataSource = Static<typeof DataSourceSchema>;

/**
 * running: in progress; ok / failed: finished; abandoned: its collector stopped without finishing (killed, or its
 * lock taken over), found by the next collector to take the lock — the message says which one.
 */
export const RunStatusSchema = Type.Union([Type.Literal('running'), Type.Literal('ok'), Type.Literal('failed'), Type.Literal('abandoned')]);
export type RunStatus = Static<typeof RunStatusSchema>;

export const CollectionRunSchema = Type.Object({
  /** 'kubernetes' | 'cost-explorer' | 'pricing' | 'spot' | 'demo' */
  kind: Type.String(),
  source: DataSourceSchema,
  status: RunStatusSchema,
  /** ISO 8601 UTC. */
  startedAt: Type.String(),
  /** ISO 8601 UTC; null while running (for an abandoned run: when it was found abandoned). */
  finishedAt: Nullable(Type.String()),
  rowsWritten: Type.Integer(),
  message: Nullable(Type.String()),
});
export type CollectionRun = Static<typeof CollectionRunSchema>;

export const StatusResponseSchema = Type.Object({
  /** Source of the most recent collection run; 'unknown' before any run. */
  dataSource: DataSourceSchema,
  range: Type.Object({
    /** First and last snapshot, ISO 8601 UTC; null without snapshots. */
    firstSnapshotAt: Nullable(Type.String()),
    lastSnapshotAt: Nullable(Type.String()),
    /** First and last Cost Explorer day (YYYY-MM-DD, UTC); null without cost lines. */
    firstCostDay: Nullable(Type.String()),
    lastCostDay: Nullable(Type.String()),
  }),
  /** What the cost and efficiency routes use when `from` / `to` are left out (ISO 8601 UTC; `to` exclusive). */
  defaultRange: Type.Object({ from: Type.String(), to: Type.String() }),
  lastRun: Nullable(CollectionRunSchema),
  /** The latest run of each kind, sorted by kind. */
  lastRunByKind: Type.Array(CollectionRunSchema),
  counts: Type.Object({ snapshots: Type.Integer(), nodePools: Type.Integer(), costLines: Type.Integer() }),
});
export type StatusResponse = Static<typeof StatusResponseSchema>;

/** One entry of spec.template.spec.requirements, e.g. `karpenter.sh/capacity-type In [spot, on-demand]`. */
export const NodePoolRequirementSchema = Type.Object({
  key: Type.String(),
  /** In | NotIn | Exists | DoesNotExist | Gt | Lt */
  operator: Type.String(),
  /** [] for Exists / DoesNotExist. */
  values: Type.Array(Type.String()),
});
export type NodePoolRequirement = Static<typeof NodePoolRequirementSchema>;

/** One entry of spec.disruption.budgets. */
export const DisruptionBudgetSchema = Type.Object({
  /** Nodes that may be disrupted at once: a count ("1") or a share of the NodePool's nodes ("10%"). */
  nodes: Type.String(),
  /** Disruption reasons it applies to (Underutilized, Empty, Drifted); [] = all. */
  reasons: Type.Array(Type.String()),
  /** Cron schedule (UTC) when the budget is active; null = always. */
  schedule: Nullable(Type.String()),
  /** How long it stays active after each scheduled start, e.g. "8h"; null with no schedule. */
  duration: Nullable(Type.String()),
});
export type DisruptionBudget = Static<typeof DisruptionBudgetSchema>;

/** One resource of spec.limits against the NodePool's nodes now. */
export const ResourceLimitSchema = Type.Object({
  /** cpu, memory, nvidia.com/gpu, ephemeral-storage, pods, ... */
  resource: Type.String(),
  /** The limit as written, a Kubernetes quantity ("1000", "1000Gi"). */
  quantity: Type.String(),
  /** millicores for cpu; bytes for memory, storage and huge pages; count otherwise. */
  unit: Type.Union([Type.Literal('millicores'), Type.Literal('bytes'), Type.Literal('count')]),
  /** The limit in `unit`; null when the quantity does not parse. */
  limit: Nullable(Type.Number()),
  /** Σ capacity (what Karpenter counts, not allocatable) of the NodePool's nodes at the newest snapshot, in `unit`. */
  used: Type.Number(),
  /** used ÷ limit; 1 = at the limit (Karpenter launches no more nodes); null when the limit is null or 0. */
  usedFraction: Nullable(Type.Number()),
});
export type ResourceLimit = Static<typeof ResourceLimitSchema>;

export const NodePoolLimitsSchema = Type.Object({
  /** spec.limits.cpu as written; null = no cpu limit. */
  cpu: Nullable(Type.String()),
  /** The cpu limit in millicores; null = no limit (or it does not parse). */
  cpuMillicores: Nullable(Type.Number()),
  /** spec.limits.memory as written; null = no memory limit. */
  memory: Nullable(Type.String()),
  /** The memory limit in bytes; null = no limit (or it does not parse). */
  memoryBytes: Nullable(Type.Number()),
  /** Every resource of spec.limits with its usage: cpu, memory, then the others by name; [] = no limits. */
  resources: Type.Array(ResourceLimitSchema),
});
export type NodePoolLimits = Static<typeof NodePoolLimitsSchema>;

/** What the NodePool's nodes offer at the newest snapshot: the figures Karpenter holds against the limits. */
export const NodePoolUsageSchema = Type.Object({
  /** The newest snapshot, ISO 8601 UTC; null without snapshots. */
  at: Nullable(Type.String()),
  nodes: Type.Integer(),
  /** Σ capacity cpu, millicores. */
  cpuMillicores: Type.Number(),
  /** Σ capacity memory, bytes. */
  memoryBytes: Type.Number(),
  /** Nodes collected before capacity was recorded: their allocatable is counted instead (slightly less). */
  nodesWithoutCapacity: Type.Integer(),
});
export type NodePoolUsage = Static<typeof NodePoolUsageSchema>;

export const NodePoolSchema = Type.Object({
  name: Type.String(),
  weight: Nullable(Type.Integer()),
  /** WhenEmpty | WhenEmptyOrUnderutilized | Balanced */
  consolidationPolicy: Nullable(Type.String()),
  consolidateAfter: Nullable(Type.String()),
  /** spec.template.spec.expireAfter ("720h", "Never"); null when unset or not yet collected. */
  expireAfter: Nullable(Type.String()),
  /** Values of the karpenter.sh/capacity-type requirement: spot, on-demand, reserved. */
  capacityTypes: Type.Array(Type.String()),
  requirements: Type.Array(NodePoolRequirementSchema),
  budgets: Type.Array(DisruptionBudgetSchema),
  limits: NodePoolLimitsSchema,
  usage: NodePoolUsageSchema,
  nodeClass: Nullable(Type.String()),
  /** Last time the collector saw this NodePool, ISO 8601 UTC. */
  updatedAt: Type.String(),
});
export type NodePool = Static<typeof NodePoolSchema>;

export const NodePoolsResponseSchema = Type.Object({ items: Type.Array(NodePoolSchema) });
export type NodePoolsResponse = Static<typeof NodePoolsResponseSchema>;

export const CapacityTypeSchema = Type.Union([Type.Literal('on-demand'), Type.Literal('spot'), Type.Literal('reserved')]);
export type CapacityType = Static<typeof CapacityTypeSchema>;

/**
 * One UTC day x NodePool x purchase kind. A Cost Explorer purchase type and our capacity type share a
 * row when they mean the same thing ("On Demand Instances" = on-demand, "Spot Instances" = spot);
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
  /** Cost Explorer UnblendedCost, USD; null when the bill has no line for this row. */
  billUsd: Nullable(Type.Number()),
  /** Cost Explorer AmortizedCost, USD (differs from unblended under Savings Plans / RIs); null if not fetched. */
  billAmortizedUsd: Nullable(Type.Number()),
  /** True when Cost Explorer still marks the day as estimated (not final). */
  billEstimated: Type.Boolean(),
  /** Our estimate from snapshots (Σ price per hour × hours, intervals capped at 15 min), USD; null if none. */
  estimateUsd: Nullable(Type.Number()),
});
export type DailyCostRow = Static<typeof DailyCostRowSchema>;

export const DailyCostResponseSchema = Type.Object({
  /** First day (YYYY-MM-DD); `from` rounded down to UTC midnight. */
  from: Type.String(),
  /** Day after the last (exclusive, YYYY-MM-DD); `to` rounded up to UTC midnight. */
  to: Type.String(),
  currency: Type.Literal('USD'),
  /** Sorted by day, NodePool, then purchase kind. */
  rows: Type.Array(DailyCostRowSchema),
  totals: Type.Object({
    /** Σ UnblendedCost, USD. */
    billUsd: Type.Number(),
    /** Σ estimate, USD. */
    estimateUsd: Type.Number(),
  }),
});
export type DailyCostResponse = Static<typeof DailyCostResponseSchema>;

export const EfficiencyPointSchema = Type.Object({
  /** Bucket start, epoch ms UTC. */
  bucketStartMs: Type.Number(),
  /** Σ cpu requests ÷ Σ cpu allocatable over the bucket, a fraction (0.5 = 50 %); null with nothing allocatable. */
  cpu: Nullable(Type.Number()),
  /** Same for memory. */
  memory: Nullable(Type.Number()),
  /** Mean node count over the bucket's snapshots. */
  nodesAvg: Type.Number(),
  /** Mean run rate over the bucket's snapshots, USD per hour. */
  usdPerHourAvg: Type.Number(),
});
export type EfficiencyPoint = Static<typeof EfficiencyPointSchema>;

export const EfficiencySeriesSchema = Type.Object({
  /** '' = nodes without a NodePool. */
  nodePool: Type.String(),
  points: Type.Array(EfficiencyPointSchema),
});
export type EfficiencySeries = Static<typeof EfficiencySeriesSchema>;

export const EfficiencyResponseSchema = Type.Object({
  /** ISO 8601 UTC, inclusive. */
  from: Type.String(),
  /** ISO 8601 UTC, exclusive. */
  to: Type.String(),
  /** Bucket length in ms, chosen so a series has at most 1,000 points; buckets aligned on UTC. */
  bucketMs: Type.Integer(),
  /** One per NodePool, sorted by name; points sorted by time; buckets without snapshots are absent. */
  series: Type.Array(EfficiencySeriesSchema),
});
export type EfficiencyResponse = Static<typeof EfficiencyResponseSchema>;
