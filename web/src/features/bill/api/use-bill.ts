import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BillGroupBy, BillLinesResponse, Explanation, ImportResponse, PracticeAnswers, PracticeQuestion } from '../../../../../server/schemas/bill';
import { getJson, postFile } from '../../../lib/api-client';

/** The lines of a stored bill (default: the synced Cost Explorer bill, its last 14 days). */
export const useBillLines = (q: { source?: string; groupBy?: BillGroupBy; nodepool?: string }) =>
  useQuery({
    queryKey: ['bill', 'lines', q],
    queryFn: ({ signal }) => getJson<BillLinesResponse>('/api/bill/lines', q, signal),
    placeholderData: keepPreviousData,
  });

/** One line explained: its NodeClaims, their reasons, and what is left over. Fetched when the line is expanded. */
export const useExplanation = (lineId: number) =>
  useQuery({
    queryKey: ['bill', 'explain', lineId],
    queryFn: ({ signal }) => getJson<Explanation>('/api/bill/explain', { lineId: String(lineId) }, signal),
    staleTime: 5 * 60_000,
  });

/** Uploads a Cost Explorer CSV; on success the bill lists are refetched (the new source appears). */
export function useImportBill() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => postFile<ImportResponse>('/api/bill/import', {}, file, file.name),
    onSuccess: () => client.invalidateQueries({ queryKey: ['bill', 'lines'] }),
  });
}

/** A practice question: the hypothetical bill and what to work out, without the answers. */
export const usePracticeQuestion = (seed: number) =>
  useQuery({
    queryKey: ['bill', 'practice', seed],
    queryFn: ({ signal }) => getJson<PracticeQuestion>('/api/bill/practice', { seed: String(seed) }, signal),
    staleTime: Infinity,
  });

/** The answers, asked for only once the user reveals them (so they are not in the page before). */
export const usePracticeAnswers = (seed: number, revealed: boolean) =>
  useQuery({
    queryKey: ['bill', 'practice', seed, 'answers'],
    queryFn: ({ signal }) => getJson<PracticeAnswers>('/api/bill/practice/answers', { seed: String(seed) }, signal),
    enabled: revealed,
    staleTime: Infinity,
  });
