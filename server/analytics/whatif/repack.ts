import {
  type CatalogueEntry,
  type ClusterObjects,
  type EngineContext,
  type ExistingNodeSpec,
  type FeatureGates,
  isReschedulable,
  type KubeNodePool,
  nodePrice,
  prepare,
  provision,
  type ProvisionedNodeClaim,
  type SchedPod,
} from '../../../core/karpenter/scheduling/index.js';
import {
  CAPACITY_ON_DEMAND,
  CAPACITY_RESERVED,
  LABEL_CAPACITY_TYPE,
  LABEL_NODEPOOL,
} from '../../../core/karpenter/scheduling/well-known.js';

/**
 * The one primitive every what-if and the Workloads right-sizing are built on, the *re-pack*: pods re-placed from
 * scratch (no existing node kept) under a set of NodePools by the engine's provisioning round, each pod with its own
 * scheduling constraints, and what that costs per NodePool; beside it, what the snapshot's own nodes cost at the same
 * catalogue. Pure.
 */

/**
 * A stored snapshot ready for what-ifs: its objects as `clusterObjectsAt` reads them (the ClusterObjects `simulate`
 * builds from `kubectl get -o yaml`; read-only, replicas share spec objects), the catalogue, the snapshot's time (the
 * engine's now) and the cluster's Karpenter release.
 */
export interface WhatIfWorld {
  objects: ClusterObjects;
  catalogue: readonly CatalogueEntry[];
  takenAt: number;
  /** The release the cluster ran (collected from its controller's image); the engine decides as it does. */
  karpenterVersion?: string;
  /** The gates its controller runs with (its FEATURE_GATES, collected); absent: the release's defaults. */
  featureGates?: FeatureGates;
  /**
   * Whether every pod came with its scheduling spec (tolerations, affinity, spread). False for snapshots taken
   * before the collector stored specs: then a re-packed pod tolerates every taint (it ran in its NodePool, so it
   * tolerated its taints), a stand-in the answer's gaps name.
   */
  podSpecsKnown: boolean;
}

export interface InstanceMix {
  instanceType: string;
  capacityType: string;
  nodes: number;
  usdPerHour: number;
}

/** What one NodePool's nodes are: count, cost per hour and which instance types. */
export interface Footprint {
  nodes: number;
  usdPerHour: number;
  mix: InstanceMix[];
}

export interface Unschedulable {
  pod: string;
  /** The NodePool the pod was asked to go to. */
  nodePool: string;
  reason: string;
}

export interface RepackOutcome {
  byPool: Map<string, Footprint>;
  unschedulable: Unschedulable[];
}

/** Where a pod may go in a re-pack: its NodePool and, optionally, a capacity type; null leaves the pod out. */
export type Pin = (
  pod: SchedPod,
  from: { nodePool: string; capacityType: string | null },
) => { nodePool: string; capacityType?: string } | null;

const TOLERATE_ALL = [{ operator: 'Exists' }];

export const emptyFootprint = (): Footprint => ({ nodes: 0, usdPerHour: 0, mix: [] });

function addNode(f: Footprint, instanceType: string, capacityType: string, usdPerHour: number): void {
  f.nodes += 1;
  f.usdPerHour += usdPerHour;
  const m = f.mix.find((x) => x.instanceType === instanceType && x.capacityType === capacityType);
  if (m) {
    m.nodes += 1;
    m.usdPerHour += usdPerHour;
  } else f.mix.push({ instanceType, capacityType, nodes: 1, usdPerHour });
}

const sortMix = (f: Footprint): Footprint => ({
  ...f,
  mix: [...f.mix].sort((a, b) => b.usdPerHour - a.usdPerHour || a.instanceType.localeCompare(b.instanceType)),
});

/** Contexts whose pods lack their stored tolerations (snapshots before the collector kept specs). */
const specless = new WeakSet<EngineContext>();

/** The world as the engine's input: every kind the reader gave, as `simulate` passes them. */
export function prepareWorld(world: WhatIfWorld, nodePools: readonly KubeNodePool[] = world.objects.nodePools): EngineContext {
  const o = world.objects;
  const ctx = prepare({
    nodePools,
    nodes: o.nodes,
    pods: o.pods,
    podDisruptionBudgets: o.podDisruptionBudgets,
    ...(o.daemonSetPods ? { daemonSetPods: o.daemonSetPods } : {}),
    namespaces: o.namespaces,
    nodeOverlays: o.nodeOverlays,
    nodeClasses: o.nodeClasses,
    persistentVolumeClaims: o.persistentVolumeClaims,
    persistentVolumes: o.persistentVolumes,
    storageClasses: o.storageClasses,
    csiNodes: o.csiNodes,
    catalogue: world.catalogue,
    now: world.takenAt,
    ...(world.karpenterVersion === undefined ? {} : { karpenterVersion: world.karpenterVersion }),
    ...(world.featureGates === undefined ? {} : { featureGates: world.featureGates }),
  });
  if (!world.podSpecsKnown) specless.add(ctx);
  return ctx;
}

