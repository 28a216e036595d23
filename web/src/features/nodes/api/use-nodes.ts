import { keepPreviousData, useQueries, useQuery, type UseQueryResult } from '@tanstack/react-query';
import type { NodeRow, NodesResponse } from '@schemas/efficiency';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';
import { chunkQuery, CHUNK_ROWS } from '../utils/node-table';

export interface NodeChunks {
  /** The row at `index` of the whole table, once its chunk has arrived. */
  rowAt: (index: number) => NodeRow | undefined;
  /** Every node matching the query (the newest answer's count); undefined before any answer. */
  total: number | undefined;
  snapshotAt: string | null | undefined;
  /** No chunk has answered yet. */
  isPending: boolean;
  /** A chunk failed (the first such error). */
  error: Error | null;
  refetch: () => void;
  /** A chunk is on its way, or what is shown is an earlier query's (a new sort or filter being fetched). */
  isRefreshing: boolean;
}

/**
 * The node table a chunk of CHUNK_ROWS rows at a time: only the chunks under the drawn window (`chunks`, in order)
 * are asked for, each its own cache entry. The first and the last chunk of the window keep showing their previous
 * answer while theirs is fetched (a new sort, search or filter; a scroll to another chunk), so the table stays drawn;
 * rows are placed by the offset each answer carries, so an answer never lands on rows it does not hold.
 */
export function useNodeChunks(query: JsonParams<'/api/nodes'>, chunks: readonly number[]): NodeChunks {
  const first = chunks[0] ?? 0;
  const last = chunks.at(-1) ?? first;
  // One observer each, so keepPreviousData has a previous answer to keep (useQueries matches observers by key).
  const head = useQuery({ ...jsonQuery('/api/nodes', chunkQuery(query, first)), placeholderData: keepPreviousData });
  const tail = useQuery({
    ...jsonQuery('/api/nodes', chunkQuery(query, last)),
    placeholderData: keepPreviousData,
    enabled: last !== first,
  });
  // A window taller than two chunks (a very tall screen) has chunks between.
  const middle = useQueries({ queries: chunks.slice(1, -1).map((i) => jsonQuery('/api/nodes', chunkQuery(query, i))) });

  const results: UseQueryResult<NodesResponse>[] = last === first ? [head, ...middle] : [head, ...middle, tail];
  const byOffset = new Map<number, NodesResponse>();
  let newest: NodesResponse | undefined;
  let shown: NodesResponse | undefined;
  for (const r of results) {
    if (r.data === undefined) continue;
    byOffset.set(r.data.offset, r.data);
    shown ??= r.data;
    if (!r.isPlaceholderData) newest ??= r.data;
  }
  const answer = newest ?? shown;
  const failed = results.find((r) => r.isError);
  return {
    rowAt: (index: number) => byOffset.get(index - (index % CHUNK_ROWS))?.rows[index % CHUNK_ROWS],
    total: answer?.total,
    snapshotAt: answer?.snapshotAt,
    isPending: answer === undefined && failed === undefined,
    error: failed?.error ?? null,
    refetch: () => {
      for (const r of results) if (r.isError) void r.refetch();
    },
    isRefreshing: results.some((r) => r.isFetching || r.isPlaceholderData),
  };
}
