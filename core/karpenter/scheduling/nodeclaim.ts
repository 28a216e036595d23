import { filterInstanceTypes, refitInstanceTypes } from './instance-filter.js';
import { type InstanceType, type Offering, offeringAllowed, satisfiesMinValues } from './instance-types.js';
import type { PodData } from './pod-data.js';
import { hostPortsConflict, type HostPort, type SchedPod } from './pods.js';
import { Requirement, type Requirements } from './requirements.js';
import { addVectors, addInto, fitsSum3, type ResourceSpace, type ResourceVector } from './resources.js';
import { taintsMessage, toleratesAll, untoleratedTaints } from './taints.js';
import type { NodeClaimTemplate } from './templates.js';
import type { Topology } from './topology.js';
import type { ReservationLedger } from './reservations.js';
import { CAPACITY_RESERVED, LABEL_HOSTNAME, WELL_KNOWN_LABELS } from './well-known.js';

/** A pod could not be placed somewhere; `permanent` when the same pod shape can never fit there later. */
export interface PlacementFailure {
  ok: false;
  permanent: boolean;
  message: () => string;
  /** Karpenter's ReservedOfferingError: a compatible reservation exists but has no room this round (strict mode). */
  reservedOffering?: boolean;
}

/** Karpenter's two ReservedOfferingError texts (nodeclaim.go offeringsToReserve). */
export const RESERVED_OFFERING_UNAVAILABLE =
  'one or more instance types with compatible reserved offerings are available, but could not be reserved';
const RESERVED_OFFERING_REMOVED = 'satisfying updated nodeclaim constraints would remove all compatible reserved offering options';

export interface NodeClaimPlan {
  ok: true;
  requirements: Requirements;
  options: InstanceType[];
  /** Reserved offerings the NodeClaim would hold a place in (only when reservations are counted). */
  reserve?: Offering[];
}

/** How NodeClaims of a scheduling round treat minValues and counted reservations. */
export interface ClaimOptions {
  /** --min-values-policy BestEffort. */
  relaxMinValues: boolean;
  /** Counts places in capacity reservations; null when no reservation has a known count. */
  ledger: ReservationLedger | null;
  /**
   * Karpenter's ReservedOfferingModeStrict (provisioning): a pod whose compatible reservations are all full is
   * deferred rather than placed without one. Consolidation's simulations use the fallback mode.
   */
  strictReservations?: boolean;
}

export const failure = (permanent: boolean, message: () => string): PlacementFailure => ({ ok: false, permanent, message });

/** Whether intersecting changed a requirement (the result is always a subset, so equal sizes mean equal sets). */
const narrowed = (before: Requirement | undefined, after: Requirement) =>
  before === undefined ||
  before.complement !== after.complement ||
  before.values.size !== after.values.size ||
  before.gte !== after.gte ||
  before.lte !== after.lte ||
  before.minValues !== after.minValues;

/** Whether adding `incoming` would narrow any requirement of `base` (other than the hostname). */
function wouldNarrow(base: Requirements, incoming: Requirements): boolean {
  for (const r of incoming.values()) {
    if (r.key === LABEL_HOSTNAME) continue;
    if (!base.has(r.key)) return true;
    const before = base.get(r.key);
    if (narrowed(before, before.intersection(r))) return true;
  }
  return false;
}

/**
 * Adds `incoming` to `reqs` in place, saying whether any requirement other than the hostname narrowed (if none did,
 * the instance types that met the old requirements still meet the new ones).
 */
function addTracking(reqs: Requirements, incoming: Requirements): boolean {
  let changed = false;
  for (const r of incoming.values()) {
    const before = reqs.has(r.key) ? reqs.get(r.key) : undefined;
    reqs.add(r);
    if (r.key !== LABEL_HOSTNAME && narrowed(before, reqs.get(r.key))) changed = true;
  }
  return changed;
}

/**
 * A NodeClaim being planned (Karpenter's scheduling.NodeClaim): the pods placed on it so far, the requirements they
 * add up to, and the instance types that can still hold them all.
 */
export class InflightNodeClaim {
  readonly pods: SchedPod[] = [];
  readonly hostPorts: HostPort[] = [];
  /** Sum of the pods' requests (DaemonSet overhead is added per type when fitting). */
  readonly requests: ResourceVector;
  readonly hostname: string;
  requirements: Requirements;
  options: InstanceType[];
  /** Reserved offerings it holds a place in (Karpenter's reservedOfferings). */
  reserved: Offering[] = [];

  /** Reservations are counted this round: a NodeClaim holding none does not launch as reserved. */
  get countsReservations(): boolean {
    return this.claimOptions.ledger !== null;
  }
  /**
   * BestEffort lowered a minValues of the template when the NodeClaim was created (its first pod): the value
   * Karpenter writes to karpenter.sh/nodeclaim-min-values-relaxed then and does not revisit.
   */
  minValuesRelaxed = false;

  constructor(
    readonly id: number,
    readonly template: NodeClaimTemplate,
    options: InstanceType[],
    private readonly space: ResourceSpace,
    private readonly claimOptions: ClaimOptions = { relaxMinValues: false, ledger: null },
  ) {
    this.hostname = `hostname-placeholder-${String(id + 1).padStart(4, '0')}`;
    this.requirements = template.requirements.copy().add(Requirement.of(LABEL_HOSTNAME, 'In', [this.hostname]));
    this.options = options;
    this.requests = space.vector();
  }

  canAdd(data: PodData, topology: Topology): NodeClaimPlan | PlacementFailure {
    // this runs for most pods against several NodeClaims: nothing is allocated until something changes
    const taints = this.template.pool.taints;
    if (taints.length && !toleratesAll(taints, data.constraints.tolerations)) {
      return failure(true, () => taintsMessage(untoleratedTaints(taints, data.constraints.tolerations)));
    }
    if (data.pod.hostPorts.length && data.pod.hostPorts.some((p) => this.hostPorts.some((q) => hostPortsConflict(p, q)))) {
      return failure(true, () => 'pod hostport conflicts with existing hostport configuration');
    }
    const incompatible = this.requirements.compatibility(data.requirements, WELL_KNOWN_LABELS);
    if (incompatible) return failure(true, () => `incompatible requirements, ${incompatible.message()}`);
    // no type holds these requests whatever topology decides: the same shape will never fit here
    if (!this.anyOptionFits(data.requests)) {
      return failure(true, () =>
        this.fullFilter(this.requirements.copy().addAll(data.requirements), data, addVectors(this.requests, data.requests)).message(),
      );
    }
    let reqs = this.requirements;
    let changed = false;
    if (data.requirements.size > 0 && wouldNarrow(reqs, data.requirements)) {
      reqs = reqs.copy();
      changed = addTracking(reqs, data.requirements);
    }
    let topologyChanged = false;
    if (!topology.empty) {
      const topo = topology.addRequirements(data.pod, taints, data.strict, reqs, WELL_KNOWN_LABELS);
      if ('message' in topo) return failure(false, topo.message);
      if (topo.size > 0) {
        const conflict = reqs.compatibility(topo, WELL_KNOWN_LABELS);
        if (conflict) return failure(false, conflict.message);
        if (wouldNarrow(reqs, topo)) {
          if (reqs === this.requirements) reqs = reqs.copy();
          topologyChanged = addTracking(reqs, topo);
        }
      }
    }
    if (!changed && !topologyChanged) {
      const types = refitInstanceTypes(this.options, reqs, this.requests, data.requests, this.template.daemons, data.pod.hostPorts);
      if (types) return this.withReservations({ ok: true, requirements: this.relaxed(reqs, types), options: types }, topologyChanged);
    }
    const result = this.fullFilter(reqs, data, addVectors(this.requests, data.requests));
    // requirements only narrow and requests only grow, so unless topology chose the domain this stays a failure
    if (!result.types.length) return failure(!topologyChanged, result.message);
    return this.withReservations({ ok: true, requirements: this.relaxed(reqs, result.types), options: result.types }, topologyChanged);
  }

