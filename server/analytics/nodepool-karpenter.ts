import { adjustedPrice, orderOverlays, runtimeValidation } from '../../core/karpenter/scheduling/overlays.js';
import { capacityReservations } from '../../core/karpenter/scheduling/reservations.js';
import { Requirements } from '../../core/karpenter/scheduling/requirements.js';
import type { ClusterObjects, KubeNodeOverlay } from '../../core/karpenter/scheduling/kube-types.js';
import { LABEL_RESERVATION_ID } from '../../core/karpenter/scheduling/well-known.js';

/**
 * What the releases since v1.7 add to a NodePool, read from one stored snapshot: static NodePools (spec.replicas,
 * v1.8+: never consolidated, a fixed cost), `limits.nodes` (v1.11+ on dynamic pools), which NodeOverlay would price
 * each running node type as Karpenter sees it (v1.7+, gate NodeOverlay; the bill stays on the real price), and the
 * capacity reservations the EC2NodeClasses list. Pure.
 */

const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
const LABEL_ZONE = 'topology.kubernetes.io/zone';

export interface PoolSetup {
  name: string;
  /** spec.replicas: a static NodePool (Karpenter keeps exactly this many nodes and never consolidates them). */
  replicas: number | null;
  /** spec.limits.nodes, where set. */
  limitNodes: number | null;
  nodes: number;
  /** Its nodes' prices per hour at the snapshot, summed (null when none is priced). */
  usdPerHour: number | null;
  /** Static pools: replicas × the mean price of its nodes; null for dynamic ones or when no node is priced. */
  fixedUsdPerHour: number | null;
}

export interface OverlayPrice {
  nodePool: string;
  instanceType: string;
  capacityType: string;
  zone: string;
  nodes: number;
  /** What the snapshot priced the node at (what AWS bills). */
  usdPerHour: number;
  /** The price Karpenter decides with after the overlay. */
  karpenterUsdPerHour: number;
  overlay: string;
  change: string;
}

export interface OverlayState {
  name: string;
  weight: number;
  change: string | null;
  /** Applied to the running nodes it matches; otherwise why not (RuntimeValidation, Conflict). */
  applied: boolean;
  reason: string | null;
}

export interface ReservationRow {
  id: string;
  nodeClass: string;
  nodePools: string[];
  instanceType: string;
  zone: string;
  reservationType: string;
  state: string;
  interruptible: boolean;
  endTime: string | null;
  /** Nodes running in it at the snapshot. */
  nodes: number;
}

export interface NodePoolKarpenter {
  nodePools: PoolSetup[];
  overlays: OverlayState[];
  overlayPrices: OverlayPrice[];
  reservations: ReservationRow[];
}

const limitNodesOf = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
};
const overlayName = (o: KubeNodeOverlay): string => o.metadata.name;
const weightOf = (o: KubeNodeOverlay): number => o.spec.weight ?? 0;

/**
 * Whether nodePoolKarpenter looks at the nodes' labels beyond NodePool, instance type, capacity type and zone (what a
 * snapshot's node row gives): to match NodeOverlays' requirements, and to count the nodes of a capacity reservation.
 */
export function readsNodeLabels(objects: Pick<ClusterObjects, 'nodeOverlays' | 'nodeClasses'>): boolean {
  return objects.nodeOverlays.length > 0 || capacityReservations(objects.nodeClasses).length > 0;
}

/**
 * Per running node, the overlay that prices it: overlays in Karpenter's order (heavier first, equal weights by name),
 * one price change per node, an overlay reaching a node an equal-weight one already priced rejected whole (Conflict),
 * as core/karpenter/scheduling/overlays.ts applyOverlays does per offering; here on the running nodes only.
 */
