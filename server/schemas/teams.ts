import { Type, type Static } from '@sinclair/typebox';
import { LABEL_KEY_PATTERN, Nullable, rangeQueryProperties, TEAM_PATTERN, WEIGHTS_PATTERN } from './common.js';

/**
 * Team attribution (GET /api/teams/cost): each node's cost over the range split over its pods, by one of three
 * methods (core/attribution/; named with their source in `methodInfo`):
 *
 * method=request-share (default): a pod's share of a node-hour is w_cpu × pod cpu ÷ node allocatable cpu
 * + w_memory × pod memory ÷ node allocatable memory (weights default 0.5,0.5); what no pod requested is idle.
 *
 * method=aws-split: AWS split cost allocation data for EKS as AWS defines it: the instance's cost divided over the
 * instance type's vCPU and GB weighted 9:1, each pod charged its split usage ratio of max(used, reserved); the
 * unused capacity's cost is the idle line (idle=line) or handed to the pods as AWS does (idle=spread).
 *
 * method=opencost: the OpenCost specification: the node's price split into CPU and RAM prices by OpenCost's base
 * prices over its capacity, each pod charged max(request, usage) × those prices; the rest is idle.
 *
 * AWS split and OpenCost take usage where it is collected and requests alone otherwise; `feed` says which.
 * Rows are in cents that add up exactly: Σ team rows + Σ idle rows = node cost (largest-remainder rounding).
 */

export const TeamMethodSchema = Type.Union([Type.Literal('request-share'), Type.Literal('aws-split'), Type.Literal('opencost')]);

/** The method as the dashboard names it, and where its definition comes from. */
export const TeamMethodInfoSchema = Type.Object({
  id: TeamMethodSchema,
  name: Type.String(),
  /** Whose definition it follows, by name. */
  source: Type.String(),
  /** Where that definition is published; null for request share (this project's README). */
  url: Nullable(Type.String()),
  definition: Type.String(),
});

/** What fed the method over the range. */
export const TeamMethodFeedSchema = Type.Object({
  /** not-applicable: requests by definition; none: requests only (no usage collected); partial / all: max(request, usage). */
  usage: Type.Union([Type.Literal('not-applicable'), Type.Literal('none'), Type.Literal('partial'), Type.Literal('all')]),
  /** Pod-hours with usage ÷ pod-hours; null when unknown or not applicable. */
  usagePodHoursShare: Nullable(Type.Number()),
  /** In words, e.g. "AWS split cost allocation fed by requests only (no usage collected): …". */
  note: Type.String(),
});

/** The parameters of GET /api/teams/cost, shared by the series. */
export const teamCostQueryProperties = {
  ...rangeQueryProperties,
  team: Type.Optional(
    Type.String({ pattern: TEAM_PATTERN, maxLength: 63, description: 'Only this team (or namespace with groupBy=namespace).' }),
  ),
  method: Type.Optional(TeamMethodSchema),
  weights: Type.Optional(
    Type.String({ pattern: WEIGHTS_PATTERN, maxLength: 20, description: 'cpu,memory weights (request-share). Default 0.5,0.5.' }),
  ),
  idle: Type.Optional(
    Type.Union([Type.Literal('line'), Type.Literal('spread')], {
      description: 'line (default): idle cost per NodePool as its own row; spread: spread over the teams in the NodePool by their cost.',
    }),
  ),
  label: Type.Optional(
    Type.String({
      pattern: LABEL_KEY_PATTERN,
      maxLength: 317,
      description:
        'Label naming the team. Default team: the pod label, else the namespace label, as collected. Another key reads the namespace label.',
    }),
  ),
  groupBy: Type.Optional(Type.Union([Type.Literal('team'), Type.Literal('namespace')])),
};

export const TeamCostQuerySchema = Type.Object(teamCostQueryProperties, { additionalProperties: false });
export type TeamCostQuery = Static<typeof TeamCostQuerySchema>;

/** The row's cluster: only in an answer about every cluster of a ledger holding several (no `?cluster=`). */
const RowClusterProperty = Type.Optional(Type.String());

export const TeamCostRowSchema = Type.Object({
  cluster: RowClusterProperty,
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  /** Team (or namespace); null on idle rows and for pods without the label. */
  team: Nullable(Type.String()),
  /** '' = nodes not launched by Karpenter. */
  nodePool: Type.String(),
  /** USD, rounded to cents so that all rows add up to the rounded node cost. */
  costUsd: Type.Number(),
  /** costUsd ÷ the node cost of the range. */
  share: Nullable(Type.Number()),
  /** Idle spread into this row (idle=spread; under aws-split AWS's unused cost first), USD, included in costUsd. */
  idleSpreadUsd: Type.Number(),
});
export type TeamCostRow = Static<typeof TeamCostRowSchema>;

