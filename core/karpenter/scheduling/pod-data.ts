import { podRequirements, type PodConstraints, type SchedPod } from './pods.js';
import type { Requirements } from './requirements.js';
import type { ResourceSpace, ResourceVector } from './resources.js';

/** What the scheduler derives from a pod and its current (possibly relaxed) constraints (Karpenter's PodData). */
export interface PodData {
  pod: SchedPod;
  constraints: PodConstraints;
  /** nodeSelector + heaviest preferred term + first required term. */
  requirements: Requirements;
  /** Without preferences: what topology domains are counted against. */
  strict: Requirements;
  requests: ResourceVector;
  /**
   * Pods with the same key fail on the same node for the same reasons, as long as the reason does not involve
   * topology: requests, requirements, tolerations and host ports.
   */
  key: string;
}

export function podData(
  pod: SchedPod,
  constraints: PodConstraints,
  space: ResourceSpace,
  ignorePreferences: boolean,
  /** One of the pod's volume topology alternatives instead of its first. */
  volume?: Requirements,
): PodData {
  let requirements = podRequirements(pod, constraints, !ignorePreferences);
  const strict = constraints.preferredNodeTerms.length > 0 ? podRequirements(pod, constraints, false) : requirements;
  // a volume's topology narrows the node the pod may go to, not the affinity topology spread counts by
  const v = volume ?? pod.volumeRequirements;
  if (v) requirements = requirements.copy().addAll(v);
  const requests = space.vector(pod.requests);
  const key = [
    requests.join(','),
    requirements.signature(),
    strict === requirements ? '=' : strict.signature(),
    JSON.stringify(constraints.tolerations),
    JSON.stringify(pod.hostPorts),
  ].join('|');
  return { pod, constraints, requirements, strict, requests, key };
}
