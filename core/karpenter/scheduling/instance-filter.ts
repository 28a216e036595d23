import { type InstanceType, minValuesMessage, offeringAllowed, satisfiesMinValues } from './instance-types.js';
import { hostPortsConflict, type HostPort } from './pods.js';
import type { Requirements } from './requirements.js';
import {
  addVectors,
  fits,
  fitsSum3,
  formatResources,
  maxVectors,
  minVectors,
  type ResourceSpace,
  type ResourceVector,
} from './resources.js';

/**
 * DaemonSet overhead per instance type of a NodePool (Karpenter's DaemonOverheadGroup): types whose compatible
 * DaemonSets are the same share one group, with the summed requests and host ports of those DaemonSets.
 */
export interface DaemonGroups {
  /** Group number by instance-type index; -1 for types outside the NodePool. */
  groupOf: Int32Array;
  overhead: ResourceVector[];
  hostPorts: HostPort[][];
}

export interface FilterOutcome {
  types: InstanceType[];
  /** Why no type is left, in Karpenter's words (built on demand). */
  error: (() => string) | null;
}

const portsConflict = (a: readonly HostPort[], b: readonly HostPort[]) => a.some((x) => b.some((y) => hostPortsConflict(x, y)));

/** Whether the type meets the requests with an available offering the requirements allow (Karpenter's fits()). */
function fitAndOffering(it: InstanceType, total: ResourceVector, reqs: Requirements): [boolean, boolean] {
  const resourceFit = fits(total, it.allocatableVector);
  for (const o of it.offerings) {
    if (o.available && offeringAllowed(reqs, o)) return [resourceFit, true];
  }
  return [false, false];
}

/**
 * Karpenter's filterInstanceTypesByRequirements: the instance types that meet the requirements, hold the requests
 * plus their DaemonSet overhead, and have an allowed available offering; then minValues (strict policy).
 */
export function filterInstanceTypes(
  options: readonly InstanceType[],
  reqs: Requirements,
  podRequests: ResourceVector,
  total: ResourceVector,
  daemons: DaemonGroups,
  podPorts: readonly HostPort[],
  space: ResourceSpace,
  relaxMinValues = false,
): FilterOutcome {
  let requirementsMet = false;
  let fitsAny = false;
  let hasOffering = false;
  let requirementsAndFits = false;
  let requirementsAndOffering = false;
  let fitsAndOffering = false;
  let minDaemon: ResourceVector | null = null;
  let maxDaemon: ResourceVector | null = null;
  const totals = new Map<number, ResourceVector>();
  const skipped = new Set<number>();
  let remaining: InstanceType[] = [];
  for (const it of options) {
    const g = daemons.groupOf[it.index];
    if (g < 0 || skipped.has(g)) continue;
    let t = totals.get(g);
    if (!t) {
      if (podPorts.length && portsConflict(podPorts, daemons.hostPorts[g])) {
        skipped.add(g);
        continue;
      }
      const o = daemons.overhead[g];
      if (o.some((x) => x !== 0)) {
        minDaemon = minDaemon ? minVectors(minDaemon, o) : Float64Array.from(o);
        maxDaemon = maxDaemon ? maxVectors(maxDaemon, o) : Float64Array.from(o);
      }
      t = addVectors(total, o);
      totals.set(g, t);
    }
    const compat = it.requirements.intersects(reqs);
    const [fit, offering] = fitAndOffering(it, t, reqs);
    requirementsMet ||= compat;
    fitsAny ||= fit;
    hasOffering ||= offering;
    requirementsAndFits ||= compat && fit && !offering;
    requirementsAndOffering ||= compat && offering && !fit;
    fitsAndOffering ||= fit && offering && !compat;
    if (compat && fit && offering) remaining.push(it);
  }
  let minValuesError: string | null = null;
  // Strict: nothing can launch when minValues are not met; BestEffort keeps the types (the NodeClaim lowers them)
  if (reqs.hasMinValues() && !relaxMinValues) {
    const { unmet } = satisfiesMinValues(remaining, reqs);
    if (unmet) {
      minValuesError = minValuesMessage(unmet);
      remaining = [];
    }
  }
  if (remaining.length > 0) return { types: remaining, error: null };
  const resources = () => {
    if (!minDaemon || !maxDaemon) return formatResources(space.toMap(podRequests));
    const lo = formatResources(space.toMap(addVectors(minDaemon, podRequests)));
    const hi = formatResources(space.toMap(addVectors(maxDaemon, podRequests)));
    return lo === hi ? lo : `min=${lo}, max=${hi}`;
  };
  const tail = () => `requirements=${reqs}, resources=${resources()}`;
  return {
    types: [],
    error: () => {
      if (minValuesError) return `${minValuesError}, ${tail()}`;
      if (!requirementsMet && !fitsAny && !hasOffering)
        return `no instance type met the scheduling requirements or had enough resources or had a required offering, ${tail()}`;
      if (!requirementsMet && !fitsAny) return `no instance type met the scheduling requirements or had enough resources, ${tail()}`;
      if (!requirementsMet && !hasOffering) return `no instance type met the scheduling requirements or had a required offering, ${tail()}`;
      if (!fitsAny && !hasOffering) return `no instance type had enough resources or had a required offering, ${tail()}`;
      if (!requirementsMet) return `no instance type met all requirements, ${tail()}`;
      if (!fitsAny) {
        const cpu = podRequests[space.slot('cpu')];
        return `no instance type has enough resources, ${tail()}${cpu >= 1e9 ? ' (CPU request >= 1 Million, m vs M typo?)' : ''}`;
      }
      if (!hasOffering) return `no instance type has the required offering, ${tail()}`;
      if (requirementsAndFits)
        return `no instance type which met the scheduling requirements and had enough resources, had a required offering, ${tail()}`;
      if (fitsAndOffering)
        return `no instance type which had enough resources and the required offering met the scheduling requirements, ${tail()}`;
      if (requirementsAndOffering)
        return `no instance type which met the scheduling requirements and the required offering had the required resources, ${tail()}`;
      return `no instance type met the requirements/resources/offering tuple, ${tail()}`;
    },
  };
}

/**
 * The same filter when the requirements did not change since the options were last filtered: every option still
 * meets them and has an offering, so only the resources (and minValues) need checking. The same array comes back
 * when every option still fits; null when nothing is left, so the caller can run the full filter for the message.
 */
export function refitInstanceTypes(
  options: InstanceType[],
  reqs: Requirements,
  requests: ResourceVector,
  podRequests: ResourceVector,
  daemons: DaemonGroups,
  podPorts: readonly HostPort[],
): InstanceType[] | null {
  let out: InstanceType[] | null = null;
  let conflicted: Set<number> | null = null;
  for (let i = 0; i < options.length; i++) {
    const it = options[i];
    const g = daemons.groupOf[it.index];
    let keep = g >= 0;
    if (keep && podPorts.length) {
      if (conflicted?.has(g)) keep = false;
      else if (portsConflict(podPorts, daemons.hostPorts[g])) {
        (conflicted ??= new Set()).add(g);
        keep = false;
      }
    }
    if (keep) keep = fitsSum3(requests, podRequests, daemons.overhead[g], it.allocatableVector);
    if (!keep && out === null) out = options.slice(0, i);
    else if (keep && out !== null) out.push(it);
  }
  if (out === null) return options;
  if (out.length === 0) return null;
  // minValues not met: the full filter says why (or, under BestEffort, lowers them)
  if (reqs.hasMinValues() && satisfiesMinValues(out, reqs).unmet) return null;
  return out;
}
