import { type DaemonGroups, filterInstanceTypes } from './instance-filter.js';
import type { InstanceType } from './instance-types.js';
import { type NodePoolSpec, orderByWeight, templateRequirements } from './nodepools.js';
import { podRequirements, type SchedPod } from './pods.js';
import { Requirements } from './requirements.js';
import { addInto, type ResourceSpace, type ResourceVector } from './resources.js';
import { type Taint, toleratesAll } from './taints.js';
import { WELL_KNOWN_LABELS } from './well-known.js';

/** What a NodePool launches from (Karpenter's NodeClaimTemplate), prepared once per catalogue and NodePool set. */
export interface NodeClaimTemplate {
  pool: NodePoolSpec;
  /** Position in weight order. */
  order: number;
  requirements: Requirements;
  /** Types the NodePool's requirements allow that have an allowed offering, catalogue order. */
  options: InstanceType[];
  daemons: DaemonGroups;
  /** Options narrowed by extra requirements, cached by their signature (pods repeat the same constraints). */
  narrowed: Map<string, InstanceType[]>;
}

/** Whether a DaemonSet pod would run on nodes of this template and type (Karpenter's isDaemonPodCompatible). */
function daemonCompatible(tpl: Requirements, taints: readonly Taint[], it: InstanceType, pod: SchedPod): boolean {
  // a DaemonSet pod need not honour PreferNoSchedule
  const c = { ...pod.constraints, requiredNodeTerms: [...pod.constraints.requiredNodeTerms] };
  if (!toleratesAll(taints, [...c.tolerations, { operator: 'Exists', effect: 'PreferNoSchedule' }])) return false;
  for (;;) {
    const reqs = podRequirements(pod, c, false);
    if (tpl.isCompatible(reqs, WELL_KNOWN_LABELS) && it.requirements.intersects(reqs)) return true;
    if (c.requiredNodeTerms.length <= 1) return false;
    c.requiredNodeTerms = c.requiredNodeTerms.slice(1);
  }
}

export function buildDaemonGroups(
  tpl: Requirements,
  taints: readonly Taint[],
  types: readonly InstanceType[],
  catalogueSize: number,
  daemonPods: readonly SchedPod[],
  daemonVectors: readonly ResourceVector[],
  space: ResourceSpace,
): DaemonGroups {
  const groupOf = new Int32Array(catalogueSize).fill(-1);
  const overhead: ResourceVector[] = [];
  const hostPorts: DaemonGroups['hostPorts'] = [];
  const byKey = new Map<string, number>();
  for (const it of types) {
    const compatible: number[] = [];
    daemonPods.forEach((p, i) => {
      if (daemonCompatible(tpl, taints, it, p)) compatible.push(i);
    });
    const key = compatible.join(',');
    let g = byKey.get(key);
    if (g === undefined) {
      g = overhead.length;
      byKey.set(key, g);
      const o = space.vector();
      for (const i of compatible) addInto(o, daemonVectors[i]);
      overhead.push(o);
      hostPorts.push(compatible.flatMap((i) => daemonPods[i].hostPorts));
    }
    groupOf[it.index] = g;
  }
  return { groupOf, overhead, hostPorts };
}

/**
 * NodeClaim templates in weight order, each with the instance types its NodePool allows. A NodePool whose
 * requirements leave no type is reported with Karpenter's NoCompatibleInstanceTypes message and left out.
 */
export function prepareTemplates(
  pools: readonly NodePoolSpec[],
  catalogue: readonly InstanceType[],
  daemonPods: readonly SchedPod[],
  space: ResourceSpace,
): { templates: NodeClaimTemplate[]; skipped: { nodePool: string; reason: string }[] } {
  const templates: NodeClaimTemplate[] = [];
  const skipped: { nodePool: string; reason: string }[] = [];
  const daemonVectors = daemonPods.map((p) => space.vector(p.requests));
  const allTypes: DaemonGroups = {
    groupOf: new Int32Array(catalogue.length).fill(0),
    overhead: [space.vector()],
    hostPorts: [[]],
  };
  for (const pool of orderByWeight(pools)) {
    const requirements = templateRequirements(pool);
    const zero = space.vector();
    const { types, error } = filterInstanceTypes(catalogue, requirements, zero, zero, allTypes, [], space);
    if (types.length === 0) {
      const minValues = error?.().startsWith('minValues') ?? false;
      skipped.push({
        nodePool: pool.name,
        reason: minValues
          ? 'NodePool requirements filtered out all compatible available instance types due to minValues incompatibility'
          : 'NodePool requirements filtered out all compatible available instance types',
      });
      continue;
    }
    const daemons = buildDaemonGroups(requirements, pool.taints, types, catalogue.length, daemonPods, daemonVectors, space);
    templates.push({ pool, order: templates.length, requirements, options: types, daemons, narrowed: new Map() });
  }
  return { templates, skipped };
}

/** Whether any NodePool taints PreferNoSchedule, which lets relaxation add a toleration for it. */
export const anyPreferNoSchedule = (pools: readonly NodePoolSpec[]) =>
  pools.some((p) => p.taints.some((t) => t.effect === 'PreferNoSchedule'));
