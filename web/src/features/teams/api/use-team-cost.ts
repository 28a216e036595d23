import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import type { TeamCostResponse } from '../../../../../server/schemas/teams';
import { getJson } from '../../../lib/api-client';
import type { Bucket } from '../utils/team-series';

export type TeamCostParams = Record<string, string | undefined>;

/** Team cost over the whole range (the table, the totals, the team list). */
export const useTeamCost = (params: TeamCostParams | undefined) =>
  useQuery({
    queryKey: ['teams', 'cost', params ?? {}],
    queryFn: ({ signal }) => getJson<TeamCostResponse>('/api/teams/cost', params, signal),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });

/**
 * Team cost per bucket (the route answers for one range at a time, so the chart asks once per day or
 * week; the browser runs a few at a time and each is cached).
 */
export function useTeamCostBuckets(params: TeamCostParams | undefined, buckets: readonly Bucket[]) {
  return useQueries({
    queries: buckets.map((b) => {
      const q = { ...params, from: b.from, to: b.to };
      return {
        queryKey: ['teams', 'cost', q],
        queryFn: ({ signal }: { signal: AbortSignal }) => getJson<TeamCostResponse>('/api/teams/cost', q, signal),
        enabled: params !== undefined,
        staleTime: 5 * 60_000,
      };
    }),
  });
}