  /**
   * BestEffort: minValues the types left cannot meet lowered to what they reach (nodeclaim.go CanAdd with
   * relaxMinValues); the requirements as they are otherwise.
   */
  private relaxed(reqs: Requirements, types: readonly InstanceType[]): Requirements {
    if (!this.claimOptions.relaxMinValues || !reqs.hasMinValues()) return reqs;
    const { unmet } = satisfiesMinValues(types, reqs);
    if (!unmet) return reqs;
    const out = reqs === this.requirements ? reqs.copy() : reqs;
    for (const [key, reached] of unmet) out.set(out.get(key).withMinValues(reached));
    return out;
  }

  /**
   * Karpenter's offeringsToReserve: every available reserved offering of the types left that the requirements allow
   * and whose reservation still has room (or already holds this NodeClaim); reservations used up before this round
   * are unavailable. Strict mode (provisioning): compatible reservations without room defer the pod, and a pod may not
   * take a NodeClaim off the reservations it holds. Fallback mode (consolidation): the NodeClaim goes on without one.
   */
  private withReservations(plan: NodeClaimPlan, topologyChanged: boolean): NodeClaimPlan | PlacementFailure {
    const ledger = this.claimOptions.ledger;
    if (!ledger) return plan;
    const reserve: Offering[] = [];
    let compatible = false;
    for (const it of plan.options) {
      for (const o of it.offerings) {
        if (o.capacityType !== CAPACITY_RESERVED || !o.available || ledger.usedUp(o) || !offeringAllowed(plan.requirements, o)) continue;
        compatible = true;
        if (ledger.canReserve(this.hostname, o)) reserve.push(o);
      }
    }
    if (this.claimOptions.strictReservations) {
      if (compatible && reserve.length === 0) return { ...failure(false, () => RESERVED_OFFERING_UNAVAILABLE), reservedOffering: true };
      if (this.reserved.length > 0 && reserve.length === 0)
        return { ...failure(!topologyChanged, () => RESERVED_OFFERING_REMOVED), reservedOffering: true };
    }
    return { ...plan, reserve };
  }

  add(data: PodData, plan: NodeClaimPlan, topology: Topology): void {
    if (this.pods.length === 0) {
      for (const r of plan.requirements.values()) {
        const original = this.template.requirements.get(r.key).minValues;
        if (original !== undefined && r.minValues !== undefined && r.minValues < original) this.minValuesRelaxed = true;
      }
    }
    this.pods.push(data.pod);
    const ledger = this.claimOptions.ledger;
    if (ledger && plan.reserve) {
      ledger.reserve(this.hostname, plan.reserve);
      ledger.releaseExcept(this.hostname, plan.reserve);
      this.reserved = plan.reserve;
    }
    this.options = plan.options;
    addInto(this.requests, data.requests);
    this.requirements = plan.requirements;
    this.hostPorts.push(...data.pod.hostPorts);
    if (!topology.empty) {
      topology.register(LABEL_HOSTNAME, this.hostname);
      topology.record(data.pod, this.template.pool.taints, plan.requirements, WELL_KNOWN_LABELS);
    }
  }

  private anyOptionFits(podRequests: ResourceVector): boolean {
    const d = this.template.daemons;
    for (const it of this.options) {
      const g = d.groupOf[it.index];
      if (g >= 0 && fitsSum3(this.requests, podRequests, d.overhead[g], it.allocatableVector)) return true;
    }
    return false;
  }

  private fullFilter(reqs: Requirements, data: PodData, total: ResourceVector): { types: InstanceType[]; message: () => string } {
    const r = filterInstanceTypes(
      this.options,
      reqs,
      data.requests,
      total,
      this.template.daemons,
      data.pod.hostPorts,
      this.space,
      this.claimOptions.relaxMinValues,
    );
    return { types: r.types, message: r.error ?? (() => 'no instance type fits') };
  }
}
