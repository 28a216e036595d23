import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DailyCostQuery } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/** The request useDailyCost makes (asked ahead too, web/src/app/pages.ts). */
export const dailyCostQuery = (query: DailyCostQuery) => jsonQuery('/api/cost/nodepools/daily', query);

/** Bill and estimate per UTC day per NodePool for the range. */
export const useDailyCost = (query: DailyCostQuery) =>
  useQuery({
    ...dailyCostQuery(query),
    placeholderData: keepPreviousData,
  });
