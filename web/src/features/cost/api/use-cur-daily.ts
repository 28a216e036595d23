import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CurDailyQuery } from '@schemas/cost-cur';
import { jsonQuery } from '../../../lib/json-query';

/** The NodePool bill from the Cost and Usage Report per day and category, and the CUR beside Cost Explorer and our estimate. */
export const useCurDaily = (query: CurDailyQuery | undefined) =>
  useQuery({
    ...jsonQuery('/api/cost/cur/daily', query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });
