import { type InstanceType, type Offering, offeringAllowed, orderByPrice, satisfiesMinValues } from './instance-types.js';
import type { InflightNodeClaim } from './nodeclaim.js';
import { Requirement, type Requirements } from './requirements.js';
import { addVectors, fits, minVectors, type ResourceVector } from './resources.js';
import {
  CAPACITY_ON_DEMAND,
  CAPACITY_RESERVED,
  CAPACITY_SPOT,
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_TYPE,
  LABEL_RESERVATION_ID,
  WELL_KNOWN_LABELS,
} from './well-known.js';

/** Karpenter sends at most this many instance types in a NodeClaim (nodeclaimtemplate.go MaxInstanceTypes). */
export const MAX_NODECLAIM_INSTANCE_TYPES = 600;
/** The AWS provider launches from at most this many (instance.go maxInstanceTypes). */
export const MAX_LAUNCH_INSTANCE_TYPES = 60;

/** A NodeClaim after scheduling (Karpenter's FinalizeScheduling), its instance types cheapest first. */
export interface FinalNodeClaim {
  /** The scheduling requirements, hostname removed. */
  requirements: Requirements;
  /** Pod requests plus the smallest DaemonSet overhead among its types. */
  requests: ResourceVector;
  /** Cheapest first, at most 600 (Karpenter's TruncateInstanceTypes / ToNodeClaim). */
  options: InstanceType[];
  /** BestEffort lowered a minValues of its NodePool (annotation karpenter.sh/nodeclaim-min-values-relaxed). */
  minValuesRelaxed?: boolean;
}

/** What the cloud provider would launch for a NodeClaim. */
export interface LaunchChoice {
  instanceType: InstanceType;
  capacityType: string;
  zone: string;
  usdPerHour: number;
  /** The types the launch chose from, cheapest first (after the AWS provider's filters, ≤ 60). */
  launchOptions: InstanceType[];
  /** The capacity reservation a reserved launch goes into. */
  reservationId?: string;
  /** The NodeOverlay that set the launched offering's price. */
  priceOverlay?: string;
}

export function finalizeNodeClaim(nc: InflightNodeClaim): FinalNodeClaim {
  const requirements = nc.requirements.copy().delete(LABEL_HOSTNAME);
  if (nc.reserved.length) {
    // FinalizeScheduling: pinned to reserved, to the reservations it holds a place in
    requirements.set(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [CAPACITY_RESERVED]));
    const ids = [...new Set(nc.reserved.flatMap((o) => (o.reservationId === undefined ? [] : [o.reservationId])))];
    if (ids.length) requirements.add(Requirement.of(LABEL_RESERVATION_ID, 'In', ids));
  } else if (nc.countsReservations) {
    // it holds no place in a reservation (none compatible, or all full): it does not launch into one
    requirements.add(Requirement.of(LABEL_CAPACITY_TYPE, 'NotIn', [CAPACITY_RESERVED]));
  }
  const minValuesRelaxed = nc.minValuesRelaxed;
  // DaemonSet overhead is left out while packing; the smallest among the remaining types is added now
  let daemon: ResourceVector | null = null;
  const d = nc.template.daemons;
  const groups = new Set(nc.options.map((it) => d.groupOf[it.index]));
  for (const g of groups) if (g >= 0) daemon = daemon ? minVectors(daemon, d.overhead[g]) : Float64Array.from(d.overhead[g]);
  const requests = daemon ? addVectors(nc.requests, daemon) : Float64Array.from(nc.requests);
  const options = orderByPrice(nc.options, requirements).slice(0, MAX_NODECLAIM_INSTANCE_TYPES);
  return { requirements, requests, options, minValuesRelaxed };
}

/** Karpenter's ToNodeClaim: the requirements the NodeClaim object carries (its instance types and capacity types added). */
export function nodeClaimRequirements(requirements: Requirements, options: readonly InstanceType[]): Requirements {
  const out = requirements.copy();
  const minValues = out.get(LABEL_INSTANCE_TYPE).minValues;
  out.add(
    Requirement.of(
      LABEL_INSTANCE_TYPE,
      'In',
      options.map((it) => it.name),
      minValues,
    ),
  );
  const capacityTypes = new Set<string>();
  for (const it of options) for (const o of it.offerings) if (o.available && offeringAllowed(out, o)) capacityTypes.add(o.capacityType);
  if (capacityTypes.size) out.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', [...capacityTypes]));
  return out;
}

