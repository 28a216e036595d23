import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { NodesResponse } from '../../../../../server/schemas/efficiency';
import { getJson } from '../../../lib/api-client';

/** One page of the node table at a snapshot. */
export const useNodes = (query: Record<string, string | undefined>) =>
  useQuery({
    queryKey: ['nodes', query],
    queryFn: ({ signal }) => getJson<NodesResponse>('/api/nodes', query, signal),
    placeholderData: keepPreviousData,
  });
