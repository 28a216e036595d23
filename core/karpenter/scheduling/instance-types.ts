import { type CatalogueEntry, karpenterOverhead } from './catalogue.js';
import { parseResourceList, type ResourceMap, type ResourceSpace, type ResourceVector } from './resources.js';
import { Requirement, Requirements } from './requirements.js';
import {
  ABSENT_MEANS_DOES_NOT_EXIST,
  CAPACITY_RESERVED,
  EXOTIC_RESOURCES,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_SIZE,
  LABEL_EC2_NODECLASS,
  LABEL_RESERVATION_ID,
  LABEL_RESERVATION_INTERRUPTIBLE,
  LABEL_RESERVATION_TYPE,
  LABEL_ZONE,
  RESOURCE_NODES,
} from './well-known.js';

/** Where and how an instance type can be bought, and at what price. */
export interface Offering {
  zone: string;
  capacityType: string;
  priceUsdPerHour: number;
  available: boolean;
  /** Reserved offerings: the capacity reservation (ODCR or capacity block) it launches into. */
  reservationId?: string;
  /** Instances the reservation still holds; undefined when not known (not limited). */
  reservationCapacity?: number;
  reservationType?: string;
  interruptible?: boolean;
  /** The EC2NodeClass whose status lists the reservation: only its NodePools see the offering. */
  nodeClass?: string;
  /** The NodeOverlay that set this price (NodeOverlay gate), for saying which overlay priced what. */
  priceOverlay?: string;
}

/** An instance type as the scheduler uses it (Karpenter's cloudprovider.InstanceType). */
export interface InstanceType {
  name: string;
  /** Position in the catalogue; breaks price ties so orderings are deterministic. */
  index: number;
  labels: Readonly<Record<string, string>>;
  /** Its labels as In requirements, DoesNotExist for absent well-known labels, zones and capacity types from the offerings. */
  requirements: Requirements;
  capacity: ResourceMap;
  allocatable: ResourceMap;
  capacityVector: ResourceVector;
  allocatableVector: ResourceVector;
  offerings: Offering[];
  /** Metal or accelerator types, which the AWS launch filter avoids when anything else fits. */
  exotic: boolean;
  /** NodeOverlays whose capacity was merged into this type (for the NodePool it was derived for), weight order. */
  capacityOverlays?: string[];
}

/**
 * Whether an offering is allowed by requirements: its zone and capacity type, and for a reserved offering its
 * reservation labels and the EC2NodeClass that lists it (the AWS provider injects reserved offerings per NodeClass).
 */
export const offeringAllowed = (reqs: Requirements, o: Offering): boolean =>
  reqs.get(LABEL_ZONE).has(o.zone) &&
  reqs.get(LABEL_CAPACITY_TYPE).has(o.capacityType) &&
  (o.reservationId === undefined || reservedOfferingAllowed(reqs, o));

function reservedOfferingAllowed(reqs: Requirements, o: Offering): boolean {
  if (!reqs.get(LABEL_RESERVATION_ID).has(o.reservationId as string)) return false;
  if (o.nodeClass !== undefined && !reqs.get(LABEL_EC2_NODECLASS).has(o.nodeClass)) return false;
  if (o.reservationType !== undefined && !reqs.get(LABEL_RESERVATION_TYPE).has(o.reservationType)) return false;
  if (o.interruptible !== undefined && !reqs.get(LABEL_RESERVATION_INTERRUPTIBLE).has(String(o.interruptible))) return false;
  return true;
}

/** Every resource name the catalogue mentions, so the ResourceSpace can hold it. */
export function catalogueResourceNames(entries: readonly CatalogueEntry[]): Set<string> {
  const names = new Set<string>();
  for (const e of entries) for (const k in e.capacity) names.add(k);
  return names;
}

type Compiled = Omit<InstanceType, 'index' | 'capacityVector' | 'allocatableVector'>;

/** A reservation with no instances left cannot be launched into (aws ReservedCapacityResolver: capacity != 0). */
const offeringAvailable = (o: { available: boolean; reservationCapacity?: number }): boolean => o.available && o.reservationCapacity !== 0;

