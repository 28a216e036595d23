import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ConsolidationTimelineResponse } from '../../../../../server/schemas/consolidation';
import type { RangeQuery } from '../../../../../server/schemas/reports';
import { getJson } from '../../../lib/api-client';

/** Cluster and NodePool efficiency and cost per hour over the range, with the disruptions in it. */
export const useTimeline = (query: RangeQuery | undefined) =>
  useQuery({
    queryKey: ['consolidation', 'timeline', query ?? {}],
    queryFn: ({ signal }) => getJson<ConsolidationTimelineResponse>('/api/consolidation/timeline', query, signal),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });
