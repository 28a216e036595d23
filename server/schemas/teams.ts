import { Type, type Static } from '@sinclair/typebox';
import { LABEL_KEY_PATTERN, Nullable, rangeQueryProperties, TEAM_PATTERN, WEIGHTS_PATTERN } from './analytics-common.js';

/**
 * Team attribution (GET /api/teams/cost): each node's cost over the range split over its pods.
 *
 * method=request-share (default): a pod's share of a node-hour is w_cpu × pod cpu ÷ node allocatable cpu
 * + w_memory × pod memory ÷ node allocatable memory (weights default 0.5,0.5); what no pod requested is idle.
 *
 * method=aws-split: AWS split cost allocation data for EKS, fed with requests only (usage is not collected):
 * the node price is divided between cpu and memory by 9:1 per vCPU:GiB, each part split over the node's
 * pods by their request share, which hands the node's unused capacity to its pods proportionally; only
 * nodes without requesting pods leave idle cost.
 *
 * Rows are in cents that add up exactly: Σ team rows + Σ idle rows = node cost (largest-remainder rounding).
 */

/** The parameters of GET /api/teams/cost, shared by the series. */
const teamCostQueryProperties = {
  ...rangeQueryProperties,
  team: Type.Optional(
    Type.String({ pattern: TEAM_PATTERN, maxLength: 63, description: 'Only this team (or namespace with groupBy=namespace).' }),
  ),
  method: Type.Optional(Type.Union([Type.Literal('request-share'), Type.Literal('aws-split')])),
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

export const TeamCostRowSchema = Type.Object({
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  /** Team (or namespace); null on idle rows and for pods without the label. */
  team: Nullable(Type.String()),
  /** '' = nodes not launched by Karpenter. */
  nodePool: Type.String(),
  /** USD, rounded to cents so that all rows add up to the rounded node cost. */
  costUsd: Type.Number(),
  /** costUsd ÷ the node cost of the range. */
  share: Nullable(Type.Number()),
  /** Idle spread into this row (idle=spread), USD, included in costUsd. */
  idleSpreadUsd: Type.Number(),
});
export type TeamCostRow = Static<typeof TeamCostRowSchema>;

/** One team's (or the idle) cost over all NodePools, USD rounded to cents. */
const TeamTotalSchema = Type.Object({
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  team: Nullable(Type.String()),
  costUsd: Type.Number(),
});

const TeamCostTotalsSchema = Type.Object({
  /** Σ node price × hours over the range, USD, rounded to cents. */
  nodeCostUsd: Type.Number(),
  teamsUsd: Type.Number(),
  idleUsd: Type.Number(),
  /**
   * Node cost − team lines − idle as computed independently from the NodePool rollup (Σ price × (1 − weighted
   * efficiency)), before rounding, USD: ~0 when the rollups agree. The idle lines absorb it so the rows add up.
   */
  residualUsd: Type.Number(),
});

export const TeamCostResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  method: Type.Union([Type.Literal('request-share'), Type.Literal('aws-split')]),
  /** null for aws-split. */
  weights: Nullable(Type.Object({ cpu: Type.Number(), memory: Type.Number() })),
  idle: Type.Union([Type.Literal('line'), Type.Literal('spread')]),
  label: Type.String(),
  groupBy: Type.Union([Type.Literal('team'), Type.Literal('namespace')]),
  /** Team rows by NodePool and cost (largest first), then idle rows. */
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
  method: Type.Union([Type.Literal('request-share'), Type.Literal('aws-split')]),
  weights: Nullable(Type.Object({ cpu: Type.Number(), memory: Type.Number() })),
  idle: Type.Union([Type.Literal('line'), Type.Literal('spread')]),
  label: Type.String(),
  groupBy: Type.Union([Type.Literal('team'), Type.Literal('namespace')]),
  /** Every bucket of the range in time order, empty ones included. */
  buckets: Type.Array(TeamCostSeriesBucketSchema),
  notes: Type.Array(Type.String()),
});
export type TeamCostSeriesResponse = Static<typeof TeamCostSeriesResponseSchema>;
