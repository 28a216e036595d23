import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BillGroupBy, BillLinesResponse, Explanation, ImportResponse, PracticeAnswers, PracticeQuestion } from '@schemas/bill';
import { postFile } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** The lines of a stored bill (default: the synced Cost Explorer bill, its last 14 days). */
export const useBillLines = (q: { source?: string; groupBy?: BillGroupBy; nodepool?: string }) =>
  useQuery({
    ...jsonQuery<BillLinesResponse>('/api/bill/lines', q),
    placeholderData: keepPreviousData,
  });

/** One line explained: its NodeClaims, their reasons, and what is left over. Fetched when the line is expanded. */
export const useExplanation = (lineId: number) =>
  useQuery({
    ...jsonQuery<Explanation>('/api/bill/explain', { lineId: String(lineId) }),
    staleTime: 5 * 60_000,
  });

/** Uploads a Cost Explorer CSV; on success the bill lists are refetched (the new source appears). */
export function useImportBill() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => postFile<ImportResponse>('/api/bill/import', {}, file, file.name),
    onSuccess: () => client.invalidateQueries({ queryKey: ['/api/bill/lines'] }),
  });
}

/** A practice question: the hypothetical bill and what to work out, without the answers. */
export const usePracticeQuestion = (seed: number) =>
  useQuery({
    ...jsonQuery<PracticeQuestion>('/api/bill/practice', { seed: String(seed) }),
    staleTime: Infinity,
  });

/** The answers, asked for only once the user reveals them (so they are not in the page before). */
export const usePracticeAnswers = (seed: number, revealed: boolean) =>
  useQuery({
    ...jsonQuery<PracticeAnswers>('/api/bill/practice/answers', { seed: String(seed) }),
    enabled: revealed,
    staleTime: Infinity,
  });
