import { Type, type Static } from '@sinclair/typebox';
import {
  NODEPOOL_NAME_PATTERN,
  DURATION_PATTERN,
  EVENT_ID_PATTERN,
  FormatSchema,
  IsoInstantQuery,
  Nullable,
  packingProperties,
  rangeQueryProperties,
} from './common.js';
import { IdleRatesSchema } from './efficiency.js';

/**
 * Consolidation before/after: GET /api/consolidation/events (disruptions found in the Kubernetes events
 * and NodeClaim lifetimes), GET /api/consolidation/compare (equal windows before and after an event or an
 * instant) and GET /api/consolidation/timeline (efficiency and cost per hour over time, events marked).
 */

export const DisruptionReasonSchema = Type.Union([
  Type.Literal('Underutilized'),
  Type.Literal('Empty'),
  Type.Literal('Drifted'),
  Type.Literal('Expired'),
  Type.Literal('Interrupted'),
]);

/** A month of a 1,000-node cluster holds ~6,000 disruptions (2.4 MB): too much for one answer, so the list is paged. */
export const DEFAULT_EVENTS_PAGE = 200;
export const MAX_EVENTS_PAGE = 1000;

export const ConsolidationEventsQuerySchema = Type.Object(
  {
    ...rangeQueryProperties,
    reason: Type.Optional(DisruptionReasonSchema),
    kind: Type.Optional(
      Type.Union([Type.Literal('disruption'), Type.Literal('blocked'), Type.Literal('all')], {
        description: 'disruption (default): nodes removed or replaced; blocked: DisruptionBlocked events; all: both.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_EVENTS_PAGE,
        description: `Rows per page, 1..${MAX_EVENTS_PAGE}. Default ${DEFAULT_EVENTS_PAGE}. CSV ignores it.`,
      }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Rows to skip. Default 0. CSV ignores it.' })),
  },
  { additionalProperties: false },
);
export type ConsolidationEventsQuery = Static<typeof ConsolidationEventsQuerySchema>;

/**
 * The row's cluster (its eks:eks-cluster-name): given only under "All clusters" (no `?cluster=`) of a ledger holding
 * several clusters, where rows of every cluster stand side by side. A one-cluster ledger's answer is as before.
 */
const clusterProperty = { cluster: Type.Optional(Type.String()) };

export const DisruptionEventSchema = Type.Object({
  ...clusterProperty,
  /** Stable id `<atMs>-<nodeclaim or node name>`: pass it to /api/consolidation/compare?event=. */
  id: Type.String(),
  /** ISO 8601 UTC. */
  at: Type.String(),
  atMs: Type.Number(),
  nodeName: Nullable(Type.String()),
  nodeClaim: Nullable(Type.String()),
  /** '' when unknown or not a Karpenter node. */
  nodePool: Type.String(),
  /** Underutilized | Empty | Drifted | Expired | Interrupted, or another reason as Karpenter wrote it; '' for blocked events. */
  reason: Type.String(),
  /** Delete | Replace | Blocked; null when only the NodeClaim's lifetime tells (its events expired). */
  action: Nullable(Type.String()),
  /** event: from Kubernetes events; nodeclaim: a NodeClaim gone with a disruption reason but no event stored. */
  source: Type.Union([Type.Literal('event'), Type.Literal('nodeclaim')]),
  /** A SpotInterrupted event was seen for this node. */
  spotInterrupted: Type.Boolean(),
  instanceType: Nullable(Type.String()),
  capacityType: Nullable(Type.String()),
  /** First snapshot where the node was gone, ISO 8601 UTC; null while it lives. */
  nodeDeletedAt: Nullable(Type.String()),
  /** NodeClaims launched with DisruptionLaunching at the same time in the same NodePool. */
  replacements: Type.Array(Type.String()),
  /** The event message (for blocked events: why). */
  message: Type.String(),
});
export type DisruptionEvent = Static<typeof DisruptionEventSchema>;

export const ConsolidationEventsResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  /** Rows matching the filters, before paging. */
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  /** This page: sorted by time, then NodePool and node. */
  rows: Type.Array(DisruptionEventSchema),
  /** Events per reason over every row matching the filters, not only this page (blocked events count under "Blocked"). */
  counts: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() })),
});
export type ConsolidationEventsResponse = Static<typeof ConsolidationEventsResponseSchema>;

export const ConsolidationCompareQuerySchema = Type.Object(
  {
    event: Type.Optional(
      Type.String({ pattern: EVENT_ID_PATTERN, maxLength: 300, description: 'An event id from /api/consolidation/events.' }),
    ),
    at: Type.Optional(IsoInstantQuery('Compare around this instant instead of an event.')),
    window: Type.Optional(
      Type.String({ pattern: DURATION_PATTERN, maxLength: 6, description: 'Length of each window, 5m..24h. Default 1h.' }),
    ),
    nodepool: Type.Optional(Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'Only this NodePool.' })),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type ConsolidationCompareQuery = Static<typeof ConsolidationCompareQuerySchema>;

