import { useQueries } from '@tanstack/react-query';
import type { DailyCostResponse, RangeQuery } from '../../../../../server/schemas/reports';
import type { EfficiencySummaryResponse } from '../../../../../server/schemas/efficiency';
import { getJson } from '../../../lib/api-client';

/** Daily cost and the efficiency summary for one range (same cache keys as the panels that show them). */
export function usePeriod(query: RangeQuery | undefined) {
  const q = query ?? {};
  const [cost, summary] = useQueries({
    queries: [
      {
        queryKey: ['cost', 'nodepools', 'daily', q],
        queryFn: ({ signal }: { signal: AbortSignal }) => getJson<DailyCostResponse>('/api/cost/nodepools/daily', q, signal),
        enabled: query !== undefined,
      },
      {
        queryKey: ['efficiency', 'summary', q],
        queryFn: ({ signal }: { signal: AbortSignal }) => getJson<EfficiencySummaryResponse>('/api/efficiency/summary', q, signal),
        enabled: query !== undefined,
      },
    ],
  });
  return { cost, summary };
}
