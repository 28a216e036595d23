import type { CatalogueEntry } from './catalogue.js';
import { EngineInputError } from './errors.js';
import { type ExistingNodeBase, existingNodeBase } from './existing-node.js';
import {
  catalogueResourceNames,
  compileInstanceTypeReusing,
  type InstanceType,
  type Offering,
  withoutReservedOfferings,
} from './instance-types.js';
import type {
  KubeCSINode,
  KubeEC2NodeClass,
  KubeNode,
  KubeNodeOverlay,
  KubeNodePool,
  KubePersistentVolume,
  KubePersistentVolumeClaim,
  KubePod,
  KubePodDisruptionBudget,
  KubeStorageClass,
} from './kube-types.js';
import { type ExistingNodeSpec, normalizeNode } from './nodes.js';
import { normalizeNodePool, type NodePoolSpec } from './nodepools.js';
import { applyOverlays, checkOverlaySchema, type OverlayOutcome } from './overlays.js';
import { normalizePdb, PdbLimits } from './pdb.js';
import { isOwnedByDaemonSet, normalizePod, type SchedPod } from './pods.js';
import { demoteEndedReservation, endedReservations, hasReservations } from './reservations.js';
import { Requirements } from './requirements.js';
import { ResourceSpace } from './resources.js';
import { anyPreferNoSchedule, type NodeClaimTemplate, prepareTemplatesReusing } from './templates.js';
import { type BoundPod, type DomainSource, indexBoundPods, type TopologyNode } from './topology.js';
import { karpenterBehaviour, type KarpenterBehaviour, type ResolvedGates, resolveGates } from './version.js';
import type { FeatureGates } from './version.js';
import { VolumeIndex } from './volumes.js';
import { CAPACITY_RESERVED, LABEL_RESERVATION_ID, RESOURCE_NODES } from './well-known.js';

export type { FeatureGates };

/** Everything the engine reads, as Kubernetes objects plus a catalogue. */
export interface EngineInput {
  /** karpenter.sh/v1 NodePools. */
  nodePools: readonly KubeNodePool[];
  /** Pending pods (no spec.nodeName) and pods bound to the nodes below. */
  pods?: readonly KubePod[];
  /** Nodes with their labels, taints and status.allocatable; Karpenter's own when their karpenter.sh/nodepool label names a NodePool above. */
  nodes?: readonly KubeNode[];
  podDisruptionBudgets?: readonly KubePodDisruptionBudget[];
  /**
   * DaemonSet pod templates (a pod each DaemonSet would run on a new node). When left out, one running pod per
   * DaemonSet found among `pods` stands for it.
   */
  daemonSetPods?: readonly KubePod[];
  /** Namespaces with labels, for pod affinity terms with a namespaceSelector. */
  namespaces?: readonly { metadata: { name: string; labels?: Record<string, string> } }[];
  catalogue: readonly CatalogueEntry[];
  /** The simulation's now (epoch ms): node ages, consolidateAfter, budget schedules, do-not-disrupt durations. */
  now: number;
  featureGates?: FeatureGates;
  /**
   * The Karpenter release whose behaviour to reproduce ("1.14.1"); default the newest modelled. Behaviour that a
   * release changed (candidate ordering, Balanced, consolidateAfter on destinations, …) follows it.
   */
  karpenterVersion?: string;
  /** Karpenter's --min-values-policy (v1.6.0+); default Strict. */
  minValuesPolicy?: 'Strict' | 'BestEffort';
  /** karpenter.sh/v1alpha1 NodeOverlays, applied when featureGates.nodeOverlay is on. */
  nodeOverlays?: readonly KubeNodeOverlay[];
  /** EC2NodeClasses: status.capacityReservations give reserved offerings; the root volume prices a node's storage. */
  nodeClasses?: readonly KubeEC2NodeClass[];
  /** For volume topology (a PV's node affinity pins its pods' zone) and attach limits (CSINode). */
  persistentVolumeClaims?: readonly KubePersistentVolumeClaim[];
  persistentVolumes?: readonly KubePersistentVolume[];
  storageClasses?: readonly KubeStorageClass[];
  csiNodes?: readonly KubeCSINode[];
  /** Karpenter's --preference-policy=Ignore. */
  ignorePreferences?: boolean;
  /**
   * When each node last had a pod bound to it or removed from it (epoch ms, by Node name), as Karpenter's cluster
   * state remembers it and consolidateAfter counts from. Objects do not carry it, so without it the newest pod's start
   * (or the node's creation) stands in; a caller that watched the cluster (the sandbox) knows removals too.
   */
  lastPodEventAt?: ReadonlyMap<string, number>;
}