/** The snapshot's Karpenter nodes per NodePool at the catalogue's prices; nodes it cannot price are listed apart. */
export function todayByPool(ctx: EngineContext): { byPool: Map<string, Footprint>; unpriced: string[] } {
  const byPool = new Map<string, Footprint>();
  const unpriced: string[] = [];
  for (const n of ctx.nodes) {
    if (n.nodePool === null) continue;
    const price = nodePrice(ctx, n);
    if (price === null) {
      unpriced.push(n.name);
      continue;
    }
    const f = byPool.get(n.nodePool) ?? emptyFootprint();
    addNode(f, n.instanceType ?? '', n.capacityType ?? '', price);
    byPool.set(n.nodePool, f);
  }
  return { byPool: new Map([...byPool].map(([k, f]) => [k, sortMix(f)])), unpriced };
}

/** The pods of the snapshot's Karpenter nodes a re-pack moves (DaemonSet and mirror pods stay with the nodes). */
export function movablePods(ctx: EngineContext): { pod: SchedPod; node: ExistingNodeSpec }[] {
  const out: { pod: SchedPod; node: ExistingNodeSpec }[] = [];
  for (const node of ctx.nodes) {
    if (node.nodePool === null) continue;
    for (const pod of node.pods) if (isReschedulable(pod)) out.push({ pod, node });
  }
  return out;
}

/** A reserved node's pods pin to on-demand: a re-pack cannot launch into the reservation (catalogue.ts). */
export const launchableCapacityType = (ct: string | null): string | null => (ct === CAPACITY_RESERVED ? CAPACITY_ON_DEMAND : ct);

/**
 * Re-places `pods` (taken from `source`, the snapshot as it stands) from scratch on `target` (the same snapshot,
 * possibly under edited NodePools), each pod restricted by `pin` through its nodeSelector on top of its own
 * constraints (tolerations, affinity, spread, volume zones). Only where the snapshot lacks the pods' specs does a pod
 * tolerate every taint (the stand-in for tolerations that were not stored).
 */
export function repack(source: EngineContext, target: EngineContext, pin: Pin, pods = movablePods(source)): RepackOutcome {
  const pending: SchedPod[] = [];
  const poolOf = new Map<string, string>();
  const standIns = specless.has(source);
  for (const { pod, node } of pods) {
    if (node.nodePool === null) continue;
    const to = pin(pod, { nodePool: node.nodePool, capacityType: node.capacityType });
    if (to === null) continue;
    const nodeSelector: Record<string, string> = { ...pod.nodeSelector, [LABEL_NODEPOOL]: to.nodePool };
    if (to.capacityType !== undefined) nodeSelector[LABEL_CAPACITY_TYPE] = to.capacityType;
    pending.push({
      ...pod,
      nodeName: null,
      phase: 'Pending',
      nodeSelector,
      // Stand-in for a snapshot without specs: the pod ran in that NodePool, so it tolerated its taints.
      ...(standIns ? { constraints: { ...pod.constraints, tolerations: TOLERATE_ALL } } : {}),
    });
    poolOf.set(pod.key, to.nodePool);
  }
  const outcome = provision(target, { pods: pending, destinations: [] });
  return {
    byPool: footprints(outcome.nodeClaims),
    unschedulable: outcome.unschedulable.map((u) => ({ pod: u.pod.key, nodePool: poolOf.get(u.pod.key) ?? '', reason: u.reason })),
  };
}

export function footprints(nodeClaims: readonly ProvisionedNodeClaim[]): Map<string, Footprint> {
  const byPool = new Map<string, Footprint>();
  for (const nc of nodeClaims) {
    const f = byPool.get(nc.nodePool) ?? emptyFootprint();
    addNode(f, nc.launch.instanceType.name, nc.launch.capacityType, nc.launch.usdPerHour);
    byPool.set(nc.nodePool, f);
  }
  return new Map([...byPool].map(([k, f]) => [k, sortMix(f)]));
}

/** USD per month as the ledger states it everywhere: per hour × 730. */
export const HOURS_PER_MONTH = 730;
export const perMonth = (usdPerHour: number): number => usdPerHour * HOURS_PER_MONTH;
