/**
 * On-demand capacity reservations (ODCRs) a scenario holds, and which have room. Karpenter launches into a
 * matching reservation before spot or on-demand (the `reserved` capacity type) and labels the node with the
 * reservation's id; AWS bills an instance in a reservation at the on-demand rate, as On Demand usage.
 * Capacity Blocks for ML (reservation type capacity-block, paid up front) are not modelled.
 */

export interface CapacityReservationSpec {
  /** cr- and 17 hex digits, as EC2 names them. */
  id: string;
  instanceType: string;
  zone: string;
  /** Instances the reservation holds. */
  count: number;
}

export const CAPACITY_RESERVATION_ID = /^cr-[0-9a-f]{17}$/;

/** The first reservation for `instanceType` with room, given the nodes running now; null when none has room. */
export function reservationWithRoom(
  reservations: readonly CapacityReservationSpec[],
  instanceType: string,
  running: readonly { capacityReservationId?: string | null }[],
): CapacityReservationSpec | null {
  for (const r of reservations) {
    if (r.instanceType !== instanceType) continue;
    const used = running.filter((n) => n.capacityReservationId === r.id).length;
    if (used < r.count) return r;
  }
  return null;
}
