import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CostMetric } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/** A day of the CUR's resource lines (default: the newest day), one row per resource. */
export const useCurLines = (q: { day?: string; nodepool?: string; metric?: CostMetric }, enabled = true) =>
  useQuery({
    ...jsonQuery('/api/bill/cur/lines', q),
    enabled,
    placeholderData: keepPreviousData,
  });

/** One resource-day explained (its lines, the commitment, the NodeClaim and its reasons), fetched when expanded. */
export const useCurExplanation = (q: { day: string; resource: string; metric?: CostMetric }) =>
  useQuery({
    ...jsonQuery('/api/bill/cur/explain', q),
    staleTime: 5 * 60_000,
  });
