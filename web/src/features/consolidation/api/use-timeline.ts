import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import { jsonQuery } from '../../../lib/json-query';

/** The request useTimeline makes (asked ahead too, web/src/app/pages.ts). */
export const timelineQuery = (query: RangeQuery | undefined) => jsonQuery('/api/consolidation/timeline', query);

/** Cluster and NodePool efficiency and cost per hour over the range, with the disruptions in it. */
export const useTimeline = (query: RangeQuery | undefined) =>
  useQuery({
    ...timelineQuery(query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });
