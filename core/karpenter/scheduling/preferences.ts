import type { PodConstraints } from './pods.js';

/**
 * Karpenter's preference relaxation (pkg/controllers/provisioning/scheduling/preferences.go): when a pod does not
 * schedule, loosen one soft constraint and try again, in this order: drop the first of several required node
 * affinity terms (they are OR'd), the heaviest preferred pod affinity, the heaviest preferred pod anti-affinity,
 * the heaviest preferred node affinity, a ScheduleAnyway topology spread, and finally (only when some NodePool has
 * a PreferNoSchedule taint) tolerate PreferNoSchedule taints. Returns what was relaxed, or null when nothing is left.
 */
export function relax(c: PodConstraints, toleratePreferNoSchedule: boolean): string | null {
  if (c.requiredNodeTerms.length > 1) {
    c.requiredNodeTerms = c.requiredNodeTerms.slice(1);
    return 'removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]';
  }
  if (c.preferredPodAffinity.length > 0) {
    c.preferredPodAffinity = [...c.preferredPodAffinity].sort((a, b) => b.weight - a.weight).slice(1);
    return 'removing: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
  }
  if (c.preferredAntiAffinity.length > 0) {
    c.preferredAntiAffinity = [...c.preferredAntiAffinity].sort((a, b) => b.weight - a.weight).slice(1);
    return 'removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
  }
  if (c.preferredNodeTerms.length > 0) {
    c.preferredNodeTerms = [...c.preferredNodeTerms].sort((a, b) => b.weight - a.weight).slice(1);
    return 'removing: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
  }
  const i = c.spread.findIndex((t) => t.whenUnsatisfiable === 'ScheduleAnyway');
  if (i >= 0) {
    // Karpenter swaps the last constraint into the removed one's place
    const spread = [...c.spread];
    spread[i] = spread[spread.length - 1];
    spread.pop();
    c.spread = spread;
    return 'removing: spec.topologySpreadConstraints[ScheduleAnyway]';
  }
  if (toleratePreferNoSchedule) {
    const has = c.tolerations.some((t) => t.operator === 'Exists' && !t.key && !t.value && t.effect === 'PreferNoSchedule');
    if (!has) {
      c.tolerations = [...c.tolerations, { operator: 'Exists', effect: 'PreferNoSchedule' }];
      return 'adding: toleration for PreferNoSchedule taints';
    }
  }
  return null;
}
