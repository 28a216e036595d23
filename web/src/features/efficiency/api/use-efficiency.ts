import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import { jsonQuery } from '../../../lib/json-query';

/** Requests ÷ allocatable per NodePool over time (at most 1,000 points per series). */
export const useEfficiency = (query: RangeQuery) =>
  useQuery({
    ...jsonQuery('/api/efficiency/nodepools', query),
    placeholderData: keepPreviousData,
  });
