import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiWriteBody } from '@schemas/api-routes';
import { sendJson } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** Every budget with its standing now (GET /api/budgets). */
export const useBudgets = () => useQuery(jsonQuery('/api/budgets'));

/** Creates a budget, or edits the one named by `editing`; the list is refetched after. */
export function useSaveBudget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ editing, body }: { editing: string | null; body: ApiWriteBody<'POST /api/budgets'> }) => {
      if (editing === null) return sendJson('POST /api/budgets', {}, body);
      const { name: _name, ...edit } = body;
      return sendJson('PUT /api/budgets/{name}', { name: editing }, edit);
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['/api/budgets'] }),
  });
}

/** Deletes a budget made through the API; the list is refetched after. */
export function useDeleteBudget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => sendJson('DELETE /api/budgets/{name}', { name }, null),
    onSuccess: () => client.invalidateQueries({ queryKey: ['/api/budgets'] }),
  });
}
