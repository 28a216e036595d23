import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ReconciliationQuery } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/** The request useReconciliation makes (asked ahead too, web/src/app/pages.ts). */
export const reconciliationQuery = (query: ReconciliationQuery) => jsonQuery('/api/reconciliation/daily', query);

/** The bill beside our estimate for the range, and the gap by cause. */
export const useReconciliation = (query: ReconciliationQuery) =>
  useQuery({
    ...reconciliationQuery(query),
    placeholderData: keepPreviousData,
  });
