import type { ResourceAmounts } from '../model.js';

/**
 * Request share, NodePool Ledger's own method: a pod is charged w_cpu × its cpu request ÷ the node's allocatable cpu
 * + w_memory × its memory request ÷ allocatable memory of the node's price (capped at the whole node); what no pod
 * requested is idle. Requests only, by definition: it says what the scheduler set aside, which is what Karpenter
 * packs and pays for.
 */

/** cpu and memory weights; they add up to 1. */
export interface ShareWeights {
  cpu: number;
  memory: number;
}
export const DEFAULT_WEIGHTS: Readonly<ShareWeights> = { cpu: 0.5, memory: 0.5 };

/** requested ÷ allocatable, 0 with nothing allocatable. */
export const shareOf = (requested: number, allocatable: number): number => (allocatable > 0 ? requested / allocatable : 0);

/** USD/hour of a node charged to one pod: its weighted share of cpu and memory allocatable (capped at 1). */
export function requestShareCost(
  nodeUsdPerHour: number,
  req: ResourceAmounts,
  alloc: ResourceAmounts,
  w: ShareWeights = DEFAULT_WEIGHTS,
): number {
  const share = w.cpu * shareOf(req.cpuMillicores, alloc.cpuMillicores) + w.memory * shareOf(req.memoryBytes, alloc.memoryBytes);
  return nodeUsdPerHour * Math.min(1, share);
}