interface PricedType {
  it: InstanceType;
  offerings: InstanceType['offerings'];
}

/**
 * What the AWS provider would launch (pkg/providers/instance: filterInstanceTypes, getCapacityType, CreateFleet):
 * types that fit with an allowed available offering; metal and accelerator types only if nothing else; when both
 * spot and on-demand are allowed, spot offerings dearer than the cheapest on-demand one dropped; the 60 cheapest;
 * capacity type reserved, else spot, else on-demand; then the cheapest offering of that capacity type (on-demand
 * fleets use lowest-price; for spot's price-capacity-optimized we take the lowest price too). Null when nothing can
 * launch (Karpenter: insufficient capacity).
 */
export function chooseLaunch(requirements: Requirements, requests: ResourceVector, options: readonly InstanceType[]): LaunchChoice | null {
  let types: PricedType[] = options
    .filter((it) => requirements.isCompatible(it.requirements, WELL_KNOWN_LABELS) && fits(requests, it.allocatableVector))
    .map((it) => ({ it, offerings: it.offerings.filter((o) => o.available && offeringAllowed(requirements, o)) }))
    .filter((t) => t.offerings.length > 0);
  if (types.length === 0) return null;
  const minValues = requirements.hasMinValues();
  if (!minValues) {
    const generic = types.filter((t) => !t.it.exotic);
    if (generic.length) types = generic;
  }
  const ct = requirements.get(LABEL_CAPACITY_TYPE);
  if (!minValues && ct.has(CAPACITY_ON_DEMAND) && ct.has(CAPACITY_SPOT)) {
    let cheapestOnDemand = Infinity;
    let anySpot = false;
    for (const t of types) {
      for (const o of t.offerings) {
        if (o.capacityType === CAPACITY_ON_DEMAND) cheapestOnDemand = Math.min(cheapestOnDemand, o.priceUsdPerHour);
        else if (o.capacityType === CAPACITY_SPOT) anySpot = true;
      }
    }
    if (anySpot && cheapestOnDemand < Infinity) {
      types = types
        .map((t) => ({
          it: t.it,
          offerings: t.offerings.filter((o) => !(o.capacityType === CAPACITY_SPOT && o.priceUsdPerHour > cheapestOnDemand)),
        }))
        .filter((t) => t.offerings.length > 0);
    }
  }
  const cheapest = (t: PricedType) => Math.min(...t.offerings.map((o) => o.priceUsdPerHour));
  types.sort((a, b) => cheapest(a) - cheapest(b) || a.it.index - b.it.index);
  types = types.slice(0, MAX_LAUNCH_INSTANCE_TYPES);
  if (
    minValues &&
    satisfiesMinValues(
      types.map((t) => t.it),
      requirements,
    ).unmet
  )
    return null;
  let capacityType = CAPACITY_ON_DEMAND;
  for (const c of [CAPACITY_RESERVED, CAPACITY_SPOT]) {
    if (ct.has(c) && types.some((t) => t.offerings.some((o) => o.capacityType === c))) {
      capacityType = c;
      break;
    }
  }
  let best: { it: InstanceType; offering: Offering } | null = null;
  for (const t of types) {
    for (const o of t.offerings) {
      if (o.capacityType !== capacityType) continue;
      if (
        !best ||
        o.priceUsdPerHour < best.offering.priceUsdPerHour ||
        (o.priceUsdPerHour === best.offering.priceUsdPerHour && t.it.index === best.it.index && o.zone < best.offering.zone)
      ) {
        best = { it: t.it, offering: o };
      }
    }
  }
  if (!best) return null;
  const o = best.offering;
  return {
    instanceType: best.it,
    capacityType,
    zone: o.zone,
    usdPerHour: o.priceUsdPerHour,
    launchOptions: types.map((t) => t.it),
    ...(o.reservationId !== undefined ? { reservationId: o.reservationId } : {}),
    ...(o.priceOverlay !== undefined ? { priceOverlay: o.priceOverlay } : {}),
  };
}
