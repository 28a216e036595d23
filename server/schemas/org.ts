import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';

/**
 * The organisation's answers (`serve --org athena://WORKGROUP/DATABASE`: GET /api/org/overview and /api/org/teams,
 * server/org/org-service.ts), shared with the Organisation page through `@schemas/org`. The org routes are not in the
 * one-ledger route map (a server without --org has no such routes), so these are declared here on their own.
 */

/** What one Athena statement scanned and cost (USD 5 per TB, at least 10 MB a query, rounded up to the MB). */
export const OrgQueryInfoSchema = Type.Object({
  engine: Type.String(),
  queryExecutionId: Type.String(),
  scannedBytes: Type.Number(),
  billedBytes: Type.Number(),
  /** What this query cost at USD 5/TB (0 when answered from the cache: it was paid once). */
  costUsd: Type.Number(),
  engineMs: Type.Number(),
  /** Answered from the cache (the query ran earlier, for this same statement). */
  cached: Type.Boolean(),
});
export type OrgQueryInfo = Static<typeof OrgQueryInfoSchema>;

/** [from, to) in UTC days as the org routes take them; both absent: the server's default (the last 7 days). */
export const OrgRangeQuerySchema = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()) });
export type OrgRange = Static<typeof OrgRangeQuerySchema>;

export const OrgOverviewResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  rows: Type.Array(
    Type.Object({
      cluster: Type.String(),
      day: Type.String(),
      nodePool: Type.String(),
      capacityType: Type.String(),
      estimateUsd: Type.Number(),
    }),
  ),
  clusters: Type.Array(
    Type.Object({
      cluster: Type.String(),
      estimateUsd: Type.Number(),
      nodeHours: Type.Number(),
      cpu: Nullable(Type.Number()),
      memory: Nullable(Type.Number()),
    }),
  ),
  totals: Type.Object({ estimateUsd: Type.Number() }),
  query: OrgQueryInfoSchema,
});
export type OrgOverviewResponse = Static<typeof OrgOverviewResponseSchema>;

export const OrgTeamMethodSchema = Type.Union([Type.Literal('request-share'), Type.Literal('aws-split'), Type.Literal('opencost')]);
export type OrgTeamMethod = Static<typeof OrgTeamMethodSchema>;

export const OrgTeamLineSchema = Type.Object({
  kind: Type.Union([Type.Literal('team'), Type.Literal('idle')]),
  team: Nullable(Type.String()),
  costUsd: Type.Number(),
});
export type OrgTeamLine = Static<typeof OrgTeamLineSchema>;

const OrgTeamTotalsSchema = Type.Object({ nodeCostUsd: Type.Number(), teamsUsd: Type.Number(), idleUsd: Type.Number() });

export const OrgTeamsResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  method: OrgTeamMethodSchema,
  methodName: Type.String(),
  idle: Type.Union([Type.Literal('line'), Type.Literal('spread')]),
  groupBy: Type.Union([Type.Literal('team'), Type.Literal('namespace')]),
  clusters: Type.Array(Type.Object({ cluster: Type.String(), teams: Type.Array(OrgTeamLineSchema), totals: OrgTeamTotalsSchema })),
  /** Every cluster's lines summed per team (cents added, so they add up to the clusters' totals). */
  teams: Type.Array(OrgTeamLineSchema),
  totals: OrgTeamTotalsSchema,
  query: OrgQueryInfoSchema,
});
export type OrgTeamsResponse = Static<typeof OrgTeamsResponseSchema>;
