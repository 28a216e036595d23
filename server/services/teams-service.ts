import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository';
import type { AnalyticsTeamsRepository, NamespaceSumsRow } from '../../db/repositories/analytics-teams-repository';
import { DEFAULT_TEAM_LABEL } from '../../core/labels';
import { DEFAULT_SHARE_WEIGHTS, sumByNodePool } from '../analytics/packing';
import { parseWeights } from '../analytics/query-params';
import { isoInstant, QueryParamError } from '../analytics/range';
import { attributeTeamCost } from '../analytics/team-cost';
import type { TeamCostQuery, TeamCostResponse } from '../schemas/teams';
import { rangeOf, type RangeContext } from './analytics-range';

/** Team attribution of node cost over a range. */
export function createTeamsService(teams: AnalyticsTeamsRepository, packing: AnalyticsPackingRepository, ctx: RangeContext) {
  return {
    cost(q: TeamCostQuery): TeamCostResponse {
      const range = rangeOf(ctx, q);
      const method = q.method ?? 'request-share';
      if (method === 'aws-split' && q.weights !== undefined) {
        throw new QueryParamError('weights', 'cannot be combined with method=aws-split (AWS split weighs cpu and memory 9:1 per vCPU:GiB)');
      }
      const weights = q.weights === undefined ? DEFAULT_SHARE_WEIGHTS : parseWeights('weights', q.weights);
      const label = q.label ?? DEFAULT_TEAM_LABEL;
      const groupBy = q.groupBy ?? 'team';
      const notes: string[] = [];

      // The collected team honours the pod label, then the namespace label; another key can only be read
      // from namespaces (pod labels are not kept per snapshot).
      let teamOf = (r: NamespaceSumsRow): string | null => r.team;
      if (groupBy === 'namespace') teamOf = (r) => r.namespace;
      else if (label !== DEFAULT_TEAM_LABEL) {
        const labels = teams.namespaceLabels();
        teamOf = (r) => labels.get(r.namespace)?.[label] ?? null;
        notes.push(`Teams come from the namespace label "${label}"; pod labels other than "${DEFAULT_TEAM_LABEL}" are not stored.`);
      }

      const pools = [...sumByNodePool(packing.poolSums(range)).entries()].map(([nodePool, s]) => ({
        nodePool, costUsd: s.costUsd, costWeightedCpuUsd: s.costWeightedCpuUsd, costWeightedMemoryUsd: s.costWeightedMemoryUsd,
      }));
      const result = attributeTeamCost(teams.namespaceSums(range), pools, { method, weights, idle: q.idle ?? 'line', teamOf });
      const onlyTeam = <T extends { kind: string; team: string | null }>(rows: T[]): T[] =>
        q.team === undefined ? rows : rows.filter((r) => r.kind === 'team' && r.team === q.team);
      return {
        from: isoInstant(range.fromMs), to: isoInstant(range.toMs), method, weights: method === 'aws-split' ? null : weights,
        idle: q.idle ?? 'line', label, groupBy, rows: onlyTeam(result.rows), teams: onlyTeam(result.teams), totals: result.totals,
        notes: [...notes, ...result.notes],
      };
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
