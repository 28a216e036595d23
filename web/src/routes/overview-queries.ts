import type { QueryClient } from '@tanstack/react-query';
import type { StatusResponse } from '@schemas/status';
import { timelineQuery } from '../features/consolidation/api/use-timeline';
import { curDailyQuery } from '../features/cost/api/use-cur-daily';
import { dailyCostQuery } from '../features/cost/api/use-daily-cost';
import { reconciliationQuery } from '../features/cost/api/use-reconciliation';
import { nodePoolsQuery } from '../features/filters/api/use-nodepools';
import {
  type Filters,
  parseFilters,
  previousRange,
  rangeQuery,
  resolveRange,
  type StatusLike,
  withMetric,
} from '../features/filters/utils/url-filters';
import { periodQueries } from '../features/period/api/use-period';

/**
 * The Overview's ranges from its filters and the status (which knows where the data ends): the range shown, the one
 * before it, and the bill routes' query (with the metric). The page and its requests asked ahead both take them from here.
 */
export function overviewRanges(filters: Filters, status: StatusLike) {
  const query = rangeQuery(filters, status);
  const resolved = resolveRange(filters.range, status.data?.defaultRange.to);
  const previous = resolved === undefined ? undefined : { ...previousRange(resolved), nodepool: filters.nodePool };
  return { query, resolved, previous, billQuery: withMetric(query, filters.metric) };
}

/**
 * The Overview's first requests, each as its panel asks it (so the same cache entry), asked once the status has
 * answered while the page's code is still on its way (web/src/main.tsx). Asked by the panels themselves, they would
 * start only once that code had loaded and run: the first screen waited for the code, then for the data. The
 * timeline's too: its chart, below the first screen, is drawn once scrolled near, but its panel asks for its data
 * with the page.
 */
export function prefetchOverview(client: QueryClient, search: URLSearchParams, status: StatusResponse): void {
  const filters = parseFilters(search);
  const { query, previous, billQuery } = overviewRanges(filters, { isPending: false, data: status });
  if (query === undefined || billQuery === undefined) return;
  // Each asked once: the period's daily cost is the cost panel's request too (a request in flight is shared).
  for (const range of previous === undefined ? [query] : [query, previous]) {
    const period = periodQueries(range, filters.metric);
    void client.prefetchQuery(period.cost);
    void client.prefetchQuery(period.summary);
  }
  void client.prefetchQuery(nodePoolsQuery());
  void client.prefetchQuery(dailyCostQuery(billQuery));
  void client.prefetchQuery(reconciliationQuery(billQuery));
  void client.prefetchQuery(curDailyQuery(billQuery));
  void client.prefetchQuery(timelineQuery(query));
}