/** The input, normalised and indexed once; simulations run against it. */
export interface EngineContext {
  now: number;
  space: ResourceSpace;
  catalogue: InstanceType[];
  typeByName: Map<string, InstanceType>;
  pools: NodePoolSpec[];
  poolByName: Map<string, NodePoolSpec>;
  templates: NodeClaimTemplate[];
  /** NodePools left out because their requirements allow no instance type, with Karpenter's message. */
  skippedPools: { nodePool: string; reason: string }[];
  pods: SchedPod[];
  nodes: ExistingNodeSpec[];
  nodeByName: Map<string, ExistingNodeSpec>;
  daemonPods: SchedPod[];
  pdbs: PdbLimits;
  namespaceLabels: Map<string, Record<string, string>>;
  spotToSpotConsolidation: boolean;
  /** The release reproduced and what it decides differently (karpenterVersion). */
  behaviour: KarpenterBehaviour;
  /** Feature gates in effect (given, else the release's defaults). */
  gates: ResolvedGates;
  /** --min-values-policy (BestEffort only from v1.6.0). */
  minValuesPolicy: 'Strict' | 'BestEffort';
  /**
   * Per NodePool, its view of the catalogue where it differs from `catalogue` (same positions): NodeOverlays'
   * prices and capacity. Karpenter prices a NodePool's nodes and launches with its NodePool's view.
   */
  poolCatalogues: Map<string, InstanceType[]>;
  poolTypeByName: Map<string, Map<string, InstanceType>>;
  /** What each NodeOverlay did (empty when the gate is off or none was given). */
  overlays: OverlayOutcome[];
  /** Some reserved offering names its reservation: scheduling holds places in reservations and counts them. */
  countReservations: boolean;
  /** Volume topology and attach limits, when the input carries PersistentVolumeClaims. */
  volumes: VolumeIndex | null;
  ignorePreferences: boolean;
  toleratePreferNoSchedule: boolean;
  /** Things worth telling the user that did not stop the simulation. */
  warnings: string[];
  domainSources: () => Iterable<DomainSource>;
  /**
   * The slow path: the scheduler's shortcuts that only save work turned off (SchedulerOptions.noShortcuts), for tests
   * that check the answers do not change with them. Absent in every product use.
   */
  noShortcuts?: boolean;
  /** Derived per node, kept so repeated simulations against the same cluster (predict) do not redo them. */
  caches: {
    bases: WeakMap<ExistingNodeSpec, ExistingNodeBase>;
    capacity: WeakMap<ExistingNodeSpec, Float64Array>;
    topologyNodes: WeakMap<ExistingNodeSpec, TopologyNode>;
    /** Every node's pods indexed for topology, built on first use. */
    bound: ReturnType<typeof indexBoundPods> | null;
  };
}

/** One pod per DaemonSet among the pods (the first by name), standing for its template. */
function daemonRepresentatives(pods: readonly SchedPod[]): SchedPod[] {
  const byOwner = new Map<string, SchedPod>();
  for (const p of [...pods].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    if (!isOwnedByDaemonSet(p)) continue;
    const owner = `${p.namespace}/${p.ownerName}`;
    if (!byOwner.has(owner)) byOwner.set(owner, { ...p, nodeName: null });
  }
  return [...byOwner.values()];
}

