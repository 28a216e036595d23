import { useQuery } from '@tanstack/react-query';
import type { StatusResponse } from '@schemas/status';
import { jsonQuery } from '../../../lib/json-query';

/** Data source, data range and last collection runs; refreshed every minute while the page is open. */
export const useStatus = () =>
  useQuery({
    ...jsonQuery<StatusResponse>('/api/status'),
    refetchInterval: 60_000,
  });