/** Which nodes a row or series covers: the whole cluster (nodePool null) or one NodePool. */
const scopeProperties = {
  scope: Type.Union([Type.Literal('cluster'), Type.Literal('nodepool')]),
  /** null on the cluster row. */
  nodePool: Nullable(Type.String()),
};

/** Node count, cost per hour and cpu/memory packing: what a timeline point shows and what a before/after change measures. */
const fleetFigureProperties = {
  nodesAvg: Type.Number(),
  usdPerHourAvg: Type.Number(),
  cpu: Nullable(Type.Number()),
  memory: Nullable(Type.Number()),
  costWeightedCpu: Nullable(Type.Number()),
  costWeightedMemory: Nullable(Type.Number()),
};

export const WindowStatsSchema = Type.Object({
  /** Hours of the window covered by snapshots. */
  hours: Type.Number(),
  nodesAvg: Type.Number(),
  usdPerHourAvg: Type.Number(),
  costUsd: Type.Number(),
  ...packingProperties,
  /** Time-averaged price no request covers, each node's price split by relative price (core/cost-weights.ts), USD/h. */
  idleUsdPerHourAvg: Type.Number(),
  /** The rates that idle was priced at. */
  idleRates: IdleRatesSchema,
});
export type WindowStats = Static<typeof WindowStatsSchema>;

export const CompareRowSchema = Type.Object({
  ...clusterProperty,
  ...scopeProperties,
  /** The NodePool of the event compared. */
  consolidated: Type.Boolean(),
  before: WindowStatsSchema,
  after: WindowStatsSchema,
  /** after − before; efficiency changes in fraction points (0.1 = 10 points), null when either side is null. */
  change: Type.Object(fleetFigureProperties),
});
export type CompareRow = Static<typeof CompareRowSchema>;

export const ConsolidationCompareResponseSchema = Type.Object({
  /** The instant compared around, ISO 8601 UTC. */
  at: Type.String(),
  windowMs: Type.Integer(),
  /** [at − window, at) */
  before: Type.Object({ from: Type.String(), to: Type.String() }),
  /** [at, at + window) */
  after: Type.Object({ from: Type.String(), to: Type.String() }),
  /** The event compared; null for a chosen instant. */
  event: Nullable(DisruptionEventSchema),
  /**
   * The cluster row first, then NodePools by name. With `?cluster=`, or an event (its cluster's rows), one cluster's;
   * at an instant under "All clusters" of a ledger of several: each cluster's rows in turn, clusters by name, each
   * naming its cluster (packing is per cluster).
   */
  rows: Type.Array(CompareRowSchema),
});
export type ConsolidationCompareResponse = Static<typeof ConsolidationCompareResponseSchema>;

export const ConsolidationTimelineQuerySchema = Type.Object(rangeQueryProperties, { additionalProperties: false });
export type ConsolidationTimelineQuery = Static<typeof ConsolidationTimelineQuerySchema>;

export const TimelinePointSchema = Type.Object({
  /** Bucket start, epoch ms UTC. */
  tMs: Type.Number(),
  ...fleetFigureProperties,
});
export type TimelinePoint = Static<typeof TimelinePointSchema>;

export const TimelineSeriesSchema = Type.Object({
  ...clusterProperty,
  ...scopeProperties,
  /** At most 300 points; buckets without snapshots are absent. */
  points: Type.Array(TimelinePointSchema),
});
export type TimelineSeries = Static<typeof TimelineSeriesSchema>;

export const TimelineMarkerSchema = Type.Object({
  ...clusterProperty,
  id: Type.String(),
  atMs: Type.Number(),
  nodePool: Type.String(),
  reason: Type.String(),
  action: Nullable(Type.String()),
  /** Disruptions this marker stands for: 1, or more when markers were thinned to one per bucket, NodePool and reason (see events). */
  count: Type.Integer(),
});
export type TimelineMarker = Static<typeof TimelineMarkerSchema>;

export const ConsolidationTimelineResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  /** Bucket length in ms (≤ 300 points per series). */
  bucketMs: Type.Integer(),
  /**
   * Cluster series first, then NodePools by name. Under "All clusters" of a ledger of several: each cluster's series
   * (its cluster series, then its NodePools), clusters by name, each naming its cluster: packing is per cluster.
   */
  series: Type.Array(TimelineSeriesSchema),
  /**
   * Under "All clusters" of a ledger of several only: per bucket, nodes and cost per hour summed over the clusters
   * (each cluster's time-average, added); packing is not summed (see series).
   */
  totals: Type.Optional(Type.Array(Type.Object({ tMs: Type.Number(), nodesAvg: Type.Number(), usdPerHourAvg: Type.Number() }))),
  /**
   * Disruptions in the range (not blocked events), by time; beyond 300, one marker per bucket x NodePool x reason with a
   * count, the bucket (bucketMs at first) doubled until at most 300 markers are left.
   */
  events: Type.Array(TimelineMarkerSchema),
});
export type ConsolidationTimelineResponse = Static<typeof ConsolidationTimelineResponseSchema>;
