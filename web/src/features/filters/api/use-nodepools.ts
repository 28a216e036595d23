import { useQuery } from '@tanstack/react-query';
import type { NodePoolsResponse } from '../../../../../server/schemas/reports';
import { getJson } from '../../../lib/api-client';

export const useNodePools = () =>
  useQuery({
    queryKey: ['nodepools'],
    queryFn: ({ signal }) => getJson<NodePoolsResponse>('/api/nodepools', undefined, signal),
    staleTime: 5 * 60_000,
  });
