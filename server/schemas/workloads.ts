import { Type, type Static } from '@sinclair/typebox';
import { FormatSchema, IsoInstantQuery, Nullable } from './common.js';
import { IdleRatesSchema } from './efficiency.js';

/**
 * Workloads: GET /api/workloads/recommendations — right-sized requests per workload (owner kind/name, namespace) and
 * container over a window of usage (core/rightsizing.ts), its usage efficiency (core/usage-efficiency.ts), and the
 * dollar effect of the change: through the scheduling engine (the NodePool's pods at the newest snapshot re-packed
 * from scratch with current and with recommended requests; server/analytics/rightsizing-repack.ts) where it can, else
 * by request share (the change in requests × its NodePool's node cost per requested unit, × 730 h). `dollarMethod`
 * on each row and NodePool says which.
 */

/** `14d`, `36h`: 1 hour to 90 days. */
export const USAGE_WINDOW_PATTERN = '^[1-9][0-9]{0,3}(h|d)$';
const NAMESPACE_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/**
 * The row's cluster (its eks:eks-cluster-name): given only under "All clusters" (no `?cluster=`) of a ledger holding
 * several clusters, where every cluster's rows stand side by side (a workload in two clusters is two rows). A
 * one-cluster ledger, and `?cluster=`, answer without it, as before several clusters.
 */
const clusterProperty = { cluster: Type.Optional(Type.String()) };

