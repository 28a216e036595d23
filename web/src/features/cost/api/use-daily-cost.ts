import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DailyCostResponse, RangeQuery } from '../../../../../server/schemas/reports';
import { getJson } from '../../../lib/api-client';

/** Bill and estimate per UTC day per NodePool for the range. */
export const useDailyCost = (query: RangeQuery) =>
  useQuery({
    queryKey: ['cost', 'nodepools', 'daily', query],
    queryFn: ({ signal }) => getJson<DailyCostResponse>('/api/cost/nodepools/daily', query, signal),
    placeholderData: keepPreviousData,
  });
