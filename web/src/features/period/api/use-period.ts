import { useQueries } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import type { CostMetric } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/**
 * The two requests of one range, daily cost (in the chosen bill metric) and the efficiency summary: the same
 * requests, so the same cache entries, as the panels that show them (and asked ahead, web/src/app/pages.ts).
 */
export const periodQueries = (query: RangeQuery, metric?: CostMetric) => ({
  cost: jsonQuery('/api/cost/nodepools/daily', metric === undefined ? query : { ...query, metric }),
  summary: jsonQuery('/api/efficiency/summary', query),
});

/** Daily cost and the efficiency summary for one range (periodQueries), once the range is known. */
export function usePeriod(query: RangeQuery | undefined, metric?: CostMetric) {
  const asked = periodQueries(query ?? {}, metric);
  const [cost, summary] = useQueries({
    queries: [
      { ...asked.cost, enabled: query !== undefined },
      { ...asked.summary, enabled: query !== undefined },
    ],
  });
  return { cost, summary };
}
