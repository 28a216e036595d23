import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CurDailyQuery } from '@schemas/cost-cur';
import { jsonQuery } from '../../../lib/json-query';

/** The request useCurDaily makes (asked ahead too, web/src/app/pages.ts). */
export const curDailyQuery = (query: CurDailyQuery | undefined) => jsonQuery('/api/cost/cur/daily', query);

/** The NodePool bill from the Cost and Usage Report per day and category, and the CUR beside Cost Explorer and our estimate. */
export const useCurDaily = (query: CurDailyQuery | undefined) =>
  useQuery({
    ...curDailyQuery(query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });
