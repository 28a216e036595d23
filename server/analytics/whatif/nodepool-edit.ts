import type { EngineContext, KubeNodePool, SelectorRequirement } from '../../../core/karpenter/scheduling/index.js';
import { LABEL_ARCH, LABEL_CAPACITY_TYPE } from '../../../core/karpenter/scheduling/well-known.js';
import {
  emptyFootprint,
  type Footprint,
  type InstanceMix,
  prepareWorld,
  repack,
  todayByPool,
  type Unschedulable,
  type WhatIfWorld,
} from './repack.js';

/**
 * NodePool edits: the snapshot's pods re-placed from scratch under today's NodePools and under the edited ones,
 * each pod kept in its NodePool (or in the one it is merged into), free to take any capacity type its NodePool
 * allows. Pure.
 */

export const LABEL_INSTANCE_FAMILY = 'karpenter.k8s.aws/instance-family';
export const LABEL_INSTANCE_CATEGORY = 'karpenter.k8s.aws/instance-category';
export const LABEL_INSTANCE_GENERATION = 'karpenter.k8s.aws/instance-generation';
export const LABEL_INSTANCE_CPU = 'karpenter.k8s.aws/instance-cpu';

export interface NodePoolEdit {
  nodePool: string;
  /** Replaces karpenter.sh/capacity-type. */
  capacityTypes?: readonly string[];
  /** Replaces karpenter.k8s.aws/instance-family, and drops instance-category (a family names its category). */
  families?: readonly string[];
  /** Replaces karpenter.k8s.aws/instance-generation with Gte. */
  minGeneration?: number;
  /** Replaces kubernetes.io/arch (arm64: Graviton). */
  arch?: string;
  /** Replace karpenter.k8s.aws/instance-cpu bounds (vCPUs, inclusive). */
  minCpu?: number;
  maxCpu?: number;
  /** Merge this NodePool into another: its pods go there and it is removed. */
  mergeInto?: string;
}

export class NodePoolEditError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
    this.name = 'NodePoolEditError';
  }
}

export interface EditSide {
  nodes: number;
  usdPerHour: number;
  mix: InstanceMix[];
}

export interface NodePoolEditResult {
  /** The NodePools the edit touches (the edited one, and the one merged into). */
  nodePools: string[];
  /** The requirements of the edited NodePool (or of the one merged into) after the edit. */
  requirements: SelectorRequirement[];
  today: EditSide;
  /** The cheaper of today and the re-pack under today's NodePools. */
  before: EditSide;
  /** The re-pack under the edited NodePools. */
  after: EditSide;
  /** before − after; null when the edit leaves pods unschedulable (the after side does not pay for them). */
  savingsUsdPerHour: number | null;
  unschedulable: Unschedulable[];
  /** Karpenter's message when the edited NodePool allows no instance type of the catalogue. */
  skippedNodePools: { nodePool: string; reason: string }[];
}

function replaceKeys(
  reqs: readonly SelectorRequirement[],
  drop: readonly string[],
  add: readonly SelectorRequirement[],
): SelectorRequirement[] {
  return [...reqs.filter((r) => !drop.includes(r.key)), ...add];
}

const requirementsOf = (np: KubeNodePool): SelectorRequirement[] => np.spec.template?.spec?.requirements ?? [];

function withRequirements(np: KubeNodePool, requirements: SelectorRequirement[]): KubeNodePool {
  return { ...np, spec: { ...np.spec, template: { ...np.spec.template, spec: { ...np.spec.template?.spec, requirements } } } };
}

/** The NodePool with the edit's requirement changes applied (merge aside). */
export function applyEdit(np: KubeNodePool, edit: NodePoolEdit): KubeNodePool {
  let reqs = requirementsOf(np);
  if (edit.capacityTypes !== undefined) {
    reqs = replaceKeys(reqs, [LABEL_CAPACITY_TYPE], [{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: [...edit.capacityTypes] }]);
  }
  if (edit.families !== undefined) {
    reqs = replaceKeys(
      reqs,
      [LABEL_INSTANCE_FAMILY, LABEL_INSTANCE_CATEGORY],
      [{ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: [...edit.families] }],
    );
  }
  if (edit.minGeneration !== undefined) {
    reqs = replaceKeys(
      reqs,
      [LABEL_INSTANCE_GENERATION],
      [{ key: LABEL_INSTANCE_GENERATION, operator: 'Gte', values: [String(edit.minGeneration)] }],
    );
  }
  if (edit.arch !== undefined) reqs = replaceKeys(reqs, [LABEL_ARCH], [{ key: LABEL_ARCH, operator: 'In', values: [edit.arch] }]);
  if (edit.minCpu !== undefined || edit.maxCpu !== undefined) {
    const bounds: SelectorRequirement[] = [];
    if (edit.minCpu !== undefined) bounds.push({ key: LABEL_INSTANCE_CPU, operator: 'Gte', values: [String(edit.minCpu)] });
    if (edit.maxCpu !== undefined) bounds.push({ key: LABEL_INSTANCE_CPU, operator: 'Lte', values: [String(edit.maxCpu)] });
    reqs = replaceKeys(reqs, [LABEL_INSTANCE_CPU], bounds);
  }
  return withRequirements(np, reqs);
}

function sum(pools: readonly string[], byPool: ReadonlyMap<string, Footprint>): EditSide {
  const out = emptyFootprint();
  for (const p of pools) {
    const f = byPool.get(p);
    if (f === undefined) continue;
    out.nodes += f.nodes;
    out.usdPerHour += f.usdPerHour;
    for (const m of f.mix) {
      const x = out.mix.find((y) => y.instanceType === m.instanceType && y.capacityType === m.capacityType);
      if (x) {
        x.nodes += m.nodes;
        x.usdPerHour += m.usdPerHour;
      } else out.mix.push({ ...m });
    }
  }
  out.mix.sort((a, b) => b.usdPerHour - a.usdPerHour || a.instanceType.localeCompare(b.instanceType));
  return out;
}

export function nodePoolEdit(world: WhatIfWorld, edit: NodePoolEdit, ctx: EngineContext = prepareWorld(world)): NodePoolEditResult {
  const names = new Set(world.objects.nodePools.map((np) => np.metadata.name));
  if (!names.has(edit.nodePool))
    throw new NodePoolEditError('nodepool', `NodePool "${edit.nodePool}" is not in the snapshot (${[...names].join(', ')})`);
  if (edit.mergeInto !== undefined) {
    if (!names.has(edit.mergeInto))
      throw new NodePoolEditError('mergeInto', `NodePool "${edit.mergeInto}" is not in the snapshot (${[...names].join(', ')})`);
    if (edit.mergeInto === edit.nodePool) throw new NodePoolEditError('mergeInto', 'a NodePool cannot be merged into itself');
  }
  const target = edit.mergeInto ?? edit.nodePool;
  const edited = world.objects.nodePools
    .filter((np) => edit.mergeInto === undefined || np.metadata.name !== edit.nodePool)
    .map((np) => (np.metadata.name === target ? applyEdit(np, { ...edit, nodePool: target }) : np));
  const editedCtx = prepareWorld(world, edited);
  const pools = edit.mergeInto === undefined ? [edit.nodePool] : [edit.nodePool, edit.mergeInto];
  const touched = new Set(pools);
  const inScope = (from: { nodePool: string }) => touched.has(from.nodePool);

  const today = sum(pools, todayByPool(ctx).byPool);
  const repackToday = repack(ctx, ctx, (_pod, from) => (inScope(from) ? { nodePool: from.nodePool } : null));
  const repackEdited = repack(ctx, editedCtx, (_pod, from) =>
    inScope(from) ? { nodePool: from.nodePool === edit.nodePool ? target : from.nodePool } : null,
  );
  const repacked = sum(pools, repackToday.byPool);
  const before = repackToday.unschedulable.length === 0 && repacked.usdPerHour <= today.usdPerHour ? repacked : today;
  const after = sum(pools, repackEdited.byPool);
  const editedPool = edited.find((np) => np.metadata.name === target);
  return {
    nodePools: pools,
    requirements: editedPool === undefined ? [] : requirementsOf(editedPool),
    today,
    before,
    after,
    savingsUsdPerHour: repackEdited.unschedulable.length > 0 ? null : before.usdPerHour - after.usdPerHour,
    unschedulable: repackEdited.unschedulable,
    skippedNodePools: editedCtx.skippedPools.filter((s) => s.nodePool === target),
  };
}
