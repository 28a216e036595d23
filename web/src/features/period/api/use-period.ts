import { useQueries } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import type { CostMetric } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/**
 * Daily cost (in the chosen bill metric) and the efficiency summary for one range (the same requests, so the same
 * cache entries, as the panels that show them).
 */
export function usePeriod(query: RangeQuery | undefined, metric?: CostMetric) {
  const q = query ?? {};
  const [cost, summary] = useQueries({
    queries: [
      { ...jsonQuery('/api/cost/nodepools/daily', metric === undefined ? q : { ...q, metric }), enabled: query !== undefined },
      { ...jsonQuery('/api/efficiency/summary', q), enabled: query !== undefined },
    ],
  });
  return { cost, summary };
}
