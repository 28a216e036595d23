import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { EfficiencyResponse, RangeQuery } from '../../../../../server/schemas/reports';
import { getJson } from '../../../lib/api-client';

/** Requests ÷ allocatable per NodePool over time (at most 1,000 points per series). */
export const useEfficiency = (query: RangeQuery) =>
  useQuery({
    queryKey: ['efficiency', 'nodepools', query],
    queryFn: ({ signal }) => getJson<EfficiencyResponse>('/api/efficiency/nodepools', query, signal),
    placeholderData: keepPreviousData,
  });