// Entries are read, never changed, once given to the engine: what they compile to is kept per entry, so a catalogue
// used by many simulations (a server's predictions, a test suite) is parsed once. Only the vectors depend on the
// simulation's resource names.
const compiled = new WeakMap<CatalogueEntry, Compiled>();

function compileEntry(entry: CatalogueEntry): Compiled {
  const labels: Record<string, string> = { ...entry.labels, [LABEL_INSTANCE_TYPE]: entry.name };
  const capacity = parseResourceList(entry.capacity);
  const overhead = entry.overhead ? parseResourceList(entry.overhead) : karpenterOverhead(capacity.cpu ?? 0, capacity.pods ?? 0);
  const allocatable: ResourceMap = { ...capacity };
  for (const [k, v] of Object.entries(overhead)) allocatable[k] = (allocatable[k] ?? 0) - v;
  const requirements = new Requirements();
  for (const [k, v] of Object.entries(labels)) requirements.add(Requirement.of(k, 'In', [v]));
  for (const k of ABSENT_MEANS_DOES_NOT_EXIST) if (labels[k] === undefined) requirements.add(Requirement.of(k, 'DoesNotExist'));
  const available = entry.offerings.filter((o) => offeringAvailable(o));
  requirements.set(Requirement.of(LABEL_ZONE, 'In', [...new Set(available.map((o) => o.zone))]));
  requirements.set(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [...new Set(available.map((o) => o.capacityType))]));
  const size = labels[LABEL_INSTANCE_SIZE] ?? '';
  return {
    name: entry.name,
    labels,
    requirements,
    capacity,
    allocatable,
    offerings: entry.offerings.map((o) => ({ ...o, available: offeringAvailable(o) })),
    exotic: size.includes('metal') || EXOTIC_RESOURCES.some((r) => (capacity[r] ?? 0) > 0),
  };
}

export function compileInstanceType(entry: CatalogueEntry, index: number, space: ResourceSpace): InstanceType {
  let c = compiled.get(entry);
  if (!c) {
    c = compileEntry(entry);
    compiled.set(entry, c);
  }
  return {
    ...c,
    index,
    // every node counts one against a NodePool's `nodes` limit
    capacityVector: space.vector({ ...c.capacity, [RESOURCE_NODES]: 1 }),
    allocatableVector: space.vector(c.allocatable),
  };
}

// The compiled type of an entry at its catalogue position in a resource space (names in slot order), kept so a
// catalogue given again to a like simulation (a sandbox step, a server's predictions) is not compiled again.
const placed = new WeakMap<CatalogueEntry, { index: number; spaceKey: string; it: InstanceType }>();

/** compileInstanceType, reusing the last result for this entry when its position and the space's names are the same. */
export function compileInstanceTypeReusing(entry: CatalogueEntry, index: number, space: ResourceSpace, spaceKey: string): InstanceType {
  const kept = placed.get(entry);
  if (kept && kept.index === index && kept.spaceKey === spaceKey) return kept.it;
  const it = compileInstanceType(entry, index, space);
  placed.set(entry, { index, spaceKey, it });
  return it;
}

/** The type with its reserved offerings unavailable (ReservedCapacity gate off); the same object when it has none. */
export function withoutReservedOfferings(it: InstanceType): InstanceType {
  if (!it.offerings.some((o) => o.capacityType === CAPACITY_RESERVED && o.available)) return it;
  const offerings = it.offerings.map((o) => (o.capacityType === CAPACITY_RESERVED ? { ...o, available: false } : o));
  const available = offerings.filter((o) => o.available);
  const requirements = it.requirements
    .copy()
    .set(Requirement.of(LABEL_ZONE, 'In', [...new Set(available.map((o) => o.zone))]))
    .set(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [...new Set(available.map((o) => o.capacityType))]));
  return { ...it, offerings, requirements };
}

