import type { KubePodDisruptionBudget } from '../../core/karpenter/scheduling/kube-types.js';
import type { EpochMs, SimPodDisruptionBudget } from './types.js';
import { isoSeconds, uidFor } from './uid.js';

/**
 * A PodDisruptionBudget's status as Kubernetes' disruption controller computes it
 * (kubernetes pkg/controller/disruption/disruption.go, getExpectedPodCount and updatePdbStatus):
 * - maxUnavailable (count or percentage): expectedPods = the scale of the pods' controllers, desiredHealthy =
 *   expectedPods − maxUnavailable (a percentage of expectedPods, rounded up), at least 0;
 * - minAvailable as a count: expectedPods = the pods selected, desiredHealthy = minAvailable;
 * - minAvailable as a percentage: expectedPods = the controllers' scale, desiredHealthy = that share rounded up;
 * - disruptionsAllowed = currentHealthy − desiredHealthy (healthy: Ready and not being deleted), never below 0, and 0
 *   when no pod is expected.
 * Karpenter reads status.disruptionsAllowed (pkg/utils/pdb), so the simulation hands the engine this status.
 */

export interface PdbStatus {
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
  expectedPods: number;
}

function scaled(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const pct = /^(\d+)%$/.exec(value);
  if (pct) return Math.ceil((Number(pct[1]) * total) / 100);
  return Number(value);
}

/** `healthy`: Ready pods it selects; `selected`: the pods it selects; `scale`: its controller's spec.replicas. */
export function pdbStatus(
  pdb: Pick<SimPodDisruptionBudget, 'minAvailable' | 'maxUnavailable'>,
  healthy: number,
  selected: number,
  scale: number,
): PdbStatus {
  let expected: number;
  let desired: number;
  if (pdb.maxUnavailable !== undefined) {
    expected = scale;
    desired = Math.max(0, expected - scaled(pdb.maxUnavailable, expected));
  } else if (typeof pdb.minAvailable === 'string' && pdb.minAvailable.endsWith('%')) {
    expected = scale;
    desired = scaled(pdb.minAvailable, expected);
  } else {
    expected = selected;
    desired = scaled(pdb.minAvailable ?? 0, expected);
  }
  const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
  return { currentHealthy: healthy, desiredHealthy: desired, disruptionsAllowed: allowed, expectedPods: expected };
}

/** The policy/v1 object as the API returns it, with its status as of `statusSince` (when that status began). */
export function pdbObject(pdb: SimPodDisruptionBudget, status: PdbStatus, statusSince: EpochMs): KubePodDisruptionBudget {
  const served = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: pdb.name,
      namespace: pdb.namespace,
      uid: uidFor('PodDisruptionBudget', `${pdb.namespace}/${pdb.name}`),
      resourceVersion: String(Math.floor(statusSince / 1000)),
      generation: 1,
      creationTimestamp: isoSeconds(pdb.createdAt),
    },
    spec: {
      ...(pdb.minAvailable !== undefined ? { minAvailable: pdb.minAvailable } : {}),
      ...(pdb.maxUnavailable !== undefined ? { maxUnavailable: pdb.maxUnavailable } : {}),
      selector: { matchLabels: { ...pdb.matchLabels } },
    },
    status: {
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: status.disruptionsAllowed > 0 ? 'True' : 'False',
          reason: status.disruptionsAllowed > 0 ? 'SufficientPods' : 'InsufficientPods',
          message: '',
          observedGeneration: 1,
          lastTransitionTime: isoSeconds(statusSince),
        },
      ],
      currentHealthy: status.currentHealthy,
      desiredHealthy: status.desiredHealthy,
      disruptionsAllowed: status.disruptionsAllowed,
      expectedPods: status.expectedPods,
      observedGeneration: 1,
    },
  };
  return served;
}
