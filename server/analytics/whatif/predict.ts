import {
  type EngineContext,
  type KubePod,
  normalizePod,
  provision,
  type SimulationResult,
} from '../../../core/karpenter/scheduling/index.js';

/**
 * Predict (the syllabus' week-2 check question): pending pods — a pasted Pod, or a Deployment's replicas — placed by
 * one provisioning round against the snapshot's cluster as it stands: on room its nodes have, else on the NodeClaims
 * Karpenter would create (NodePool, instance type and its options, capacity type, zone, price). Pure.
 */

/** A NodeClaim as the `simulate` command reports it; here `instanceTypeOptions` holds the cheapest 20 only. */
export type PredictedNodeClaim = SimulationResult['provisioning']['nodeClaims'][number];

export interface PredictResult {
  pods: number;
  nodeClaims: PredictedNodeClaim[];
  /** Pods that fit on nodes that exist (no new cost), by node. */
  existingNodes: { node: string; nodePool: string | null; pods: string[] }[];
  unschedulable: { pod: string; reason: string }[];
  /** What the new NodeClaims add per hour. */
  addedUsdPerHour: number;
}

const OPTIONS_SHOWN = 20;

export function predict(ctx: EngineContext, pods: readonly KubePod[]): PredictResult {
  const pending = pods.map((p, i) => {
    const n = { ...normalizePod(p, i), nodeName: null, phase: 'Pending' };
    // its PersistentVolumeClaims as the engine reads a pod's (engine.ts prepare): a bound PV's zone pins it
    if (ctx.volumes === null || !p.spec.volumes?.length) return n;
    const v = ctx.volumes.forPod(p);
    return { ...n, volumeRequirements: v.requirements, volumeAlternatives: v.alternatives, volumes: v.usage, volumeError: v.error };
  });
  const out = provision(ctx, { pods: pending });
  const nodeClaims = out.nodeClaims.map((nc) => ({
    nodePool: nc.nodePool,
    instanceType: nc.launch.instanceType.name,
    instanceTypeOptions: nc.claim.options.slice(0, OPTIONS_SHOWN).map((it) => it.name),
    capacityType: nc.launch.capacityType,
    zone: nc.launch.zone,
    usdPerHour: nc.launch.usdPerHour,
    pods: nc.pods.map((p) => p.key),
  }));
  return {
    pods: pending.length,
    nodeClaims,
    existingNodes: [...out.onExistingNodes]
      .map(([node, list]) => ({ node, nodePool: ctx.nodeByName.get(node)?.nodePool ?? null, pods: list.map((p) => p.key) }))
      .sort((a, b) => a.node.localeCompare(b.node)),
    unschedulable: out.unschedulable.map((u) => ({ pod: u.pod.key, reason: u.reason })),
    addedUsdPerHour: nodeClaims.reduce((s, nc) => s + nc.usdPerHour, 0),
  };
}
