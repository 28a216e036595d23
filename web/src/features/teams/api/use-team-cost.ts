import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { TeamCostResponse, TeamCostSeriesResponse } from '../../../../../server/schemas/teams';
import { getJson } from '../../../lib/api-client';

export type TeamCostParams = Record<string, string | undefined>;

/** Team cost over the whole range (the table, the totals, the team list). */
export const useTeamCost = (params: TeamCostParams | undefined) =>
  useQuery({
    queryKey: ['teams', 'cost', params ?? {}],
    queryFn: ({ signal }) => getJson<TeamCostResponse>('/api/teams/cost', params, signal),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });

/** Team cost per day (or week past 31 days) over the range, for the chart: one request, the server cuts the buckets. */
export const useTeamCostSeries = (params: TeamCostParams | undefined) =>
  useQuery({
    queryKey: ['teams', 'cost', 'series', params ?? {}],
    queryFn: ({ signal }) => getJson<TeamCostSeriesResponse>('/api/teams/cost/series', params, signal),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });
