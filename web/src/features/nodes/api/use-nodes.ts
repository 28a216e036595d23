import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** One page of the node table at a snapshot. */
export const useNodes = (query: JsonParams<'/api/nodes'>) =>
  useQuery({
    ...jsonQuery('/api/nodes', query),
    placeholderData: keepPreviousData,
  });
