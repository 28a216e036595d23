import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BillGroupBy } from '@schemas/bill';
import { postFile } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** The lines of a stored bill (default: the synced Cost Explorer bill, its last 14 days). */
export const useBillLines = (q: { source?: string; groupBy?: BillGroupBy; nodepool?: string }) =>
  useQuery({
    ...jsonQuery('/api/bill/lines', q),
    placeholderData: keepPreviousData,
  });

/** One line explained: its NodeClaims, their reasons, and what is left over. Fetched when the line is expanded. */
export const useExplanation = (lineId: number) =>
  useQuery({
    ...jsonQuery('/api/bill/explain', { lineId }),
    staleTime: 5 * 60_000,
  });

/** Uploads a Cost Explorer CSV; on success the bill lists are refetched (the new source appears). */
export function useImportBill() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => postFile('/api/bill/import', {}, file, file.name),
    onSuccess: () => client.invalidateQueries({ queryKey: ['/api/bill/lines'] }),
  });
}

/** A practice question: the hypothetical bill and what to work out, without the answers. */
export const usePracticeQuestion = (seed: number) =>
  useQuery({
    ...jsonQuery('/api/bill/practice', { seed }),
    staleTime: Infinity,
  });

/** The answers, asked for only once the user reveals them (so they are not in the page before). */
export const usePracticeAnswers = (seed: number, revealed: boolean) =>
  useQuery({
    ...jsonQuery('/api/bill/practice/answers', { seed }),
    enabled: revealed,
    staleTime: Infinity,
  });
