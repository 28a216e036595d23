import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import { jsonQuery } from '../../../lib/json-query';

/** Requests ÷ allocatable per NodePool over time (at most 400 points per series, whatever the range). */
export const useEfficiency = (query: RangeQuery) =>
  useQuery({
    ...jsonQuery('/api/efficiency/nodepools', query),
    placeholderData: keepPreviousData,
  });
