import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { StatusResponse } from '@schemas/status';
import { useEffect, useRef } from 'react';
import { jsonQuery } from '../../../lib/json-query';

/** While `demo` fills the database behind the dashboard: status every 3 s, the pages' data again at most every 15 s. */
const FILLING_STATUS_MS = 3_000;
const FILLING_PAGES_MS = 15_000;

const filling = (s: StatusResponse | undefined): boolean => s?.fill != null && s.fill.finishedAt === null;

/**
 * Data source, data range and last collection runs; refreshed every minute while the page is open, and every few
 * seconds while the demo fills the database (its pages' queries are then refreshed as days arrive, and once more
 * when the fill ends).
 */
export const useStatus = () => {
  const query = useQuery({
    ...jsonQuery('/api/status'),
    refetchInterval: (q) => (filling(q.state.data) ? FILLING_STATUS_MS : 60_000),
  });
  const client = useQueryClient();
  const last = useRef<{ filling: boolean; at: number }>({ filling: false, at: 0 });
  const data = query.data;
  useEffect(() => {
    const now = Date.now();
    const isFilling = filling(data);
    const ended = last.current.filling && !isFilling;
    if (ended || (isFilling && now - last.current.at >= FILLING_PAGES_MS)) {
      void client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== '/api/status' });
      last.current.at = now;
    }
    last.current.filling = isFilling;
  }, [data, client]);
  return query;
};
