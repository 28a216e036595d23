import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DailyCostQuery } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/** Bill and estimate per UTC day per NodePool for the range. */
export const useDailyCost = (query: DailyCostQuery) =>
  useQuery({
    ...jsonQuery('/api/cost/nodepools/daily', query),
    placeholderData: keepPreviousData,
  });
