import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import { jsonQuery } from '../../../lib/json-query';

/** Cluster and NodePool efficiency and cost per hour over the range, with the disruptions in it. */
export const useTimeline = (query: RangeQuery | undefined) =>
  useQuery({
    ...jsonQuery('/api/consolidation/timeline', query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });
