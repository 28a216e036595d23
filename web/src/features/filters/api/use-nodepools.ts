import { useQuery } from '@tanstack/react-query';
import { jsonQuery } from '../../../lib/json-query';

/** The NodePools, kept 5 minutes: the request useNodePools makes (asked ahead too, web/src/app/pages.ts). */
export const nodePoolsQuery = () => ({ ...jsonQuery('/api/nodepools'), staleTime: 5 * 60_000 });

export const useNodePools = () => useQuery(nodePoolsQuery());
