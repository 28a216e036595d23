import { useMemo } from 'react';
import { nodePoolColors, type NodePoolColors } from '../../../lib/colors';
import { useNodePools } from './use-nodepools';

/** One colour per NodePool, from the list of NodePools, so every chart of every page agrees. */
export function useNodePoolColors(): NodePoolColors {
  const nodePools = useNodePools();
  return useMemo(() => nodePoolColors(nodePools.data?.items.map((n) => n.name) ?? []), [nodePools.data]);
}
