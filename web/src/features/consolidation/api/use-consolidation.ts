import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ConsolidationCompareResponse, ConsolidationEventsResponse } from '@schemas/consolidation';
import type { NodesResponse } from '@schemas/efficiency';
import type { RangeQuery } from '@schemas/common';
import { jsonQuery } from '../../../lib/json-query';

/** One page of the disruptions in the range (nodes removed or replaced), optionally of one reason; total and counts cover all. */
export const useEvents = (query: RangeQuery | undefined, reason: string | undefined, page: { limit: string; offset: string }) =>
  useQuery({
    ...jsonQuery<ConsolidationEventsResponse>('/api/consolidation/events', { ...query, reason, ...page }),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });

/** Equal windows before and after an event or an instant. Disabled until one is chosen. */
export const useCompare = (q: { event?: string; at?: string; window: string; nodepool?: string }) =>
  useQuery({
    ...jsonQuery<ConsolidationCompareResponse>('/api/consolidation/compare', q),
    enabled: q.event !== undefined || q.at !== undefined,
    placeholderData: keepPreviousData,
  });

/** Every node at the snapshot at or before `at`. */
export const useNodesAt = (at: string | undefined, nodepool: string | undefined) =>
  useQuery({
    ...jsonQuery<NodesResponse>('/api/nodes', { at, nodepool, limit: '5000', sort: 'name' }),
    enabled: at !== undefined,
  });
