import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OrgOverviewResponse, OrgRange, OrgTeamMethod, OrgTeamsResponse } from '@schemas/org';
import { ApiError } from '../../../lib/api-client';

/**
 * The organisation's routes (`serve --org athena://WORKGROUP/DATABASE`: server/org/org-routes.ts). They are not in the
 * one-ledger route map (a server without --org has no such routes: 404); their answers' types are the server's, shared
 * through @schemas/org.
 */

export type { OrgQueryInfo, OrgTeamLine, OrgTeamMethod } from '@schemas/org';
export type OrgOverview = OrgOverviewResponse;
export type OrgTeams = OrgTeamsResponse;
/** [from, to) in UTC days as the org routes take them; both undefined: the server's default (the last 7 days). */
export type OrgRangeParams = OrgRange;

async function getOrg<T>(path: string, params: Record<string, string | undefined>, signal: AbortSignal): Promise<T> {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, v);
  const url = search.size === 0 ? path : `${path}?${search}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiError(0, 'The NodePool Ledger server did not answer.', path);
  }
  const body = (await res.json().catch(() => null)) as { message?: unknown } | null;
  if (!res.ok) throw new ApiError(res.status, typeof body?.message === 'string' ? body.message : `HTTP ${res.status}`, path);
  return body as T;
}

/** A 404 from the org routes: this server was started without --org. */
export const notAnOrgServer = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

const retry = (count: number, err: unknown) => !notAnOrgServer(err) && count < 2;

export const useOrgOverview = (range: OrgRangeParams) =>
  useQuery({
    queryKey: ['/api/org/overview', range] as const,
    queryFn: ({ signal }) => getOrg<OrgOverview>('/api/org/overview', { ...range }, signal),
    placeholderData: keepPreviousData,
    retry,
  });

export const useOrgTeams = (range: OrgRangeParams, method: OrgTeamMethod) =>
  useQuery({
    queryKey: ['/api/org/teams', range, method] as const,
    queryFn: ({ signal }) => getOrg<OrgTeams>('/api/org/teams', { ...range, method }, signal),
    placeholderData: keepPreviousData,
    retry,
  });