// A pod object given again (a caller stepping through time keeps the objects of pods that did not change) is not
// normalised again; SchedPods are never changed once made.
const normalizedPods = [new WeakMap<KubePod, SchedPod>(), new WeakMap<KubePod, SchedPod>()];

function normalizedPod(p: KubePod, index: number, podLevelResources: boolean): SchedPod {
  const cache = normalizedPods[podLevelResources ? 1 : 0];
  let n = cache.get(p);
  if (!n) {
    n = normalizePod(p, index, { podLevelResources });
    cache.set(p, n);
  }
  return n;
}

const shapes = new WeakMap<CatalogueEntry, string>();

/** An entry apart from its prices: what decides which NodePools admit its type and what fits on it. */
function entryShape(e: CatalogueEntry): string {
  let shape = shapes.get(e);
  if (shape === undefined) {
    const available = e.offerings
      .filter((o) => o.available && o.reservationCapacity !== 0)
      .map(
        (o) =>
          `${o.zone}/${o.capacityType}/${o.reservationId ?? ''}/${o.nodeClass ?? ''}/${o.reservationType ?? ''}/${o.interruptible ?? ''}`,
      );
    shape = JSON.stringify([e.name, e.capacity, e.overhead ?? null, e.labels, available]);
    shapes.set(e, shape);
  }
  return shape;
}

// The last compilation of a catalogue array, so a caller that gives the same array again skips even the lookups.
const compiledCatalogues = new WeakMap<readonly CatalogueEntry[], { spaceKey: string; catalogue: InstanceType[]; shapes: string[] }>();

function compiledCatalogue(
  entries: readonly CatalogueEntry[],
  space: ResourceSpace,
  spaceKey: string,
): { catalogue: InstanceType[]; shapes: string[] } {
  const kept = compiledCatalogues.get(entries);
  if (kept && kept.spaceKey === spaceKey) return kept;
  const out = {
    spaceKey,
    catalogue: entries.map((e, i) => compileInstanceTypeReusing(e, i, space, spaceKey)),
    shapes: entries.map((e) => entryShape(e)),
  };
  compiledCatalogues.set(entries, out);
  return out;
}

