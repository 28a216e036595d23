import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { postText, type JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** Consolidation headroom and the spot lever per NodePool at a snapshot (a simulation). */
export const useHeadroom = (query: JsonParams<'/api/whatif/headroom'>) => useQuery(jsonQuery('/api/whatif/headroom', query));

/** A NodePool edit the user tries; nothing is asked until there is one. */
export const useNodePoolEdit = (query: JsonParams<'/api/whatif/nodepool-edit'> | null) =>
  useQuery({
    ...jsonQuery('/api/whatif/nodepool-edit', query ?? { nodepool: '' }),
    enabled: query !== null,
    placeholderData: keepPreviousData,
  });

/** Per node: the next consolidation round's decision, or why the node stays. */
export const useWhyNot = (query: JsonParams<'/api/whatif/why-not'>) => useQuery(jsonQuery('/api/whatif/why-not', query));

/** Predict where pasted YAML would go on `cluster` (undefined: the ledger's only one) (POST: nothing is cached). */
export const usePredict = (at: string | undefined, cluster: string | undefined) =>
  useMutation({
    mutationFn: (yaml: string) => postText('/api/whatif/predict', { at, cluster }, yaml, 'application/yaml'),
  });
