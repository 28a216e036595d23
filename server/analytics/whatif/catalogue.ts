import type { InstanceCatalog } from '../../../core/instance-catalog.js';
import { buildBuiltInCatalogue, type CatalogueEntry } from '../../../core/karpenter/scheduling/index.js';
import type { KubeCapacityReservationStatus } from '../../../core/karpenter/scheduling/kube-types.js';

/**
 * The engine's catalogue for a what-if: the built-in instance types (data/instance-types.json, Karpenter's
 * allocatable) priced as the ledger priced the snapshot. Pure.
 *
 * On-demand: the stored Pricing API price in effect at the snapshot, else the static table's (so a type the cluster
 * never ran still has a price to be compared at). Spot: the stored spot history at the snapshot, per type and zone;
 * types without a stored spot price are not offered as spot (the engine does not invent prices). Reserved: as
 * Karpenter offers them and `simulate`'s built-in catalogue does, from the stored EC2NodeClasses'
 * status.capacityReservations (when the ReservedCapacity gate is on): one offering per reservation (id, type, zone,
 * interruptible, NodeClass) at the on-demand price ÷ 10,000,000, unavailable while `expiring` or outside the zones,
 * none once its endTime has passed (core/karpenter/scheduling/catalogue.ts buildBuiltInCatalogue). The status has no
 * instance count, so a reservation is not limited (neither path can tell one used up).
 */
export interface WhatIfCatalogueInput {
  region: string;
  zones: readonly string[];
  storedOnDemand: ReadonlyMap<string, number>;
  storedSpot: ReadonlyMap<string, number>;
  staticOnDemand: ReadonlyMap<string, number>;
  /** The stored EC2NodeClasses' status.capacityReservations, each with its NodeClass (empty with the gate off). */
  capacityReservations: readonly { nodeClass: string; reservation: KubeCapacityReservationStatus }[];
  /** The snapshot's time: reservations whose endTime has passed are not offered. */
  now: number;
}

export interface WhatIfCatalogue {
  entries: CatalogueEntry[];
  /** In words, for every answer: where the prices came from. */
  source: string;
}

export function whatIfCatalogue(data: Pick<InstanceCatalog, 'types'>, input: WhatIfCatalogueInput): WhatIfCatalogue {
  const onDemand = new Map(input.staticOnDemand);
  for (const [type, price] of input.storedOnDemand) onDemand.set(type, price);
  const entries = buildBuiltInCatalogue(data, {
    region: input.region,
    zones: input.zones,
    onDemandUsdPerHour: onDemand,
    spotUsdPerHour: input.storedSpot,
    capacityReservations: input.capacityReservations,
    now: input.now,
  });
  const withReserved = entries;
  const storedTypes = input.storedOnDemand.size;
  const source =
    `built-in instance types (${withReserved.length} priced) in ${input.region} (${input.zones.join(', ')}); ` +
    `on-demand from ${storedTypes} stored Pricing API price(s) at the snapshot, the static table for the rest; ` +
    `spot from ${input.storedSpot.size} stored spot price(s) (type × zone) at the snapshot` +
    (input.capacityReservations.length > 0
      ? `; ${input.capacityReservations.length} capacity reservation(s) from the EC2NodeClasses at the on-demand price ÷ 10,000,000`
      : '');
  return { entries: withReserved, source };
}
