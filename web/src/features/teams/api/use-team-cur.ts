import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** The query of /api/teams/cur: the team query without the method (all three are compared), with the cost metric. */
export type TeamCurParams = JsonParams<'/api/teams/cur'>;

/** AWS's split from the CUR per team and day beside our three methods, and the differences. */
export const useTeamCur = (params: TeamCurParams | undefined) =>
  useQuery({
    ...jsonQuery('/api/teams/cur', params),
    enabled: params !== undefined,
    placeholderData: keepPreviousData,
  });
