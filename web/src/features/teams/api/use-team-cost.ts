import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { TeamCostResponse, TeamCostSeriesResponse } from '@schemas/teams';
import { jsonQuery } from '../../../lib/json-query';

export type TeamCostParams = Record<string, string | undefined>;

/** Team cost over the whole range (the table, the totals, the team list). */
export const useTeamCost = (params: TeamCostParams | undefined) =>
  useQuery({
    ...jsonQuery<TeamCostResponse>('/api/teams/cost', params),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });

/** Team cost per day (or week past 31 days) over the range, for the chart: one request, the server cuts the buckets. */
export const useTeamCostSeries = (params: TeamCostParams | undefined) =>
  useQuery({
    ...jsonQuery<TeamCostSeriesResponse>('/api/teams/cost/series', params),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });
