import { type DaemonGroups, filterInstanceTypes } from './instance-filter.js';
import type { InstanceType } from './instance-types.js';
import type { NodeClaimPlan } from './nodeclaim.js';
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
  /**
   * The plan for a pod shape as the first pod of a new NodeClaim (by NodeClaim number, options and shape) when no
   * topology is in play: consolidation simulates many candidates against one context, and their pods repeat shapes.
   */
  firstPlans: Map<string, NodeClaimPlan>;
}

/**
 * Whether a DaemonSet pod would run on nodes of this template and type (Karpenter's isDaemonPodCompatible). The
 * type's own requirements count from v1.14.0 (core #2975); before, only the template's (`withType` false).
 */
function daemonCompatible(tpl: Requirements, taints: readonly Taint[], it: InstanceType, pod: SchedPod, withType: boolean): boolean {
  // a DaemonSet pod need not honour PreferNoSchedule
  const c = { ...pod.constraints, requiredNodeTerms: [...pod.constraints.requiredNodeTerms] };
  if (!toleratesAll(taints, [...c.tolerations, { operator: 'Exists', effect: 'PreferNoSchedule' }])) return false;
  for (;;) {
    const reqs = podRequirements(pod, c, false);
    if (tpl.isCompatible(reqs, WELL_KNOWN_LABELS) && (!withType || it.requirements.intersects(reqs))) return true;
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
  withType = true,
): DaemonGroups {
  const groupOf = new Int32Array(catalogueSize).fill(-1);
  const overhead: ResourceVector[] = [];
  const hostPorts: DaemonGroups['hostPorts'] = [];
  const byKey = new Map<string, number>();
  for (const it of types) {
    const compatible: number[] = [];
    daemonPods.forEach((p, i) => {
      if (daemonCompatible(tpl, taints, it, p, withType)) compatible.push(i);
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

export interface TemplateOptions {
  /** v1.14.0+: a DaemonSet counts on a type only if its requirements admit the type. */
  daemonSetInstanceTypeRequirements?: boolean;
  /** --min-values-policy BestEffort: a NodePool whose types cannot meet its minValues still launches. */
  relaxMinValues?: boolean;
}

/** A NodePool's catalogue (its overlays applied), positions as in the catalogue. */
export type CatalogueOf = (pool: NodePoolSpec) => readonly InstanceType[];

/**
 * NodeClaim templates in weight order, each with the instance types its NodePool allows. A NodePool whose
 * requirements leave no type is reported with Karpenter's NoCompatibleInstanceTypes message and left out.
 */
export function prepareTemplates(
  pools: readonly NodePoolSpec[],
  catalogueOf: CatalogueOf | readonly InstanceType[],
  daemonPods: readonly SchedPod[],
  space: ResourceSpace,
  opts: TemplateOptions = {},
): { templates: NodeClaimTemplate[]; skipped: { nodePool: string; reason: string }[] } {
  const templates: NodeClaimTemplate[] = [];
  const skipped: { nodePool: string; reason: string }[] = [];
  const daemonVectors = daemonPods.map((p) => space.vector(p.requests));
  const typesOf: CatalogueOf = typeof catalogueOf === 'function' ? catalogueOf : () => catalogueOf;
  for (const pool of orderByWeight(pools)) {
    const catalogue = typesOf(pool);
    const allTypes: DaemonGroups = {
      groupOf: new Int32Array(catalogue.length).fill(0),
      overhead: [space.vector()],
      hostPorts: [[]],
    };
    const requirements = templateRequirements(pool);
    const zero = space.vector();
    const { types, error } = filterInstanceTypes(catalogue, requirements, zero, zero, allTypes, [], space, opts.relaxMinValues ?? false);
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
    const daemons = buildDaemonGroups(
      requirements,
      pool.taints,
      types,
      catalogue.length,
      daemonPods,
      daemonVectors,
      space,
      opts.daemonSetInstanceTypeRequirements ?? true,
    );
    templates.push({ pool, order: templates.length, requirements, options: types, daemons, narrowed: new Map(), firstPlans: new Map() });
  }
  return { templates, skipped };
}

/** A template without its instance-type objects: what does not depend on prices. */
interface TemplateSkeleton {
  poolName: string;
  requirements: Requirements;
  optionIndices: number[];
  daemons: DaemonGroups;
}

interface KeptTemplates {
  /** Per catalogue position, what the entry's type is apart from its prices. */
  shapes: readonly string[];
  skeletons: TemplateSkeleton[];
  skipped: { nodePool: string; reason: string }[];
}

const KEPT_TEMPLATE_SETS = 8;
const keptTemplates = new Map<string, KeptTemplates>();

/**
 * prepareTemplates, reusing an earlier result when the NodePools' templates, the DaemonSets, the resource space and
 * every catalogue entry apart from its prices are the same (`key` says the first three, `shapes` the entries):
 * which types a NodePool admits and their DaemonSet overhead do not depend on prices, so a simulation stepping
 * through time with moving spot prices prepares its templates once. The options are the new catalogue's types.
 */
export function prepareTemplatesReusing(
  pools: readonly NodePoolSpec[],
  catalogueOf: CatalogueOf,
  daemonPods: readonly SchedPod[],
  space: ResourceSpace,
  key: string,
  shapes: readonly string[],
  opts: TemplateOptions = {},
): { templates: NodeClaimTemplate[]; skipped: { nodePool: string; reason: string }[] } {
  const kept = keptTemplates.get(key);
  const byName = new Map(pools.map((p) => [p.name, p]));
  if (kept && kept.shapes.length === shapes.length && kept.shapes.every((s, i) => s === shapes[i])) {
    const templates = kept.skeletons.map((k, order) => {
      const pool = byName.get(k.poolName) as NodePoolSpec;
      const catalogue = catalogueOf(pool);
      return {
        pool,
        order,
        requirements: k.requirements,
        options: k.optionIndices.map((i) => catalogue[i]),
        daemons: k.daemons,
        narrowed: new Map<string, InstanceType[]>(),
        firstPlans: new Map<string, NodeClaimPlan>(),
      };
    });
    return { templates, skipped: kept.skipped };
  }
  const result = prepareTemplates(pools, catalogueOf, daemonPods, space, opts);
  if (keptTemplates.size >= KEPT_TEMPLATE_SETS) keptTemplates.delete(keptTemplates.keys().next().value as string);
  keptTemplates.set(key, {
    shapes,
    skeletons: result.templates.map((t) => ({
      poolName: t.pool.name,
      requirements: t.requirements,
      optionIndices: t.options.map((it) => it.index),
      daemons: t.daemons,
    })),
    skipped: result.skipped,
  });
  return result;
}

/** Whether any NodePool taints PreferNoSchedule, which lets relaxation add a toleration for it. */
export const anyPreferNoSchedule = (pools: readonly NodePoolSpec[]) =>
  pools.some((p) => p.taints.some((t) => t.effect === 'PreferNoSchedule'));
