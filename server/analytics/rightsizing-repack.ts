import type { EngineContext, SchedPod } from '../../core/karpenter/scheduling/index.js';
import { HOURS_PER_MONTH } from '../../core/usage-efficiency.js';
import { workloadOf } from '../../core/usage.js';
import { launchableCapacityType, movablePods, repack } from './whatif/repack.js';

/**
 * The dollar effect of right-sized requests through the scheduling engine: a NodePool's pods at a snapshot re-packed
 * (whatif/repack.ts: re-placed from scratch in their NodePool on their capacity type, with their own constraints, as
 * the Savings page's headroom does) twice, with the current requests and with the recommended ones. The same method
 * on both sides, so the difference in nodes and USD is the recommendation's effect, not the gap between today's
 * packing and an ideal one; and the current side is the Savings page's re-pack of that NodePool, figure for figure.
 * Pure.
 */

export interface RepackResult {
  nodes: number;
  usdPerHour: number;
  /** Pods no NodeClaim could take (too big for every type the NodePool allows, say). */
  unschedulable: number;
}

/** Per replica, what a workload's containers change: Σ over its containers of recommended − current. */
export interface WorkloadRequestDelta {
  /** `namespace/kind/name` (workloadRef). */
  workload: string;
  cpuMillicores: number;
  memoryBytes: number;
}

export const workloadRef = (namespace: string, kind: string, name: string): string => `${namespace}/${kind}/${name}`;

/** A pod with its workload's delta added to its cpu and memory requests (never below zero, whole units). */
export function rightsizedPod(pod: SchedPod, deltas: ReadonlyMap<string, WorkloadRequestDelta>): SchedPod {
  const w = workloadOf({ name: pod.name, ownerKind: pod.ownerKind, ownerName: pod.ownerName, labels: pod.labels });
  const d = deltas.get(workloadRef(pod.namespace, w.kind, w.name));
  if (d === undefined) return pod;
  return {
    ...pod,
    requests: {
      ...pod.requests,
      cpu: Math.max(0, Math.ceil((pod.requests.cpu ?? 0) + d.cpuMillicores)),
      memory: Math.max(0, Math.ceil((pod.requests.memory ?? 0) + d.memoryBytes)),
    },
  };
}

/** The pods a NodePool's re-pack moves (its nodes' pods but DaemonSet and mirror pods). */
export const nodePoolPods = (ctx: EngineContext, nodePool: string) => movablePods(ctx).filter((x) => x.node.nodePool === nodePool);

/** A NodePool's re-pack, with `deltas` applied to its pods' requests (none: the re-pack as the cluster stands). */
export function nodePoolRepack(ctx: EngineContext, nodePool: string, deltas: readonly WorkloadRequestDelta[] = []): RepackResult {
  const byWorkload = new Map(deltas.map((d) => [d.workload, d]));
  const pods = nodePoolPods(ctx, nodePool).map(({ pod, node }) => ({ pod: rightsizedPod(pod, byWorkload), node }));
  const out = repack(
    ctx,
    ctx,
    (_pod, from) => ({ nodePool: from.nodePool, capacityType: launchableCapacityType(from.capacityType) ?? undefined }),
    pods,
  );
  const f = out.byPool.get(nodePool);
  return { nodes: f?.nodes ?? 0, usdPerHour: f?.usdPerHour ?? 0, unschedulable: out.unschedulable.length };
}

export interface RepackEffect {
  nodePool: string;
  pods: number;
  before: RepackResult;
  after: RepackResult;
  /** (after − before) USD/hour × 730; negative saves. Null when either re-pack left a pod out (not comparable). */
  monthlyEffectUsd: number | null;
  nodesDelta: number;
}

/** The NodePool re-packed with its current requests (`before`, pass it again to save a re-pack) and with `deltas` applied. */
export function repackEffect(
  ctx: EngineContext,
  nodePool: string,
  deltas: readonly WorkloadRequestDelta[],
  before?: RepackResult,
): RepackEffect {
  const base = before ?? nodePoolRepack(ctx, nodePool);
  const after = nodePoolRepack(ctx, nodePool, deltas);
  const comparable = base.unschedulable === 0 && after.unschedulable === 0;
  return {
    nodePool,
    pods: nodePoolPods(ctx, nodePool).length,
    before: base,
    after,
    monthlyEffectUsd: comparable ? (after.usdPerHour - base.usdPerHour) * HOURS_PER_MONTH : null,
    nodesDelta: after.nodes - base.nodes,
  };
}