/** One team's (or the idle) cost over all NodePools, USD rounded to cents. */
const TeamTotalSchema = Type.Object({
  cluster: RowClusterProperty,
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  team: Nullable(Type.String()),
  costUsd: Type.Number(),
});

const TeamCostTotalsSchema = Type.Object({
  /** Σ node price × hours over the range, USD, rounded to cents. */
  nodeCostUsd: Type.Number(),
  teamsUsd: Type.Number(),
  /** Node cost − team lines; under opencost it can be negative where usage above requests passed a node's capacity. */
  idleUsd: Type.Number(),
  /**
   * Node cost − team lines − idle as computed independently from the NodePool rollup (Σ price × (1 − weighted
   * efficiency)), before rounding, USD: ~0 when the rollups agree. The idle lines absorb it so the rows add up.
   * 0 for aws-split and opencost (no independent figure).
   */
  residualUsd: Type.Number(),
});

export const TeamCostResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  method: TeamMethodSchema,
  methodInfo: TeamMethodInfoSchema,
  feed: TeamMethodFeedSchema,
  /** null for aws-split and opencost. */
  weights: Nullable(Type.Object({ cpu: Type.Number(), memory: Type.Number() })),
  idle: Type.Union([Type.Literal('line'), Type.Literal('spread')]),
  label: Type.String(),
  groupBy: Type.Union([Type.Literal('team'), Type.Literal('namespace')]),
  /**
   * Team rows by NodePool and cost (largest first), then idle rows. Every cluster of a ledger holding several (no
   * `?cluster=`): each cluster's rows in turn, each naming its cluster (a team or namespace, and a NodePool, of two
   * clusters is two rows: each cluster's split is its own, exactly what `?cluster=` answers); totals added.
   */
  rows: Type.Array(TeamCostRowSchema),
  /** Per team over all NodePools, largest first (idle as team null, kind idle). */
  teams: Type.Array(TeamTotalSchema),
  totals: TeamCostTotalsSchema,
  /** Caveats, e.g. snapshots stored before per-resource shares were recorded. */
  notes: Type.Array(Type.String()),
});
export type TeamCostResponse = Static<typeof TeamCostResponseSchema>;

/**
 * Team cost over time (GET /api/teams/cost/series): the range cut into day or week buckets from `from`, each split
 * exactly as GET /api/teams/cost over that bucket's range (same parameters, same cents). One request for a chart.
 */
export const TeamCostSeriesQuerySchema = Type.Object(
  {
    ...teamCostQueryProperties,
    bucket: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('week')], {
        description:
          'day: 24 h buckets from `from`; week: 7-day buckets from `from` (the last one may be shorter). Default: day up to 31 days, week beyond.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TeamCostSeriesQuery = Static<typeof TeamCostSeriesQuerySchema>;

export const TeamCostSeriesBucketSchema = Type.Object({
  /** Bucket start, ISO 8601 UTC, inclusive. */
  from: Type.String(),
  /** Bucket end, ISO 8601 UTC, exclusive. */
  to: Type.String(),
  /** Per team over all NodePools in this bucket, largest first, then idle (kind idle, team null; absent when idle=spread spread all of it). */
  teams: Type.Array(TeamTotalSchema),
  /** This bucket's totals: its team and idle cents add up to its node cost. */
  totals: TeamCostTotalsSchema,
});
export type TeamCostSeriesBucket = Static<typeof TeamCostSeriesBucketSchema>;

export const TeamCostSeriesResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  bucket: Type.Union([Type.Literal('day'), Type.Literal('week')]),
  method: TeamMethodSchema,
  methodInfo: TeamMethodInfoSchema,
  feed: TeamMethodFeedSchema,
  weights: Nullable(Type.Object({ cpu: Type.Number(), memory: Type.Number() })),
  idle: Type.Union([Type.Literal('line'), Type.Literal('spread')]),
  label: Type.String(),
  groupBy: Type.Union([Type.Literal('team'), Type.Literal('namespace')]),
  /** Every bucket of the range in time order, empty ones included. */
  buckets: Type.Array(TeamCostSeriesBucketSchema),
  notes: Type.Array(Type.String()),
});
export type TeamCostSeriesResponse = Static<typeof TeamCostSeriesResponseSchema>;
