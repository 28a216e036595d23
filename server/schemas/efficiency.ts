import { Type, type Static } from '@sinclair/typebox';
import {
  CapacityTypeSchema,
  NODEPOOL_NAME_PATTERN,
  DURATION_PATTERN,
  FormatSchema,
  IsoInstantQuery,
  Nullable,
  packingProperties,
  rangeQueryProperties,
} from './common.js';

/**
 * Bin-packing efficiency: GET /api/efficiency/nodepools (per NodePool over time, for a chart),
 * GET /api/efficiency/summary (per NodePool and the cluster over a range),
 * GET /api/efficiency/nodes (per node at a snapshot, or averaged over a window before it) and
 * GET /api/nodes (the node table, sortable and paged, for a Nodes page at 500+ nodes).
 *
 * Time weighting: each snapshot stands for the time until the next one (at most 15 minutes, a collector
 * gap is not cost), clipped to the range. Idle capacity is allocatable minus requests; idle money is the
 * part of the node price its requests do not cover, each node's price split between cpu, memory and GPU by relative
 * price (core/cost-weights.ts, as the OpenCost team method splits it), the rates it gave in `idleRates`.
 */

export const EfficiencySeriesQuerySchema = Type.Object(rangeQueryProperties, { additionalProperties: false });
export type EfficiencySeriesQuery = Static<typeof EfficiencySeriesQuerySchema>;

export const EfficiencyPointSchema = Type.Object({
  /** Bucket start, epoch ms UTC. */
  bucketStartMs: Type.Number(),
  /** Σ cpu requests ÷ Σ cpu allocatable over the bucket, a fraction (0.5 = 50 %); null with nothing allocatable. */
  cpu: Nullable(Type.Number()),
  /** Same for memory. */
  memory: Nullable(Type.Number()),
  /**
   * Σ pods' cpu usage (metrics.k8s.io) ÷ Σ cpu allocatable over the bucket's snapshots that read usage, a fraction;
   * null where no usage was collected (no metrics-server).
   */
  cpuUsage: Nullable(Type.Number()),
  /** Same for memory (working set). */
  memoryUsage: Nullable(Type.Number()),
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
  /** Bucket length in ms, chosen so a series has at most 400 points (server/analytics/efficiency.ts); buckets aligned on UTC. */
  bucketMs: Type.Integer(),
  /** One per NodePool, sorted by name; points sorted by time; buckets without snapshots are absent. */
  series: Type.Array(EfficiencySeriesSchema),
});
export type EfficiencyResponse = Static<typeof EfficiencyResponseSchema>;

export const EfficiencySummaryQuerySchema = Type.Object(rangeQueryProperties, { additionalProperties: false });
export type EfficiencySummaryQuery = Static<typeof EfficiencySummaryQuerySchema>;

/**
 * The rates idle is priced at under the one weighting (core/cost-weights.ts, relative price): each node's price split
 * into CPU, memory and GPU by OpenCost's base prices times its allocatable; per vCPU-, GiB- and GPU-hour offered (over
 * a set of nodes and time: each part's Σ USD ÷ Σ offered hours). Null where nothing of it is offered.
 */
export const IdleRatesSchema = Type.Object({
  usdPerVcpuHour: Nullable(Type.Number()),
  usdPerGiBHour: Nullable(Type.Number()),
  usdPerGpuHour: Nullable(Type.Number()),
});
export type IdleRates = Static<typeof IdleRatesSchema>;

export const EfficiencySummaryRowSchema = Type.Object({
  scope: Type.Union([Type.Literal('cluster'), Type.Literal('nodepool')]),
  /** null on the cluster row; '' = nodes not launched by Karpenter (no NodePool). */
  nodePool: Nullable(Type.String()),
  /** Time-averaged node count over the hours covered. */
  nodesAvg: Type.Number(),
  /** Σ nodes × hours. */
  nodeHours: Type.Number(),
  /** Σ price × hours, USD (our estimate). */
  costUsd: Type.Number(),
  /** costUsd ÷ hours covered. */
  usdPerHourAvg: Type.Number(),
  ...packingProperties,
  /** Time-averaged allocatable minus requested cpu, vCPU. */
  idleVcpuAvg: Type.Number(),
  /** Time-averaged allocatable minus requested memory, GiB. */
  idleMemoryGiBAvg: Type.Number(),
  /**
   * Time-averaged price × (1 − (w_cpu × cpu efficiency + w_memory × memory efficiency + w_gpu × gpu efficiency)) per
   * node, the weights by relative price (`idleWeighting`), USD per hour.
   */
  idleUsdPerHourAvg: Type.Number(),
  /** The rates that idle is priced at. */
  idleRates: IdleRatesSchema,
});
export type EfficiencySummaryRow = Static<typeof EfficiencySummaryRowSchema>;

