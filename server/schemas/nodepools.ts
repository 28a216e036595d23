import { Type, type Static } from '@sinclair/typebox';
import { CapacityTypeSchema, FormatSchema, Nullable, rangeQueryProperties } from './common.js';

/**
 * The NodePools: GET /api/nodepools (each as last collected, its limits against its nodes) and
 * GET /api/nodepools/compare (cost and cost per vCPU-/GiB-hour per NodePool x capacity type over a range).
 */

/** One entry of spec.template.spec.requirements, e.g. `karpenter.sh/capacity-type In [spot, on-demand]`. */
export const NodePoolRequirementSchema = Type.Object({
  key: Type.String(),
  /** In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte (Gte and Lte since Karpenter v1.10), as written. */
  operator: Type.String(),
  /** [] for Exists / DoesNotExist; one integer for Gt, Lt, Gte, Lte. */
  values: Type.Array(Type.String()),
  /** Karpenter's minValues: at least this many distinct values of the key among the types it may launch; null when unset. */
  minValues: Nullable(Type.Integer()),
  /** The requirement as one line: `karpenter.k8s.aws/instance-generation Gte 3`, `… In [c, m, r] (minValues 2)`. */
  text: Type.String(),
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

/** GET /api/nodepools takes no range: it is the newest state. `format=csv` gives one row per NodePool. */
export const NodePoolsQuerySchema = Type.Object({ format: Type.Optional(FormatSchema) }, { additionalProperties: false });
export type NodePoolsQuery = Static<typeof NodePoolsQuerySchema>;

export const NodePoolsResponseSchema = Type.Object({ items: Type.Array(NodePoolSchema) });
export type NodePoolsResponse = Static<typeof NodePoolsResponseSchema>;

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
