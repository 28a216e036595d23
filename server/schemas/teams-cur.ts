import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CurSourceInfoSchema } from './bill-cur.js';
import { CostMetricSchema } from './cost.js';
import { Nullable } from './common.js';
import { teamCostQueryProperties } from './teams.js';

/**
 * AWS's split from the Cost and Usage Report beside our three methods (GET /api/teams/cur): per team (or namespace)
 * and UTC day, AWS's split cost allocation for EKS as the CUR bills it (split_line_item_split_cost, or the net
 * variant under a net metric; split_line_item_unused_cost as the idle line, or handed to the teams with idle=spread),
 * each of our methods' figure over the same day, and CUR − ours. Teams are namespaces mapped by the same rules as
 * /api/teams/cost. USD to the cent.
 *
 * AWS computes the split from the instance's amortized cost, so under `unblended` the CUR figure is still
 * amortized (and under `net-unblended`, net amortized): the response says so in `notes`.
 */

const { method: _method, ...shared } = teamCostQueryProperties;

export const TeamCurQuerySchema = Type.Object(
  {
    ...shared,
    metric: Type.Optional(CostMetricSchema),
    basis: Type.Optional(
      Type.Union([Type.Literal('billed'), Type.Literal('public-on-demand')], {
        description:
          "billed (default): AWS's split of what was billed (split cost, or net split cost under a net metric); public-on-demand: the split of the instances' public on-demand cost (split_line_item_public_on_demand_*), which takes commitments and discounts out of the difference.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type TeamCurQuery = Static<typeof TeamCurQuerySchema>;

/** A figure per method, USD. */
const PerMethod = <T extends TSchema>(t: T) => Type.Object({ 'request-share': t, 'aws-split': t, opencost: t });

export const TeamCurSeriesSchema = Type.Object({
  id: Type.Union([Type.Literal('request-share'), Type.Literal('aws-split'), Type.Literal('opencost'), Type.Literal('aws-split-cur')]),
  name: Type.String(),
  /** Where the figures come from, in words. */
  source: Type.String(),
});

export const TeamCurRowSchema = Type.Object({
  /** UTC day, YYYY-MM-DD. */
  day: Type.String(),
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  /** Team (or namespace); null on idle rows and for namespaces without the label. */
  team: Nullable(Type.String()),
  /** AWS's split from the CUR, USD; null on a day the CUR has no split lines for. */
  curUsd: Nullable(Type.Number()),
  ours: PerMethod(Type.Number()),
  /** curUsd − ours, USD; null where curUsd is. */
  differenceUsd: PerMethod(Nullable(Type.Number())),
});
export type TeamCurRow = Static<typeof TeamCurRowSchema>;

export const TeamCurTotalSchema = Type.Object({
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  team: Nullable(Type.String()),
  /** Over the days the CUR covers (`curDays`) only, USD. */
  curUsd: Type.Number(),
  ours: PerMethod(Type.Number()),
  differenceUsd: PerMethod(Type.Number()),
});
export type TeamCurTotal = Static<typeof TeamCurTotalSchema>;

export const TeamCurResponseSchema = Type.Object({
  /** First day (YYYY-MM-DD): `from` rounded down to UTC midnight (the CUR is per day). */
  from: Type.String(),
  /** Day after the last (exclusive). */
  to: Type.String(),
  metric: CostMetricSchema,
  basis: Type.Union([Type.Literal('billed'), Type.Literal('public-on-demand')]),
  idle: Type.Union([Type.Literal('line'), Type.Literal('spread')]),
  label: Type.String(),
  groupBy: Type.Union([Type.Literal('team'), Type.Literal('namespace')]),
  /** True when the CUR has split cost allocation lines for some day of the range. */
  available: Type.Boolean(),
  source: CurSourceInfoSchema,
  /** The four series: our three methods, then "AWS split (CUR)". */
  series: Type.Array(TeamCurSeriesSchema),
  /** Days of the range with CUR split lines. */
  curDays: Type.Array(Type.String()),
  /** Per day, teams largest first, idle last. */
  rows: Type.Array(TeamCurRowSchema),
  /** Per team over curDays, largest CUR figure first, idle last. */
  totals: Type.Array(TeamCurTotalSchema),
  notes: Type.Array(Type.String()),
});
export type TeamCurResponse = Static<typeof TeamCurResponseSchema>;