export const EfficiencySummaryResponseSchema = Type.Object({
  /** ISO 8601 UTC, inclusive. */
  from: Type.String(),
  /** ISO 8601 UTC, exclusive. */
  to: Type.String(),
  /** Hours of the range covered by snapshots (the denominator of the averages). */
  hours: Type.Number(),
  snapshots: Type.Integer(),
  /** How a node's price is split between CPU, memory and GPU to price idle, in words. */
  idleWeighting: Type.String(),
  /** The cluster row first, then one row per NodePool by name. */
  rows: Type.Array(EfficiencySummaryRowSchema),
});
export type EfficiencySummaryResponse = Static<typeof EfficiencySummaryResponseSchema>;

export const NodeSortSchema = Type.Union([
  Type.Literal('name'),
  Type.Literal('nodePool'),
  Type.Literal('instanceType'),
  Type.Literal('capacityType'),
  Type.Literal('zone'),
  Type.Literal('ageHours'),
  Type.Literal('usdPerHour'),
  Type.Literal('cpu'),
  Type.Literal('memory'),
  Type.Literal('idleUsdPerHour'),
]);
export type NodeSort = Static<typeof NodeSortSchema>;

const nodeFilterProperties = {
  at: Type.Optional(IsoInstantQuery('The snapshot at or before this instant. Default: the newest snapshot.')),
  nodepool: Type.Optional(Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'Only this NodePool.' })),
  capacityType: Type.Optional(CapacityTypeSchema),
  format: Type.Optional(FormatSchema),
};

export const EfficiencyNodesQuerySchema = Type.Object(
  {
    ...nodeFilterProperties,
    window: Type.Optional(
      Type.String({
        pattern: DURATION_PATTERN,
        maxLength: 6,
        description: 'Average each node over this window ending at `at` (5m..24h). Default: the one snapshot.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Rows per page (by node name). Default 500.' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Rows to skip. Default 0.' })),
  },
  { additionalProperties: false },
);
export type EfficiencyNodesQuery = Static<typeof EfficiencyNodesQuerySchema>;

export const NodesQuerySchema = Type.Object(
  {
    ...nodeFilterProperties,
    sort: Type.Optional(NodeSortSchema),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Rows per page. Default 500.' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Rows to skip. Default 0.' })),
    q: Type.Optional(
      Type.String({
        maxLength: 100,
        pattern: '^[^\\u0000-\\u001f\\u007f]*$',
        description:
          'Only nodes whose name, NodeClaim, instance type, NodePool or zone contains this text (ASCII case-insensitive; % and _ match themselves). Empty: all.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NodesQuery = Static<typeof NodesQuerySchema>;

export const NodeRowSchema = Type.Object({
  name: Type.String(),
  nodeClaim: Nullable(Type.String()),
  /** '' = not launched by Karpenter. */
  nodePool: Type.String(),
  instanceType: Type.String(),
  capacityType: Type.String(),
  zone: Type.String(),
  /** Node creation, ISO 8601 UTC. */
  createdAt: Type.String(),
  /** Hours from creation to the snapshot. */
  ageHours: Type.Number(),
  /** Price per hour in `currency` (averaged over the window); null when no price was known. */
  usdPerHour: Nullable(Type.Number()),
  /**
   * Where the price came from: pricing-api | spot-history | static-table (REGION) — Karpenter's static table of that
   * region, the region's own or its partition's fallback — | unknown; plain static-table in rows collected before
   * the table was named.
   */
  priceSource: Nullable(Type.String()),
  /** USD, or CNY for a China (aws-cn) cluster. */
  currency: Type.String(),
  allocatableVcpu: Type.Number(),
  allocatableMemoryGiB: Type.Number(),
  allocatablePods: Type.Number(),
  allocatableGpu: Type.Number(),
  requestedVcpu: Type.Number(),
  requestedMemoryGiB: Type.Number(),
  requestedPods: Type.Number(),
  requestedGpu: Type.Number(),
  cpu: Nullable(Type.Number()),
  memory: Nullable(Type.Number()),
  pods: Nullable(Type.Number()),
  gpu: Nullable(Type.Number()),
  idleVcpu: Type.Number(),
  idleMemoryGiB: Type.Number(),
  /**
   * price × (1 − (w_cpu × cpu efficiency + w_memory × memory efficiency + w_gpu × gpu efficiency)), the weights by
   * relative price (core/cost-weights.ts), USD per hour; 0 without a price.
   */
  idleUsdPerHour: Type.Number(),
  /** The node's rates under that weighting; null without a price. */
  idleRates: Nullable(IdleRatesSchema),
  /** Snapshots this row averages (1 without a window). */
  snapshots: Type.Integer(),
});
export type NodeRow = Static<typeof NodeRowSchema>;

export const NodesResponseSchema = Type.Object({
  /** The snapshot used, ISO 8601 UTC; null when there is no snapshot at or before `at`. */
  snapshotAt: Nullable(Type.String()),
  /** Start of the averaging window (inclusive), ISO 8601 UTC; equals snapshotAt without a window. */
  windowFrom: Nullable(Type.String()),
  /** Rows matching the filters, before paging. */
  total: Type.Integer(),
  offset: Type.Integer(),
  rows: Type.Array(NodeRowSchema),
});
export type NodesResponse = Static<typeof NodesResponseSchema>;
