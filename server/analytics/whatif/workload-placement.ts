import type { EngineContext } from '../../../core/karpenter/scheduling/index.js';
import { workloadOf } from '../../../core/usage.js';
import { type Footprint, emptyFootprint, movablePods, repack, type Unschedulable } from './repack.js';

/**
 * "This workload on that NodePool" (the syllabus' week-4 exercise: the same workload on an on-demand and on a spot
 * NodePool): a stored workload's pods, as they are at the snapshot, provisioned from scratch on fresh nodes of one
 * NodePool, for each NodePool asked; priced without running anything. Pure.
 */

export interface WorkloadRefWithNamespace {
  namespace: string;
  kind: string;
  name: string;
}

export interface WorkloadSummary extends WorkloadRefWithNamespace {
  replicas: number;
  /** Where most of its pods run at the snapshot. */
  nodePool: string;
  /** Per replica, the largest effective requests among its pods. */
  cpuMillicores: number;
  memoryBytes: number;
}

export interface WorkloadOnPool {
  nodePool: string;
  footprint: Footprint;
  /** The pods no node of the NodePool could take, with Karpenter's reason. */
  unschedulable: Unschedulable[];
}

export const workloadId = (w: WorkloadRefWithNamespace): string => `${w.namespace}/${w.kind}/${w.name}`;

/** The workloads of the snapshot's Karpenter nodes (DaemonSets aside: they follow the nodes), by namespace and name. */
export function snapshotWorkloads(ctx: EngineContext): WorkloadSummary[] {
  const byId = new Map<string, WorkloadSummary & { pools: Map<string, number> }>();
  for (const { pod, node } of movablePods(ctx)) {
    const ref = { namespace: pod.namespace, ...workloadOf(pod) };
    const id = workloadId(ref);
    const w = byId.get(id) ?? { ...ref, replicas: 0, nodePool: '', cpuMillicores: 0, memoryBytes: 0, pools: new Map<string, number>() };
    w.replicas += 1;
    w.cpuMillicores = Math.max(w.cpuMillicores, pod.requests.cpu ?? 0);
    w.memoryBytes = Math.max(w.memoryBytes, pod.requests.memory ?? 0);
    const pool = node.nodePool ?? '';
    w.pools.set(pool, (w.pools.get(pool) ?? 0) + 1);
    byId.set(id, w);
  }
  return [...byId.values()]
    .map(({ pools, ...w }) => ({ ...w, nodePool: [...pools].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? '' }))
    .sort((a, b) => workloadId(a).localeCompare(workloadId(b)));
}

export function workloadOnNodePools(ctx: EngineContext, ref: WorkloadRefWithNamespace, nodePools: readonly string[]): WorkloadOnPool[] {
  const id = workloadId(ref);
  const pods = movablePods(ctx).filter(({ pod }) => workloadId({ namespace: pod.namespace, ...workloadOf(pod) }) === id);
  return nodePools.map((nodePool) => {
    const out = repack(ctx, ctx, () => ({ nodePool }), pods);
    return { nodePool, footprint: out.byPool.get(nodePool) ?? emptyFootprint(), unschedulable: out.unschedulable };
  });
}