export function prepare(input: EngineInput): EngineContext {
  if (input.catalogue.length === 0) throw new EngineInputError('catalogue', 'holds no instance types');
  const warnings: string[] = [];
  const behaviour = karpenterBehaviour(input.karpenterVersion, warnings);
  const gates = resolveGates(input.featureGates, behaviour, warnings);
  let minValuesPolicy = input.minValuesPolicy ?? 'Strict';
  if (minValuesPolicy !== 'Strict' && minValuesPolicy !== 'BestEffort')
    throw new EngineInputError('minValuesPolicy', `"${String(minValuesPolicy)}" is not Strict or BestEffort`);
  if (minValuesPolicy === 'BestEffort' && !behaviour.minValuesPolicy) {
    warnings.push(
      `--min-values-policy BestEffort arrived in Karpenter v1.6.0 (karpenterVersion ${behaviour.version}); minValues are strict`,
    );
    minValuesPolicy = 'Strict';
  }
  const pools = input.nodePools.map((np) => {
    const p = normalizeNodePool(np, behaviour);
    // before v1.11.0 a dynamic NodePool's limits.nodes counted nothing (nodes carried no "nodes" capacity)
    if (!behaviour.nodeLimits && p.limits && RESOURCE_NODES in p.limits) {
      const { [RESOURCE_NODES]: _ignored, ...rest } = p.limits;
      return { ...p, limits: Object.keys(rest).length ? rest : null };
    }
    return p;
  });
  const poolByName = new Map<string, NodePoolSpec>();
  for (const p of pools) {
    if (poolByName.has(p.name)) throw new EngineInputError(`NodePool ${p.name}`, 'appears twice');
    poolByName.set(p.name, p);
  }
  const volumes =
    input.persistentVolumeClaims !== undefined && input.persistentVolumeClaims.length > 0
      ? new VolumeIndex(
          input.persistentVolumeClaims,
          input.persistentVolumes ?? [],
          input.storageClasses ?? [],
          input.csiNodes ?? [],
          warnings,
        )
      : null;
  const pods = (input.pods ?? []).map((p, i) => {
    const n = normalizedPod(p, i, behaviour.podLevelResources);
    if (!volumes || !p.spec?.volumes?.length) return n;
    const v = volumes.forPod(p);
    if (!v.requirements && !v.usage && !v.error) return n;
    return { ...n, volumeRequirements: v.requirements, volumeAlternatives: v.alternatives, volumes: v.usage, volumeError: v.error };
  });
  const seen = new Set<string>();
  for (const p of pods) {
    if (seen.has(p.key)) throw new EngineInputError(`Pod ${p.key}`, 'appears twice');
    seen.add(p.key);
  }
  const podsByNode = new Map<string, SchedPod[]>();
  for (const p of pods) {
    if (p.nodeName === null) continue;
    const list = podsByNode.get(p.nodeName) ?? [];
    list.push(p);
    podsByNode.set(p.nodeName, list);
  }
  const poolNames = new Set(poolByName.keys());
  // a reserved node whose reservation has ended runs (and is priced) on-demand
  const ended = endedReservations(input.nodeClasses ?? [], input.now);
  const nodes = (input.nodes ?? []).map((n) =>
    normalizeNode(ended.size ? demoteEndedReservation(n, ended) : n, podsByNode.get(n.metadata?.name) ?? [], poolNames),
  );
  for (const n of nodes) {
    const at = input.lastPodEventAt?.get(n.name);
    if (at !== undefined) n.lastPodEventAt = at;
  }
  const nodeByName = new Map<string, ExistingNodeSpec>();
  for (const n of nodes) {
    if (nodeByName.has(n.name)) throw new EngineInputError(`Node ${n.name}`, 'appears twice');
    nodeByName.set(n.name, n);
  }
  for (const [nodeName, list] of podsByNode) {
    if (!nodeByName.has(nodeName))
      warnings.push(`${list.length} pod(s) are bound to node ${nodeName}, which is not in the input; they are left out`);
  }
  const daemonPods = input.daemonSetPods
    ? input.daemonSetPods.map((p, i) => ({ ...normalizePod(p, i, { podLevelResources: behaviour.podLevelResources }), nodeName: null }))
    : daemonRepresentatives(pods);

  const overlays = gates.nodeOverlay ? (input.nodeOverlays ?? []) : [];
  if (!gates.nodeOverlay && (input.nodeOverlays?.length ?? 0) > 0)
    warnings.push(
      `${input.nodeOverlays?.length} NodeOverlay(s) given but the NodeOverlay feature gate is off: not applied (Karpenter ignores them too)`,
    );
  for (const o of overlays) checkOverlaySchema(o);

  const names = new Set<string>(catalogueResourceNames(input.catalogue));
  for (const p of [...pods, ...daemonPods]) for (const k of Object.keys(p.requests)) names.add(k);
  for (const n of nodes) for (const k of [...Object.keys(n.allocatable), ...Object.keys(n.capacity)]) names.add(k);
  for (const p of pools) for (const k of Object.keys(p.limits ?? {})) names.add(k);
  for (const o of overlays) for (const k of Object.keys(o.spec.capacity ?? {})) names.add(k);
  names.add(RESOURCE_NODES);
  const space = new ResourceSpace([...names].sort());
  const spaceKey = space.names.join('\n');
  const compiled = compiledCatalogue(input.catalogue, space, spaceKey);
  const entryShapes = compiled.shapes;
  // without the ReservedCapacity gate the AWS provider offers no reserved capacity (existing reserved nodes keep
  // their price)
  const catalogue = gates.reservedCapacity ? compiled.catalogue : compiled.catalogue.map((it) => withoutReservedOfferings(it));
  const typeByName = new Map(catalogue.map((it) => [it.name, it]));
  const overlaid = overlays.length ? applyOverlays(overlays, pools, catalogue, space) : null;
  const poolCatalogues = overlaid?.byPool ?? new Map<string, InstanceType[]>();
  const poolTypeByName = new Map([...poolCatalogues].map(([pool, types]) => [pool, new Map(types.map((it) => [it.name, it]))]));
  for (const o of overlaid?.outcomes ?? []) {
    if (!o.applied) warnings.push(`NodeOverlay ${o.name} is not applied (${o.reason}): ${o.message}`);
  }
  // static NodePools (v1.8.0+) are left out of dynamic provisioning (provisioner.go NewScheduler)
  const dynamicPools = pools.filter((p) => !(behaviour.staticNodePools && p.replicas !== null));
  // what the templates depend on besides the catalogue: the NodePools' templates, the DaemonSets, the resource names,
  // the gates and release rules that change which types a NodePool admits or which DaemonSets count on them
  const templateKey = JSON.stringify([
    input.nodePools.map((np) => [np.metadata?.name, np.spec?.weight, np.spec?.template, np.spec?.replicas]),
    daemonPods.map((p) => [p.key, p.requests, p.nodeSelector, p.constraints, p.hostPorts]),
    spaceKey,
    gates.reservedCapacity,
    behaviour.staticNodePools,
    behaviour.daemonSetInstanceTypeRequirements,
    minValuesPolicy,
  ]);
  const catalogueOf = (pool: NodePoolSpec): readonly InstanceType[] => poolCatalogues.get(pool.name) ?? catalogue;
  const { templates, skipped } = prepareTemplatesReusing(dynamicPools, catalogueOf, daemonPods, space, templateKey, entryShapes, {
    daemonSetInstanceTypeRequirements: behaviour.daemonSetInstanceTypeRequirements,
    relaxMinValues: minValuesPolicy === 'BestEffort',
  });

  const pdbs = new PdbLimits(
    (input.podDisruptionBudgets ?? []).map((b) => normalizePdb(b, pods)),
    behaviour.doNotDisruptDuration,
  );
  const namespaceLabels = new Map<string, Record<string, string>>();
  for (const p of pods)
    if (!namespaceLabels.has(p.namespace)) namespaceLabels.set(p.namespace, { 'kubernetes.io/metadata.name': p.namespace });
  for (const ns of input.namespaces ?? []) {
    namespaceLabels.set(ns.metadata.name, { 'kubernetes.io/metadata.name': ns.metadata.name, ...(ns.metadata.labels ?? {}) });
  }
  for (const n of nodes) {
    if (n.instanceType !== null && n.nodePool !== null && !typeByName.has(n.instanceType)) {
      warnings.push(`Node ${n.name}: instance type ${n.instanceType} is not in the catalogue, so it cannot be priced or replaced`);
    }
  }
  const domainSources = function* (): Iterable<DomainSource> {
    for (const tpl of templates) {
      for (const it of tpl.options) yield { requirements: tpl.pool.requirements.copy().addAll(it.requirements), taints: tpl.pool.taints };
      yield { requirements: tpl.pool.requirements, taints: tpl.pool.taints };
    }
  };
  return {
    now: input.now,
    space,
    catalogue,
    typeByName,
    pools,
    poolByName,
    templates,
    skippedPools: skipped,
    pods,
    nodes,
    nodeByName,
    daemonPods,
    pdbs,
    namespaceLabels,
    spotToSpotConsolidation: gates.spotToSpotConsolidation,
    behaviour,
    gates,
    minValuesPolicy,
    poolCatalogues,
    poolTypeByName,
    overlays: overlaid?.outcomes ?? [],
    countReservations: gates.reservedCapacity && hasReservations(catalogue),
    volumes,
    ignorePreferences: input.ignorePreferences ?? false,
    toleratePreferNoSchedule: anyPreferNoSchedule(pools),
    warnings,
    domainSources,
    caches: { bases: new WeakMap(), capacity: new WeakMap(), topologyNodes: new WeakMap(), bound: null },
  };
}

