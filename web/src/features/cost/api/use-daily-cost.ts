import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DailyCostResponse, RangeQuery } from '../../../../../server/schemas/reports';
import { jsonQuery } from '../../../lib/json-query';

/** Bill and estimate per UTC day per NodePool for the range. */
export const useDailyCost = (query: RangeQuery) =>
  useQuery({
    ...jsonQuery<DailyCostResponse>('/api/cost/nodepools/daily', query),
    placeholderData: keepPreviousData,
  });
