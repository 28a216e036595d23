import type { CatalogueEntry } from './catalogue.js';
import { EngineInputError } from './errors.js';
import { type ExistingNodeBase, existingNodeBase } from './existing-node.js';
import { catalogueResourceNames, compileInstanceTypeReusing, type InstanceType, offeringPrice } from './instance-types.js';
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
import { normalizePdb, PdbLimits } from './pdb.js';
import { isOwnedByDaemonSet, normalizePod, type SchedPod } from './pods.js';
import { Requirements } from './requirements.js';
import { ResourceSpace } from './resources.js';
import { anyPreferNoSchedule, type NodeClaimTemplate, prepareTemplatesReusing } from './templates.js';
import { type BoundPod, type DomainSource, indexBoundPods, type TopologyNode } from './topology.js';
import { RESOURCE_NODES } from './well-known.js';

/** Karpenter's feature gates in the engine's spelling; defaults as in v1.14.1 (ReservedCapacity on, the rest off). */
export interface FeatureGates {
  spotToSpotConsolidation?: boolean;
  nodeOverlay?: boolean;
  staticCapacity?: boolean;
  reservedCapacity?: boolean;
}

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
  ignorePreferences: boolean;
  toleratePreferNoSchedule: boolean;
  /** Things worth telling the user that did not stop the simulation. */
  warnings: string[];
  domainSources: () => Iterable<DomainSource>;
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
const normalizedPods = new WeakMap<KubePod, SchedPod>();

function normalizedPod(p: KubePod, index: number): SchedPod {
  let n = normalizedPods.get(p);
  if (!n) {
    n = normalizePod(p, index);
    normalizedPods.set(p, n);
  }
  return n;
}

const shapes = new WeakMap<CatalogueEntry, string>();

/** An entry apart from its prices: what decides which NodePools admit its type and what fits on it. */
function entryShape(e: CatalogueEntry): string {
  let shape = shapes.get(e);
  if (shape === undefined) {
    const available = e.offerings.filter((o) => o.available).map((o) => `${o.zone}/${o.capacityType}`);
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
  const pools = input.nodePools.map((np) => normalizeNodePool(np));
  const poolByName = new Map<string, NodePoolSpec>();
  for (const p of pools) {
    if (poolByName.has(p.name)) throw new EngineInputError(`NodePool ${p.name}`, 'appears twice');
    poolByName.set(p.name, p);
  }
  const pods = (input.pods ?? []).map((p, i) => normalizedPod(p, i));
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
  const nodes = (input.nodes ?? []).map((n) => normalizeNode(n, podsByNode.get(n.metadata?.name) ?? [], poolNames));
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
    ? input.daemonSetPods.map((p, i) => ({ ...normalizePod(p, i), nodeName: null }))
    : daemonRepresentatives(pods);

  const names = new Set<string>(catalogueResourceNames(input.catalogue));
  for (const p of [...pods, ...daemonPods]) for (const k of Object.keys(p.requests)) names.add(k);
  for (const n of nodes) for (const k of [...Object.keys(n.allocatable), ...Object.keys(n.capacity)]) names.add(k);
  for (const p of pools) for (const k of Object.keys(p.limits ?? {})) names.add(k);
  names.add(RESOURCE_NODES);
  const space = new ResourceSpace([...names].sort());
  const spaceKey = space.names.join('\n');
  const { catalogue, shapes: entryShapes } = compiledCatalogue(input.catalogue, space, spaceKey);
  const typeByName = new Map(catalogue.map((it) => [it.name, it]));
  // what the templates depend on besides the catalogue: the NodePools' templates, the DaemonSets, the resource names
  const templateKey = JSON.stringify([
    input.nodePools.map((np) => [np.metadata?.name, np.spec?.weight, np.spec?.template]),
    daemonPods.map((p) => [p.key, p.requests, p.nodeSelector, p.constraints, p.hostPorts]),
    spaceKey,
  ]);
  const { templates, skipped } = prepareTemplatesReusing(pools, catalogue, daemonPods, space, templateKey, entryShapes);

  const pdbs = new PdbLimits((input.podDisruptionBudgets ?? []).map((b) => normalizePdb(b, pods)));
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
    spotToSpotConsolidation: input.featureGates?.spotToSpotConsolidation ?? false,
    ignorePreferences: input.ignorePreferences ?? false,
    toleratePreferNoSchedule: anyPreferNoSchedule(pools),
    warnings,
    domainSources,
    caches: { bases: new WeakMap(), capacity: new WeakMap(), topologyNodes: new WeakMap(), bound: null },
  };
}

/** A node's hourly price from the catalogue: the offering for its zone and capacity type, available or not. */
export function nodePrice(ctx: EngineContext, node: ExistingNodeSpec): number | null {
  if (node.instanceType === null || node.zone === null || node.capacityType === null) return null;
  const it = ctx.typeByName.get(node.instanceType);
  return it ? offeringPrice(it, node.zone, node.capacityType) : null;
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
    b = existingNodeBase(n, ctx.daemonPods, ctx.space);
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
