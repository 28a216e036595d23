import { useQuery } from '@tanstack/react-query';
import { jsonQuery } from '../../../lib/json-query';

/** Data source, data range and last collection runs; refreshed every minute while the page is open. */
export const useStatus = () =>
  useQuery({
    ...jsonQuery('/api/status'),
    refetchInterval: 60_000,
  });
