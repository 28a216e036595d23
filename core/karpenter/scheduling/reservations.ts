import type { InstanceType, Offering } from './instance-types.js';
import type { KubeCapacityReservationStatus, KubeEC2NodeClass, KubeNode } from './kube-types.js';
import {
  CAPACITY_ON_DEMAND,
  CAPACITY_RESERVED,
  LABEL_CAPACITY_TYPE,
  LABEL_RESERVATION_ID,
  LABEL_RESERVATION_INTERRUPTIBLE,
  LABEL_RESERVATION_TYPE,
} from './well-known.js';

/**
 * Capacity reservations (ODCRs and capacity blocks) as the AWS provider and Karpenter's scheduler use them:
 * the reservations the EC2NodeClasses list, the demotion of a node whose reservation has ended
 * (aws pkg/controllers/capacityreservation/capacitytype: a reserved NodeClaim becomes on-demand, its reservation
 * labels removed), and the count of instances a simulation launches into each reservation
 * (core pkg/controllers/provisioning/scheduling/reservationmanager.go).
 */

/** Every reservation the EC2NodeClasses list, with the NodeClass that lists it. */
export function capacityReservations(
  nodeClasses: readonly KubeEC2NodeClass[],
): { nodeClass: string; reservation: KubeCapacityReservationStatus }[] {
  const out: { nodeClass: string; reservation: KubeCapacityReservationStatus }[] = [];
  for (const nc of nodeClasses)
    for (const r of nc.status?.capacityReservations ?? []) out.push({ nodeClass: nc.metadata.name, reservation: r });
  return out;
}

/** Reservation ids whose endTime is at or before now: their nodes run on-demand from then on. */
export function endedReservations(nodeClasses: readonly KubeEC2NodeClass[], now: number): Set<string> {
  const out = new Set<string>();
  for (const { reservation: r } of capacityReservations(nodeClasses)) {
    if (r.endTime === undefined) continue;
    const end = Date.parse(r.endTime);
    if (!Number.isNaN(end) && end <= now) out.add(r.id);
  }
  return out;
}

/**
 * A reserved node whose reservation has ended, as the capacitytype controller leaves it: capacity type on-demand,
 * the reservation labels gone. Other nodes come back as they are.
 */
export function demoteEndedReservation(node: KubeNode, ended: ReadonlySet<string>): KubeNode {
  const labels = node.metadata?.labels;
  if (!labels || labels[LABEL_CAPACITY_TYPE] !== CAPACITY_RESERVED) return node;
  const id = labels[LABEL_RESERVATION_ID];
  if (id === undefined || !ended.has(id)) return node;
  const demoted: Record<string, string> = { ...labels, [LABEL_CAPACITY_TYPE]: CAPACITY_ON_DEMAND };
  delete demoted[LABEL_RESERVATION_ID];
  delete demoted[LABEL_RESERVATION_TYPE];
  delete demoted[LABEL_RESERVATION_INTERRUPTIBLE];
  return { ...node, metadata: { ...node.metadata, labels: demoted } };
}

/**
 * Whether any offering of the catalogue is a named reservation: NodeClaims then hold places in reservations and are
 * pinned to them (a reservation without an instance count is not limited).
 */
export function hasReservations(types: readonly InstanceType[]): boolean {
  for (const it of types) for (const o of it.offerings) if (o.reservationId !== undefined) return true;
  return false;
}

/**
 * Karpenter's ReservationManager: how many instances each reservation still holds, and which planned NodeClaims
 * (by hostname) hold a place in which reservations. A NodeClaim holds every reservation it could launch into
 * (pessimistically, as Karpenter does); reserving is idempotent per NodeClaim.
 */
export class ReservationLedger {
  private readonly capacity = new Map<string, number>();
  private readonly held = new Map<string, Set<string>>();
  /** Reservations with no instance left when the round began: their offerings are unavailable (AvailableInstanceCount 0). */
  private readonly exhausted = new Set<string>();

  /** `used`: instances already launched into reservations this simulation (a provisioning round before). */
  constructor(types: Iterable<readonly InstanceType[]>, used?: ReadonlyMap<string, number>) {
    for (const list of types) {
      for (const it of list) {
        for (const o of it.offerings) {
          if (o.reservationId === undefined || o.reservationCapacity === undefined) continue;
          // the same reservation listed twice: the smaller count (as reservationmanager.go)
          const current = this.capacity.get(o.reservationId);
          if (current === undefined || current > o.reservationCapacity) this.capacity.set(o.reservationId, o.reservationCapacity);
        }
      }
    }
    for (const [id, n] of used ?? []) {
      const left = this.capacity.get(id);
      if (left !== undefined) this.capacity.set(id, Math.max(0, left - n));
    }
    for (const [id, left] of this.capacity) if (left === 0) this.exhausted.add(id);
  }

  /** The offering's reservation had no instance left when the round began. */
  usedUp(o: Offering): boolean {
    return o.reservationId !== undefined && this.exhausted.has(o.reservationId);
  }

  /** Whether `host` holds or can take a place in the offering's reservation; unlimited reservations always can. */
  canReserve(host: string, o: Offering): boolean {
    const id = o.reservationId;
    if (id === undefined) return true;
    if (this.held.get(host)?.has(id)) return true;
    const left = this.capacity.get(id);
    return left === undefined || left > 0;
  }

  reserve(host: string, offerings: readonly Offering[]): void {
    for (const o of offerings) {
      const id = o.reservationId;
      if (id === undefined) continue;
      let mine = this.held.get(host);
      if (mine?.has(id)) continue;
      const left = this.capacity.get(id);
      if (left !== undefined) this.capacity.set(id, left - 1);
      if (!mine) this.held.set(host, (mine = new Set()));
      mine.add(id);
    }
  }

  /** Gives back the host's places in reservations it no longer needs. */
  releaseExcept(host: string, keep: readonly Offering[]): void {
    const mine = this.held.get(host);
    if (!mine) return;
    const kept = new Set(keep.map((o) => o.reservationId));
    for (const id of [...mine]) {
      if (kept.has(id)) continue;
      mine.delete(id);
      const left = this.capacity.get(id);
      if (left !== undefined) this.capacity.set(id, left + 1);
    }
  }

  /** Instances left in a reservation (Infinity when not counted). */
  remaining(id: string): number {
    return this.capacity.get(id) ?? Infinity;
  }
}
