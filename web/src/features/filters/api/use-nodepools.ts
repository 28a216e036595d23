import { useQuery } from '@tanstack/react-query';
import type { NodePoolsResponse } from '@schemas/nodepools';
import { jsonQuery } from '../../../lib/json-query';

export const useNodePools = () =>
  useQuery({
    ...jsonQuery<NodePoolsResponse>('/api/nodepools'),
    staleTime: 5 * 60_000,
  });