/** The price of the offering a node of this type runs on (zone and capacity type), available or not; null if none. */
export function offeringPrice(it: InstanceType, zone: string, capacityType: string): number | null {
  for (const o of it.offerings) if (o.zone === zone && o.capacityType === capacityType) return o.priceUsdPerHour;
  return null;
}

/** Cheapest available offering allowed by the requirements, USD/hour; Infinity if none (Karpenter's OrderByPrice key). */
export function cheapestAllowedPrice(it: InstanceType, reqs: Requirements): number {
  let best = Infinity;
  for (const o of it.offerings) if (o.available && o.priceUsdPerHour < best && offeringAllowed(reqs, o)) best = o.priceUsdPerHour;
  return best;
}

/** Karpenter's OrderByPrice: cheapest allowed available offering first; ties by catalogue order. */
export function orderByPrice(types: readonly InstanceType[], reqs: Requirements): InstanceType[] {
  // the zone and capacity-type verdicts are the same for every type: judged once per distinct value
  const zone = reqs.get(LABEL_ZONE);
  const capacityType = reqs.get(LABEL_CAPACITY_TYPE);
  const zoneOk = new Map<string, boolean>();
  const capacityTypeOk = new Map<string, boolean>();
  const allowed = (o: Offering): boolean => {
    let z = zoneOk.get(o.zone);
    if (z === undefined) zoneOk.set(o.zone, (z = zone.has(o.zone)));
    if (!z) return false;
    let c = capacityTypeOk.get(o.capacityType);
    if (c === undefined) capacityTypeOk.set(o.capacityType, (c = capacityType.has(o.capacityType)));
    return c;
  };
  const cheapest = (it: InstanceType): number => {
    let best = Infinity;
    for (const o of it.offerings) if (o.available && o.priceUsdPerHour < best && allowed(o)) best = o.priceUsdPerHour;
    return best;
  };
  const keyed = types.map((it) => ({ it, price: cheapest(it) }));
  keyed.sort((a, b) => a.price - b.price || a.it.index - b.it.index);
  return keyed.map((k) => k.it);
}

/**
 * Karpenter's WorstLaunchPrice: the dearest allowed available offering of the capacity type a launch would use
 * (reserved, then spot, then on-demand).
 */
export function worstLaunchPrice(it: InstanceType, reqs: Requirements): number {
  for (const ct of ['reserved', 'spot', 'on-demand']) {
    let worst = -1;
    for (const o of it.offerings) {
      if (o.available && o.capacityType === ct && offeringAllowed(reqs, o) && o.priceUsdPerHour > worst) worst = o.priceUsdPerHour;
    }
    if (worst >= 0) return worst;
  }
  return Infinity;
}

/**
 * Karpenter's SatisfiesMinValues over types in the given order: how many of the first types are needed to meet
 * every minValues, and the keys (with the distinct values reached) that are not met by all of them.
 */
export function satisfiesMinValues(
  types: readonly InstanceType[],
  reqs: Requirements,
): { needed: number; unmet: Map<string, number> | null } {
  const keys = [...reqs.values()].filter((r) => r.minValues !== undefined);
  if (keys.length === 0) return { needed: 0, unmet: null };
  const seen = new Map<string, Set<string>>(keys.map((r) => [r.key, new Set<string>()]));
  for (let i = 0; i < types.length; i++) {
    let met = true;
    for (const r of keys) {
      const values = seen.get(r.key) as Set<string>;
      const itReq = types[i].requirements.get(r.key);
      if (!itReq.complement) for (const v of itReq.values) values.add(v);
      if (values.size < (r.minValues ?? 0)) met = false;
    }
    if (met) return { needed: i + 1, unmet: null };
  }
  const unmet = new Map<string, number>();
  for (const r of keys) {
    const n = (seen.get(r.key) as Set<string>).size;
    if (n < (r.minValues ?? 0)) unmet.set(r.key, n);
  }
  return { needed: types.length, unmet };
}

/** Karpenter's minValues error text. */
export const minValuesMessage = (unmet: ReadonlyMap<string, number>): string =>
  `minValues requirement is not met for label(s) (label(s)=[${[...unmet.keys()].sort().join(' ')}])`;
