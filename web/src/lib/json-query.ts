import { queryOptions } from '@tanstack/react-query';
import type { ApiGetPath } from '@schemas/api-routes';
import { getJson, type JsonParams } from './api-client';

/**
 * Query options for GET `path` with `params`, keyed by the request itself ([path, params]; a parameter left
 * undefined is left out of both): hooks asking the same request share one cache entry, and hooks asking
 * differently (another sort, say) never do. Invalidate a route's entries with the key [path]. The data is typed by
 * the path (server/schemas/api-routes.ts).
 */
export const jsonQuery = <P extends ApiGetPath>(path: P, params?: JsonParams<P>) =>
  queryOptions({
    queryKey: [path, params ?? {}] as const,
    queryFn: ({ signal }) => getJson(path, params, signal),
  });
