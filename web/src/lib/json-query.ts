import { queryOptions } from '@tanstack/react-query';
import type { ApiGetPath } from '@schemas/api-routes';
import { getJson, type JsonParams } from './api-client';
import { withCluster } from './cluster';

/**
 * Query options for GET `path` with `params`, keyed by the request itself ([path, params]; a parameter left
 * undefined is left out of both): hooks asking the same request share one cache entry, and hooks asking
 * differently (another sort, say) never do. Invalidate a route's entries with the key [path]. The data is typed by
 * the path (server/schemas/api-routes.ts); only the path says which route it is (NoInfer: the params never widen P).
 */
export const jsonQuery = <P extends ApiGetPath>(path: P, params?: NoInfer<JsonParams<P>>) => {
  // The page's cluster is part of the request, so of its key: another cluster is another cache entry.
  const asked = withCluster(path, params);
  return queryOptions({
    queryKey: [path, asked ?? {}] as const,
    queryFn: ({ signal }) => getJson(path, asked, signal),
  });
};
