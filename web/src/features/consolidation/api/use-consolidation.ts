import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';
import type { DisruptionReason } from '../utils/compare-state';

/** One page of the disruptions in the range (nodes removed or replaced), optionally of one reason; total and counts cover all. */
export const useEvents = (query: RangeQuery | undefined, reason: DisruptionReason | undefined, page: { limit: number; offset: number }) =>
  useQuery({
    ...jsonQuery('/api/consolidation/events', { ...query, reason, ...page }),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });

/** Equal windows before and after an event or an instant. Disabled until one is chosen. */
export const useCompare = (q: JsonParams<'/api/consolidation/compare'>) =>
  useQuery({
    ...jsonQuery('/api/consolidation/compare', q),
    enabled: q.event !== undefined || q.at !== undefined,
    placeholderData: keepPreviousData,
  });

/** The nodes gone and come across the range (counted and priced by the server, the first few hundred listed). */
export const useNodeChanges = (range: { from: string; to: string } | undefined, nodepool: string | undefined) =>
  useQuery({
    ...jsonQuery('/api/nodes/changes', { from: range?.from, to: range?.to, nodepool }),
    enabled: range !== undefined,
  });
