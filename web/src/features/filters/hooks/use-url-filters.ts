import { useMemo } from 'react';
import { useSearchParams } from '../../../lib/router';
import type { ParamUpdates } from '../../../lib/url-params';
import { parseFilters, type Filters } from '../utils/url-filters';

/** The shared filters, read from and written to the URL (each change is a history entry: back undoes it). */
export function useUrlFilters(): { filters: Filters; params: URLSearchParams; update: (updates: ParamUpdates) => void } {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseFilters(params), [params]);
  return { filters, params, update: setParams };
}
