import { useQuery } from '@tanstack/react-query';
import type { StatusResponse } from '../../../../../server/schemas/reports';
import { getJson } from '../../../lib/api-client';

/** Data source, data range and last collection runs; refreshed every minute while the page is open. */
export const useStatus = () =>
  useQuery({
    queryKey: ['status'],
    queryFn: ({ signal }) => getJson<StatusResponse>('/api/status', undefined, signal),
    refetchInterval: 60_000,
  });
