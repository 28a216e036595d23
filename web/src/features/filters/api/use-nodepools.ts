import { useQuery } from '@tanstack/react-query';
import { jsonQuery } from '../../../lib/json-query';

export const useNodePools = () =>
  useQuery({
    ...jsonQuery('/api/nodepools'),
    staleTime: 5 * 60_000,
  });