/** The instance type a node of a NodePool is priced and replaced with: its NodePool's view (overlays), else the catalogue's. */
export function typeFor(ctx: EngineContext, nodePool: string | null, typeName: string): InstanceType | undefined {
  return (nodePool === null ? undefined : ctx.poolTypeByName.get(nodePool)?.get(typeName)) ?? ctx.typeByName.get(typeName);
}

/**
 * The offering a node runs on as Karpenter sees it (resolveNodePrice): its NodePool's view of the type (overlays),
 * the offering for its zone and capacity type (a reserved node's own reservation where the catalogue lists it),
 * available or not; null when the catalogue has none.
 */
export function nodeOffering(ctx: EngineContext, node: ExistingNodeSpec): Offering | null {
  if (node.instanceType === null || node.zone === null || node.capacityType === null) return null;
  const it = typeFor(ctx, node.nodePool, node.instanceType);
  if (!it) return null;
  if (node.capacityType === CAPACITY_RESERVED) {
    const id = node.labels[LABEL_RESERVATION_ID];
    const own = id === undefined ? undefined : it.offerings.find((o) => o.reservationId === id && o.zone === node.zone);
    if (own) return own;
  }
  return it.offerings.find((o) => o.zone === node.zone && o.capacityType === node.capacityType) ?? null;
}

/** A node's hourly price as Karpenter sees it (nodeOffering's price), null when the catalogue cannot price it. */
export function nodePrice(ctx: EngineContext, node: ExistingNodeSpec): number | null {
  return nodeOffering(ctx, node)?.priceUsdPerHour ?? null;
}

export function topologyNode(ctx: EngineContext, n: ExistingNodeSpec): TopologyNode {
  let t = ctx.caches.topologyNodes.get(n);
  if (!t) {
    t = { name: n.name, labels: n.labels, taints: n.taints, requirements: Requirements.fromLabels(n.labels) };
    ctx.caches.topologyNodes.set(n, t);
  }
  return t;
}

/** What a node offers a scheduling round (computed once per node object). */
export function nodeBase(ctx: EngineContext, n: ExistingNodeSpec): ExistingNodeBase {
  let b = ctx.caches.bases.get(n);
  if (!b) {
    b = existingNodeBase(n, ctx.daemonPods, ctx.space, ctx.volumes?.attachLimits(n.name) ?? null);
    ctx.caches.bases.set(n, b);
  }
  return b;
}

/** The pods of the input's nodes, indexed for topology counting (built once). */
export function clusterBoundPods(ctx: EngineContext): ReturnType<typeof indexBoundPods> {
  if (!ctx.caches.bound) {
    const bound: BoundPod[] = [];
    for (const n of ctx.nodes) for (const p of n.pods) bound.push({ pod: p, constraints: p.constraints, nodeName: n.name });
    ctx.caches.bound = indexBoundPods(bound);
  }
  return ctx.caches.bound;
}

/** NodePool limits less what its nodes already use (capacity, one per node), for the pools that have limits. */
export function remainingLimits(
  ctx: EngineContext,
  nodes: readonly ExistingNodeSpec[],
): Map<string, { slots: number[]; amounts: Float64Array }> {
  const out = new Map<string, { slots: number[]; amounts: Float64Array }>();
  for (const pool of ctx.pools) {
    if (!pool.limits) continue;
    const slots = Object.keys(pool.limits).map((k) => ctx.space.slot(k));
    out.set(pool.name, { slots, amounts: ctx.space.vector(pool.limits) });
  }
  for (const n of nodes) {
    const rem = n.nodePool === null ? undefined : out.get(n.nodePool);
    if (!rem) continue;
    const cap = capacityVector(ctx, n);
    for (const s of rem.slots) rem.amounts[s] -= cap[s];
  }
  return out;
}

/** A node's capacity as NodePool limits count it (status.capacity, and 1 node), made once per node. */
export function capacityVector(ctx: EngineContext, n: ExistingNodeSpec): Float64Array {
  let cap = ctx.caches.capacity.get(n);
  if (!cap) {
    cap = ctx.space.vector({ ...n.capacity, [RESOURCE_NODES]: 1 });
    ctx.caches.capacity.set(n, cap);
  }
  return cap;
}
