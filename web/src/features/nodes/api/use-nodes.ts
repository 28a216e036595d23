import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { NodesResponse } from '@schemas/efficiency';
import { jsonQuery } from '../../../lib/json-query';

/** One page of the node table at a snapshot. */
export const useNodes = (query: Record<string, string | undefined>) =>
  useQuery({
    ...jsonQuery<NodesResponse>('/api/nodes', query),
    placeholderData: keepPreviousData,
  });
