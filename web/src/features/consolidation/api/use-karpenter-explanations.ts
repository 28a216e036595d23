import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** What Karpenter itself said about consolidation in a range (its Consolidation* and Unconsolidatable events). */
export const useKarpenterExplanations = (query: JsonParams<'/api/consolidation/karpenter-explanations'> | undefined) =>
  useQuery({
    ...jsonQuery('/api/consolidation/karpenter-explanations', query ?? {}),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });
