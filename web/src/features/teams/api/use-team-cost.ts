import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** The query of /api/teams/cost (and its series, which also takes `bucket`). */
export type TeamCostParams = JsonParams<'/api/teams/cost'>;

/** Team cost over the whole range (the table, the totals, the team list). */
export const useTeamCost = (params: TeamCostParams | undefined) =>
  useQuery({
    ...jsonQuery('/api/teams/cost', params),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });

/** Team cost per day (or week past 31 days) over the range, for the chart: one request, the server cuts the buckets. */
export const useTeamCostSeries = (params: TeamCostParams | undefined) =>
  useQuery({
    ...jsonQuery('/api/teams/cost/series', params),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });
