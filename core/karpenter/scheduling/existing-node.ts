import { failure, type PlacementFailure } from './nodeclaim.js';
import { type ExistingNodeSpec, nodeRequests } from './nodes.js';
import type { PodData } from './pod-data.js';
import { hostPortsConflict, type HostPort, podRequirements, type SchedPod } from './pods.js';
import { Requirement, Requirements } from './requirements.js';
import { addInto, fits, type ResourceSpace, type ResourceVector, subtractInto } from './resources.js';
import { taintsMessage, toleratesAll, untoleratedTaints } from './taints.js';
import type { Topology } from './topology.js';
import { exceedsAttachLimits, nodeVolumeUsage } from './volumes.js';
import { LABEL_HOSTNAME } from './well-known.js';

/** What a node offers a scheduling round before anything is placed on it; computed once, copied per round. */
export interface ExistingNodeBase {
  node: ExistingNodeSpec;
  requirements: Requirements;
  /** allocatable − requests of its pods − DaemonSet requests still to come. */
  remaining: ResourceVector;
  hostPorts: HostPort[];
  /** CSI attach limits per driver (its CSINode), or null when none is known. */
  attachLimits: ReadonlyMap<string, number> | null;
  /** The distinct PVCs per driver its pods attach. */
  volumesUsed: Map<string, Set<string>>;
}

/** Karpenter's NewExistingNode arithmetic, with the DaemonSets that would run on this node. */
export function existingNodeBase(
  node: ExistingNodeSpec,
  daemonPods: readonly SchedPod[],
  space: ResourceSpace,
  attachLimits: ReadonlyMap<string, number> | null = null,
): ExistingNodeBase {
  const requirements = Requirements.fromLabels(node.labels).add(Requirement.of(LABEL_HOSTNAME, 'In', [node.hostname]));
  const labelReqs = Requirements.fromLabels(node.labels);
  const daemonTotal = space.vector();
  for (const d of daemonPods) {
    if (!toleratesAll(node.taints, d.constraints.tolerations)) continue;
    if (!labelReqs.isCompatible(podRequirements(d, d.constraints, false))) continue;
    addInto(daemonTotal, space.vector(d.requests));
  }
  const { all, daemons } = nodeRequests(node);
  // DaemonSet pods already running have taken their share; unexpected extra ones must not make this negative
  subtractInto(daemonTotal, space.vector(daemons));
  for (let i = 0; i < daemonTotal.length; i++) if (daemonTotal[i] < 0) daemonTotal[i] = 0;
  const remaining = subtractInto(subtractInto(space.vector(node.allocatable), space.vector(all)), daemonTotal);
  const live = node.pods.filter((p) => p.phase !== 'Succeeded' && p.phase !== 'Failed');
  const hostPorts = live.flatMap((p) => p.hostPorts);
  return { node, requirements, remaining, hostPorts, attachLimits, volumesUsed: attachLimits ? nodeVolumeUsage(live) : new Map() };
}

export interface ExistingPlan {
  ok: true;
  requirements: Requirements;
}

/** An existing (or just-provisioned) node as a destination in one scheduling round (Karpenter's ExistingNode). */
export class ExistingNodeSlot {
  readonly pods: SchedPod[] = [];
  // the base's, until the first pod lands here (most slots of a round never get one)
  private remaining: ResourceVector;
  private hostPorts: HostPort[];
  private requirements: Requirements;
  private volumesUsed: Map<string, Set<string>>;
  private owned = false;

  constructor(
    readonly base: ExistingNodeBase,
    /** Pods from other nodes may not move here yet (consolidation simulations only). */
    readonly underConsolidateAfter: boolean,
  ) {
    this.remaining = base.remaining;
    this.hostPorts = base.hostPorts;
    this.requirements = base.requirements;
    this.volumesUsed = base.volumesUsed;
  }

  get node(): ExistingNodeSpec {
    return this.base.node;
  }

  canAdd(data: PodData, topology: Topology): ExistingPlan | PlacementFailure {
    const taints = this.node.taints;
    if (taints.length && !toleratesAll(taints, data.constraints.tolerations)) {
      return failure(true, () => taintsMessage(untoleratedTaints(taints, data.constraints.tolerations)));
    }
    const limits = this.base.attachLimits;
    if (limits && data.pod.volumes) {
      const exceeded = exceedsAttachLimits(this.volumesUsed, limits, data.pod.volumes);
      // not permanent: another pod of the same shape may reuse a volume already attached here
      if (exceeded !== null) return failure(false, () => exceeded);
    }
    if (data.pod.hostPorts.length && data.pod.hostPorts.some((p) => this.hostPorts.some((q) => hostPortsConflict(p, q)))) {
      return failure(true, () => 'checking host port usage, pod hostport conflicts with existing hostport configuration');
    }
    if (!fits(data.requests, this.remaining)) return failure(true, () => 'exceeds node resources');
    const incompatible = this.requirements.compatibility(data.requirements);
    if (incompatible) return failure(true, incompatible.message);
    const reqs = this.requirements.copy().addAll(data.requirements);
    if (!topology.empty) {
      const topo = topology.addRequirements(data.pod, this.node.taints, data.strict, reqs);
      if ('message' in topo) return failure(false, topo.message);
      const conflict = reqs.compatibility(topo);
      if (conflict) return failure(false, conflict.message);
      reqs.addAll(topo);
    }
    return { ok: true, requirements: reqs };
  }

  add(data: PodData, plan: ExistingPlan, topology: Topology): void {
    if (!this.owned) {
      this.remaining = Float64Array.from(this.remaining);
      this.hostPorts = [...this.hostPorts];
      if (this.base.attachLimits) this.volumesUsed = new Map([...this.volumesUsed].map(([k, v]) => [k, new Set(v)]));
      this.owned = true;
    }
    this.pods.push(data.pod);
    subtractInto(this.remaining, data.requests);
    this.requirements = plan.requirements;
    this.hostPorts.push(...data.pod.hostPorts);
    if (this.base.attachLimits && data.pod.volumes) {
      for (const [driver, claims] of data.pod.volumes) {
        let used = this.volumesUsed.get(driver);
        if (!used) this.volumesUsed.set(driver, (used = new Set()));
        for (const c of claims) used.add(c);
      }
    }
    if (!topology.empty) topology.record(data.pod, this.node.taints, plan.requirements);
  }
}