export function nodePoolKarpenter(objects: ClusterObjects, priceOf: (node: string) => number | null): NodePoolKarpenter {
  const byPool = new Map<string, { nodes: number; usd: number; priced: number }>();
  for (const n of objects.nodes) {
    const pool = n.metadata.labels?.[LABEL_NODEPOOL];
    if (pool === undefined) continue;
    const p = byPool.get(pool) ?? { nodes: 0, usd: 0, priced: 0 };
    p.nodes += 1;
    const usd = priceOf(n.metadata.name);
    if (usd !== null) {
      p.usd += usd;
      p.priced += 1;
    }
    byPool.set(pool, p);
  }
  const nodePools = objects.nodePools
    .map((np): PoolSetup => {
      const p = byPool.get(np.metadata.name) ?? { nodes: 0, usd: 0, priced: 0 };
      const replicas = typeof np.spec.replicas === 'number' ? np.spec.replicas : null;
      return {
        name: np.metadata.name,
        replicas,
        limitNodes: limitNodesOf(np.spec.limits?.nodes),
        nodes: p.nodes,
        usdPerHour: p.priced === 0 ? null : p.usd,
        fixedUsdPerHour: replicas === null || p.priced === 0 ? null : (replicas * p.usd) / p.priced,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));

  // Overlays on the running nodes.
  const nodes = objects.nodes
    .filter((n) => n.metadata.labels?.[LABEL_NODEPOOL] !== undefined)
    .map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} }));
  // Each node's labels as requirements, made when the first overlay that prices anything is matched (none otherwise:
  // at 5,000 nodes making them was a third of the answer's time).
  let nodeReqs: { name: string; reqs: Requirements }[] | null = null;
  const withReqs = () => (nodeReqs ??= nodes.map((n) => ({ name: n.name, reqs: Requirements.fromLabels(n.labels) })));
  const pricedBy = new Map<string, { overlay: string; weight: number; change: string }>();
  const overlays: OverlayState[] = [];
  for (const o of orderOverlays(objects.nodeOverlays)) {
    const change = o.spec.price ?? o.spec.priceAdjustment ?? null;
    const state: OverlayState = { name: overlayName(o), weight: weightOf(o), change, applied: false, reason: null };
    overlays.push(state);
    const invalid = runtimeValidation(o);
    if (invalid !== null) {
      state.reason = `RuntimeValidation: ${invalid}`;
      continue;
    }
    if (change === null) {
      state.applied = true; // capacity only: it prices nothing
      continue;
    }
    const reqs = Requirements.fromSelectors(o.spec.requirements ?? []);
    const reached = withReqs().filter((n) => n.reqs.isCompatible(reqs));
    if (reached.some((n) => pricedBy.get(n.name)?.weight === state.weight)) {
      state.reason = 'Conflict: an overlay of the same weight already prices a node it matches';
      continue;
    }
    state.applied = true;
    for (const n of reached) if (!pricedBy.has(n.name)) pricedBy.set(n.name, { overlay: state.name, weight: state.weight, change });
  }
  const groups = new Map<string, OverlayPrice>();
  for (const n of nodes) {
    const by = pricedBy.get(n.name);
    const usd = priceOf(n.name);
    if (by === undefined || usd === null) continue;
    const row = {
      nodePool: n.labels[LABEL_NODEPOOL] ?? '',
      instanceType: n.labels[LABEL_INSTANCE_TYPE] ?? '',
      capacityType: n.labels[LABEL_CAPACITY_TYPE] ?? '',
      zone: n.labels[LABEL_ZONE] ?? '',
    };
    const key = `${row.nodePool}|${row.instanceType}|${row.capacityType}|${row.zone}|${usd}`;
    const g = groups.get(key);
    if (g !== undefined) g.nodes += 1;
    else
      groups.set(key, {
        ...row,
        nodes: 1,
        usdPerHour: usd,
        karpenterUsdPerHour: adjustedPrice(usd, by.change),
        overlay: by.overlay,
        change: by.change,
      });
  }
  const overlayPrices = [...groups.values()].sort(
    (a, b) => a.nodePool.localeCompare(b.nodePool) || a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone),
  );

  const poolsOfClass = (nodeClass: string): string[] =>
    objects.nodePools
      .filter((np) => np.spec.template?.spec?.nodeClassRef?.name === nodeClass)
      .map((np) => np.metadata.name)
      .sort();
  const reservations = capacityReservations(objects.nodeClasses).map(({ nodeClass, reservation: r }): ReservationRow => ({
    id: r.id,
    nodeClass,
    nodePools: poolsOfClass(nodeClass),
    instanceType: r.instanceType,
    zone: r.availabilityZone,
    reservationType: r.reservationType ?? 'default',
    state: r.state ?? 'active',
    interruptible: r.interruptible ?? false,
    endTime: r.endTime ?? null,
    nodes: objects.nodes.filter((n) => n.metadata.labels?.[LABEL_RESERVATION_ID] === r.id).length,
  }));
  return { nodePools, overlays, overlayPrices, reservations };
}
