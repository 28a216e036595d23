import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ReconciliationQuery } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/** The bill beside our estimate for the range, and the gap by cause. */
export const useReconciliation = (query: ReconciliationQuery) =>
  useQuery({
    ...jsonQuery('/api/reconciliation/daily', query),
    placeholderData: keepPreviousData,
  });
