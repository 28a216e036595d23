import { queryOptions } from '@tanstack/react-query';
import { getJson, type QueryParams } from './api-client';

/**
 * Query options for GET `path` with `params`, keyed by the request itself ([path, params]; a parameter left
 * undefined is left out of both): hooks asking the same request share one cache entry, and hooks asking
 * differently (another sort, say) never do. Invalidate a route's entries with the key [path].
 */
export const jsonQuery = <T>(path: string, params?: QueryParams) =>
  queryOptions({
    queryKey: [path, params ?? {}] as const,
    queryFn: ({ signal }) => getJson<T>(path, params, signal),
  });
