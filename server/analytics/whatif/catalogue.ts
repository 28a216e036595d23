import type { InstanceCatalog } from '../../../core/instance-catalog.js';
import { buildBuiltInCatalogue, type CatalogueEntry } from '../../../core/karpenter/scheduling/index.js';
import { CAPACITY_RESERVED } from '../../../core/karpenter/scheduling/well-known.js';

/**
 * The engine's catalogue for a what-if: the built-in instance types (data/instance-types.json, Karpenter's
 * allocatable) priced as the ledger priced the snapshot. Pure.
 *
 * On-demand: the stored Pricing API price in effect at the snapshot, else the static table's (so a type the cluster
 * never ran still has a price to be compared at). Spot: the stored spot history at the snapshot, per type and zone;
 * types without a stored spot price are not offered as spot (the engine does not invent prices). Reserved nodes
 * get an offering at the price the snapshot gave them, unavailable: it prices the node that holds the reservation,
 * but a re-pack cannot launch more (the reservation's size is not stored).
 */
export interface WhatIfCatalogueInput {
  region: string;
  zones: readonly string[];
  storedOnDemand: ReadonlyMap<string, number>;
  storedSpot: ReadonlyMap<string, number>;
  staticOnDemand: ReadonlyMap<string, number>;
  /** Reserved nodes of the snapshot: type, zone and the price the snapshot gave them. */
  reserved: readonly { instanceType: string; zone: string; pricePerHour: number }[];
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
  });
  const reservedBy = new Map<string, { zone: string; pricePerHour: number }[]>();
  for (const r of input.reserved) {
    const list = reservedBy.get(r.instanceType) ?? [];
    if (!list.some((x) => x.zone === r.zone)) list.push({ zone: r.zone, pricePerHour: r.pricePerHour });
    reservedBy.set(r.instanceType, list);
  }
  const withReserved = entries.map((e) => {
    const reserved = reservedBy.get(e.name);
    if (reserved === undefined) return e;
    return {
      ...e,
      offerings: [
        ...e.offerings,
        ...reserved.map((r) => ({ zone: r.zone, capacityType: CAPACITY_RESERVED, priceUsdPerHour: r.pricePerHour, available: false })),
      ],
    };
  });
  const storedTypes = input.storedOnDemand.size;
  const source =
    `built-in instance types (${withReserved.length} priced) in ${input.region} (${input.zones.join(', ')}); ` +
    `on-demand from ${storedTypes} stored Pricing API price(s) at the snapshot, the static table for the rest; ` +
    `spot from ${input.storedSpot.size} stored spot price(s) (type × zone) at the snapshot`;
  return { entries: withReserved, source };
}