export const RecommendationsQuerySchema = Type.Object(
  {
    window: Type.Optional(
      Type.String({ pattern: USAGE_WINDOW_PATTERN, maxLength: 5, description: 'Usage history read, `1h` to `90d`. Default 14d.' }),
    ),
    at: Type.Optional(IsoInstantQuery('End of the window and the snapshot prices are read at. Default: the newest snapshot.')),
    namespace: Type.Optional(Type.String({ pattern: NAMESPACE_PATTERN, maxLength: 63, description: 'Only this namespace.' })),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type RecommendationsQuery = Static<typeof RecommendationsQuerySchema>;

export const RightsizingFlagSchema = Type.Union([
  Type.Literal('short-history'),
  Type.Literal('throttled'),
  Type.Literal('above-request'),
  Type.Literal('oom-killed'),
  Type.Literal('no-request'),
]);

/** engine-repack: the difference of two re-packs of the NodePool; request-share: Δrequests × cost per requested unit. */
export const DollarMethodSchema = Type.Union([Type.Literal('engine-repack'), Type.Literal('request-share')]);

export const RecommendationRowSchema = Type.Object({
  ...clusterProperty,
  namespace: Type.String(),
  workloadKind: Type.String(),
  workloadName: Type.String(),
  container: Type.String(),
  /** Where most of its pods ran at the newest snapshot with usage; null when none ran then. */
  nodePool: Nullable(Type.String()),
  /** Its pods at that snapshot (0: not running now, so no dollar effect). */
  replicas: Type.Integer(),
  /** Per replica, the newest request seen; null when none was. */
  currentCpuMillicores: Nullable(Type.Number()),
  currentMemoryBytes: Nullable(Type.Number()),
  recommendedCpuMillicores: Type.Number(),
  recommendedMemoryBytes: Type.Number(),
  /** Per replica: recommended − current. */
  deltaCpuMillicores: Type.Number(),
  deltaMemoryBytes: Type.Number(),
  /** What the recommendation read: the CPU quantile of the hourly p95s, the CPU and memory peaks, an OOM kill's limit. */
  cpuQuantileMillicores: Type.Number(),
  cpuMaxMillicores: Type.Number(),
  memoryMaxBytes: Type.Number(),
  oomPeakBytes: Nullable(Type.Number()),
  historyHours: Type.Number(),
  samples: Type.Integer(),
  flags: Type.Array(RightsizingFlagSchema),
  /** The container's newest CPU limit (null: none known); throttling is also read against it. */
  cpuLimitMillicores: Nullable(Type.Number()),
  /** The CPU flags' causes: limit (`throttled`: p95 at or near the CPU limit, or the peak at it), request (`above-request`: p95 above the request). */
  throttledBy: Type.Array(Type.Union([Type.Literal('limit'), Type.Literal('request')])),
  /** Mean usage ÷ current request over the window; null without a request. */
  cpuUsageOverRequest: Nullable(Type.Number()),
  memoryUsageOverRequest: Nullable(Type.Number()),
  /** Workload idle (requested, unused) × replicas at request-share prices, USD per month; null without prices. */
  idleUsdPerMonth: Nullable(Type.Number()),
  /**
   * USD per month, negative saves: the engine's (NodePool re-packed with this recommendation alone − re-packed as is,
   * USD/hour × 730) when dollarMethod is engine-repack, else requestShareMonthlyUsd. Null without either.
   */
  monthlyEffectUsd: Nullable(Type.Number()),
  /** replicas × (Δcpu × USD per requested millicore-hour + Δmemory × USD per requested byte-hour) × 730. */
  requestShareMonthlyUsd: Nullable(Type.Number()),
  /** Engine only: the change in its NodePool's node count. */
  nodesDelta: Nullable(Type.Integer()),
  dollarMethod: Nullable(DollarMethodSchema),
});
export type RecommendationRow = Static<typeof RecommendationRowSchema>;

/** Per NodePool: every recommendation of its running workloads applied at once. */
export const NodePoolEffectRowSchema = Type.Object({
  ...clusterProperty,
  nodePool: Type.String(),
  /** Its pods at the snapshot (DaemonSet pods included; they count as per-node overhead in the re-pack). */
  pods: Type.Integer(),
  /** Recommendation rows (workload containers) running in it. */
  workloads: Type.Integer(),
  dollarMethod: DollarMethodSchema,
  /** Engine only: nodes and USD/hour of the re-pack with current requests, and with the recommended ones. */
  nodesBefore: Nullable(Type.Integer()),
  nodesAfter: Nullable(Type.Integer()),
  usdPerHourBefore: Nullable(Type.Number()),
  usdPerHourAfter: Nullable(Type.Number()),
  /** (after − before) × 730 by the engine, else the sum of its rows by request share. */
  monthlyEffectUsd: Type.Number(),
  requestShareMonthlyUsd: Type.Number(),
});
export type NodePoolEffectRow = Static<typeof NodePoolEffectRowSchema>;

export const NamespaceEfficiencyRowSchema = Type.Object({
  ...clusterProperty,
  namespace: Type.String(),
  /** Σ usage ÷ Σ requests of the pods metrics-server reported, over the window's snapshots. */
  cpuUsageOverRequest: Nullable(Type.Number()),
  memoryUsageOverRequest: Nullable(Type.Number()),
  idleUsdPerMonth: Type.Number(),
});

/** Usage ÷ request and ÷ allocatable, and the node cost split three ways (core/usage-efficiency.ts capacityEfficiency). */
const capacityProperties = {
  nodes: Type.Integer(),
  usdPerMonth: Type.Number(),
  allocCpuMillicores: Type.Number(),
  allocMemoryBytes: Type.Number(),
  requestCpuMillicores: Type.Number(),
  requestMemoryBytes: Type.Number(),
  usageCpuMillicores: Type.Number(),
  usageMemoryBytes: Type.Number(),
  cpuUsageOverRequest: Nullable(Type.Number()),
  memoryUsageOverRequest: Nullable(Type.Number()),
  cpuUsageOverAllocatable: Nullable(Type.Number()),
  memoryUsageOverAllocatable: Nullable(Type.Number()),
  /** USD per month (× 730) of capacity used; + the two idles = usdPerMonth. */
  usedUsdPerMonth: Type.Number(),
  /** Kubecost's workload idle: requested, unused (request − usage). */
  workloadIdleUsdPerMonth: Type.Number(),
  /** Kubecost's infrastructure idle: allocatable no pod requested or used (allocatable − max(request, usage)). */
  infrastructureIdleUsdPerMonth: Type.Number(),
  /** The rates (per hour) the node cost was split at, by relative price (`settings.weighting`). */
  idleRates: IdleRatesSchema,
};
export const CapacityEfficiencySchema = Type.Object(capacityProperties);
export const NodePoolCapacityRowSchema = Type.Object({ nodePool: Type.String(), ...capacityProperties });
export const NodeCapacityRowSchema = Type.Object({
  node: Type.String(),
  nodePool: Type.String(),
  instanceType: Type.String(),
  ...capacityProperties,
});
export type NodeCapacityRow = Static<typeof NodeCapacityRowSchema>;

const CapacitySchema = Type.Object({
  cluster: CapacityEfficiencySchema,
  nodePools: Type.Array(NodePoolCapacityRowSchema),
  /** Most infrastructure idle first, at most CAPACITY_NODES_LISTED. */
  nodes: Type.Array(NodeCapacityRowSchema),
});

export const TeamEfficiencyRowSchema = Type.Object({
  ...clusterProperty,
  /** The namespace's team ('' = namespaces without one). */
  team: Type.String(),
  cpuUsageOverRequest: Nullable(Type.Number()),
  memoryUsageOverRequest: Nullable(Type.Number()),
  idleUsdPerMonth: Type.Number(),
});

/** At most this many nodes are listed (most infrastructure idle first); the cluster and NodePool rows count them all. */
export const CAPACITY_NODES_LISTED = 500;

export const RecommendationsResponseSchema = Type.Object({
  /** ISO 8601 UTC: the usage window [windowFrom, windowTo]. */
  windowFrom: Nullable(Type.String()),
  windowTo: Nullable(Type.String()),
  /** The snapshot whose node prices and requests price a requested unit; null before any snapshot. */
  pricesAt: Nullable(Type.String()),
  /** How the dollar effect is computed, in words (engine re-pack, request share as the fallback). */
  dollarMethod: Type.String(),
  settings: Type.Object({
    cpuQuantile: Type.Number(),
    memoryBuffer: Type.Number(),
    minCpuMillicores: Type.Number(),
    minMemoryBytes: Type.Number(),
    minHistoryHours: Type.Number(),
    cpuLimitNearFraction: Type.Number(),
    /**
     * How a node's price is split between CPU, memory and GPU (the capacity split, workload idle, the request-share
     * dollars), in words: relative price, as everywhere (core/cost-weights.ts).
     */
    weighting: Type.String(),
  }),
  /** Biggest saving first (most negative monthlyEffectUsd), rows without a figure last. */
  rows: Type.Array(RecommendationRowSchema),
  nodePools: Type.Array(NodePoolEffectRowSchema),
  namespaces: Type.Array(NamespaceEfficiencyRowSchema),
  /** The namespaces' rows summed by team. */
  teams: Type.Array(TeamEfficiencyRowSchema),
  /**
   * Node, NodePool and cluster efficiency at the snapshot `pricesAt` (the pods' usage metrics-server reported then,
   * their requests, their nodes' allocatable and price, cost split into CPU, memory and GPU by relative price); null when that
   * snapshot has no usage.
   */
  capacity: Nullable(CapacitySchema),
  /**
   * Under "All clusters" of a ledger of several only (then `capacity` is null: packing is not summed across clusters):
   * each cluster's window, the snapshot its prices are read at (its own newest, or at `at`) and its capacity, by name.
   */
  clusters: Type.Optional(
    Type.Array(
      Type.Object({
        cluster: Type.String(),
        windowFrom: Nullable(Type.String()),
        windowTo: Nullable(Type.String()),
        pricesAt: Nullable(Type.String()),
        capacity: Nullable(CapacitySchema),
      }),
    ),
  ),
  /**
   * monthlyEffectUsd: Σ of nodePools (each one re-pack with all its recommendations); requestShareMonthlyUsd: Σ of rows
   * (under "All clusters", over every cluster's).
   */
  totals: Type.Object({ monthlyEffectUsd: Type.Number(), requestShareMonthlyUsd: Type.Number(), idleUsdPerMonth: Type.Number() }),
});
export type RecommendationsResponse = Static<typeof RecommendationsResponseSchema>;

const NAME_PATTERN = '^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$';

/** GET /api/workloads/usage: one workload container's hourly usage beside its request and limit, for its chart. */
export const WorkloadUsageQuerySchema = Type.Object(
  {
    namespace: Type.String({ pattern: NAMESPACE_PATTERN, maxLength: 63 }),
    kind: Type.String({ pattern: '^[A-Za-z]+$', maxLength: 63, description: 'Owner kind: Deployment, StatefulSet, Job, DaemonSet, Pod…' }),
    name: Type.String({ pattern: NAME_PATTERN, maxLength: 253 }),
    container: Type.String({ pattern: NAME_PATTERN, maxLength: 63 }),
    window: Type.Optional(
      Type.String({ pattern: USAGE_WINDOW_PATTERN, maxLength: 5, description: 'Usage history read, `1h` to `90d`. Default 14d.' }),
    ),
    at: Type.Optional(IsoInstantQuery('End of the window. Default: the newest snapshot.')),
  },
  { additionalProperties: false },
);
export type WorkloadUsageQuery = Static<typeof WorkloadUsageQuerySchema>;

export const WorkloadUsagePointSchema = Type.Object({
  ...clusterProperty,
  /** ISO 8601 UTC start of the hour. */
  hour: Type.String(),
  hourMs: Type.Number(),
  samples: Type.Integer(),
  pods: Type.Integer(),
  cpuP95Millicores: Type.Number(),
  cpuMaxMillicores: Type.Number(),
  memoryMaxBytes: Type.Number(),
  /** Per container, the largest request / CPU limit seen in the hour; null when unknown. */
  requestCpuMillicores: Nullable(Type.Number()),
  requestMemoryBytes: Nullable(Type.Number()),
  limitCpuMillicores: Nullable(Type.Number()),
  oomKills: Type.Integer(),
  source: Type.Union([Type.Literal('metrics-server'), Type.Literal('prometheus')]),
});

export const WorkloadUsageResponseSchema = Type.Object({
  windowFrom: Nullable(Type.String()),
  windowTo: Nullable(Type.String()),
  /**
   * Oldest first; empty when the container has no usage in the window. Under "All clusters" of a ledger of several:
   * each cluster's hours (its window ending at its own newest snapshot, or at `at`), clusters by name, each point
   * naming its cluster.
   */
  points: Type.Array(WorkloadUsagePointSchema),
});
export type WorkloadUsageResponse = Static<typeof WorkloadUsageResponseSchema>;
