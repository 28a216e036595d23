import type { InstanceCatalog } from '../../core/instance-catalog.js';
import {
  buildBuiltInCatalogue,
  type CatalogueEntry,
  type CatalogueOffering,
  type EngineContext,
  type KubeNode,
  type KubeNodePool,
  type KubePod,
  normalizePod,
  prepare,
  Requirements,
} from '../../core/karpenter/scheduling/index.js';
import { podRequirements } from '../../core/karpenter/scheduling/pods.js';
import { DISRUPTED_TAINT, type Taint, toleratesAll } from '../../core/karpenter/scheduling/taints.js';
import type { DomainSource } from '../../core/karpenter/scheduling/topology.js';
import { type CapacityReservationSpec, reservationWithRoom } from './capacity-reservations.js';
import { SpotPriceIndex } from './spot-prices.js';
import type { EpochMs, Scenario, SimNodePool } from './types.js';

/**
 * The sandbox's cluster as the Karpenter engine (core/karpenter/scheduling) reads it: NodePools and Nodes as
 * Kubernetes objects, and the instance-type catalogue priced at a moment of the simulation. The sandbox decides
 * when things happen (replicas, jobs, incidents, drift, prices); the engine decides where pending pods go, what
 * Karpenter launches and what consolidation does, so the tree holds one Karpenter model.
 */

const EC2_NODE_CLASS = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass' };

/**
 * A scenario NodePool as the karpenter.sh/v1 object. `paused`: consolidateAfter Never, so its nodes are no
 * candidates this round (the sandbox paces disruptions per NodePool) but stay destinations for moved pods.
 */
export function kubeNodePool(pool: Omit<SimNodePool, 'instanceTypes'>, paused = false): KubeNodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: pool.name },
    spec: {
      weight: pool.weight,
      limits: pool.limits,
      template: {
        spec: {
          requirements: pool.requirements,
          ...(pool.taints ? { taints: pool.taints } : {}),
          expireAfter: pool.expireAfter,
          nodeClassRef: { ...EC2_NODE_CLASS, name: pool.nodeClassName },
        },
      },
      disruption: {
        consolidationPolicy: pool.consolidationPolicy,
        consolidateAfter: paused ? 'Never' : pool.consolidateAfter,
        budgets: pool.budgets,
      },
    },
  };
}

/**
 * The instance types NodePools admit, cheapest first (on-demand price, then name), as the engine reads their
 * requirements: every type offered in every zone and capacity type, so only the requirements decide.
 */
export function admittedTypes(
  pools: readonly Omit<SimNodePool, 'instanceTypes'>[],
  data: Pick<InstanceCatalog, 'types'>,
  region: string,
  zones: readonly string[],
  onDemandUsdPerHour: ReadonlyMap<string, number>,
): Map<string, string[]> {
  const catalogue = buildBuiltInCatalogue(data, { region, zones, onDemandUsdPerHour }).map((e) => ({
    ...e,
    offerings: e.offerings.flatMap((o) => ['on-demand', 'spot', 'reserved'].map((capacityType) => ({ ...o, capacityType }))),
  }));
  const ctx = prepare({ nodePools: pools.map((p) => kubeNodePool(p)), catalogue, now: 0 });
  const price = (name: string) => onDemandUsdPerHour.get(name) ?? Infinity;
  const out = new Map<string, string[]>(pools.map((p) => [p.name, []]));
  for (const tpl of ctx.templates) {
    out.set(
      tpl.pool.name,
      tpl.options.map((it) => it.name).sort((a, b) => price(a) - price(b) || a.localeCompare(b)),
    );
  }
  return out;
}

/**
 * The catalogue the engine prices with at a time t of the simulation: on-demand in every zone at the static price,
 * spot where the simulated walk has a price at t, and `reserved` in a capacity reservation's zone at the on-demand
 * rate (available while the reservation has room; unavailable still prices a node in it). An entry is rebuilt only
 * when its offerings change, so the engine's per-entry compilation is reused across steps.
 */
export class PricedCatalogue {
  private readonly base: CatalogueEntry[];
  private readonly current = new Map<string, { signature: string; entry: CatalogueEntry; until: EpochMs }>();
  /** Per type with a spot market, when any of its zones' prices change, in order. */
  private readonly changes = new Map<string, EpochMs[]>();
  private last: { t: EpochMs; rooms: string; entries: CatalogueEntry[] } | null = null;

  constructor(
    data: Pick<InstanceCatalog, 'types'>,
    private readonly opts: {
      region: string;
      zones: readonly string[];
      onDemandUsdPerHour: ReadonlyMap<string, number>;
      spot: SpotPriceIndex;
      /** Types with a simulated spot market. */
      spotTypes: ReadonlySet<string>;
      reservations: readonly CapacityReservationSpec[];
    },
  ) {
    this.base = buildBuiltInCatalogue(data, opts);
    for (const name of opts.spotTypes) {
      const times = new Set<EpochMs>();
      for (const zone of opts.zones) for (const p of opts.spot.market(name, zone)) times.add(p.at);
      this.changes.set(
        name,
        [...times].sort((a, b) => a - b),
      );
    }
  }

  /** The first spot price change of `name` after t (Infinity when none). */
  private nextChange(name: string, t: EpochMs): EpochMs {
    const times = this.changes.get(name) ?? [];
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo < times.length ? times[lo] : Infinity;
  }

  /** The entries at t; `hasRoom(r)` says whether reservation r can take one more instance now. */
  at(t: EpochMs, hasRoom: (r: CapacityReservationSpec) => boolean): CatalogueEntry[] {
    const rooms = this.opts.reservations.map((r) => (hasRoom(r) ? '1' : '0')).join('');
    if (this.last && this.last.t === t && this.last.rooms === rooms) return this.last.entries;
    const entries = this.base.map((entry) => {
      const kept = this.current.get(entry.name);
      // prices unchanged since the entry was made (time only moves forward here), reservations as they were
      if (kept && kept.until > t && this.last?.rooms === rooms) return kept.entry;
      const extra: CatalogueOffering[] = [];
      if (this.opts.spotTypes.has(entry.name)) {
        for (const zone of this.opts.zones) {
          const price = this.opts.spot.priceAt(entry.name, zone, t);
          if (price !== null) extra.push({ zone, capacityType: 'spot', priceUsdPerHour: price, available: true });
        }
      }
      for (const r of this.opts.reservations) {
        if (r.instanceType !== entry.name) continue;
        const price = this.opts.onDemandUsdPerHour.get(entry.name) ?? 0;
        extra.push({ zone: r.zone, capacityType: 'reserved', priceUsdPerHour: price, available: hasRoom(r) });
      }
      if (extra.length === 0) return entry;
      const signature = extra.map((o) => `${o.zone}/${o.capacityType}/${o.priceUsdPerHour}/${o.available}`).join(',');
      const until = this.nextChange(entry.name, t);
      if (kept && kept.signature === signature) {
        kept.until = until;
        return kept.entry;
      }
      const priced = { ...entry, offerings: [...entry.offerings, ...extra] };
      this.current.set(entry.name, { signature, entry: priced, until });
      return priced;
    });
    // the same array when no entry changed: the engine then reuses its whole compiled catalogue
    const same = this.last !== null && this.last.entries.length === entries.length && entries.every((e, i) => e === this.last?.entries[i]);
    this.last = { t, rooms, entries: same && this.last ? this.last.entries : entries };
    return this.last.entries;
  }

  /** Capacity of a type as the catalogue gives it (what counts against NodePool limits). */
  capacity(name: string): CatalogueEntry['capacity'] | undefined {
    return this.base.find((e) => e.name === name)?.capacity;
  }
}

/** The labels Karpenter (or EKS, for a managed node group) puts on a node. */
export function nodeLabels(n: {
  name: string;
  typeLabels: Readonly<Record<string, string>>;
  instanceType: string;
  region: string;
  zone: string;
  capacityType: string;
  nodePool: string | null;
  managedNodeGroup: string | null;
}): Record<string, string> {
  return {
    ...n.typeLabels,
    'node.kubernetes.io/instance-type': n.instanceType,
    'topology.kubernetes.io/region': n.region,
    'topology.kubernetes.io/zone': n.zone,
    'karpenter.sh/capacity-type': n.capacityType,
    'kubernetes.io/hostname': n.name,
    ...(n.nodePool ? { 'karpenter.sh/nodepool': n.nodePool, 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true' } : {}),
    ...(n.managedNodeGroup ? { 'eks.amazonaws.com/nodegroup': n.managedNodeGroup } : {}),
  };
}

/** The taint Kubernetes' node lifecycle controller puts on a cordoned node (spec.unschedulable). */
export const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

export function kubeNode(n: {
  name: string;
  labels: Record<string, string>;
  taints: readonly { key: string; value?: string; effect: string }[];
  createdAt: EpochMs;
  allocatable: Readonly<Record<string, string>>;
  capacity: CatalogueEntry['capacity'] | undefined;
  /** Cordoned: spec.unschedulable and its taint. */
  cordoned?: boolean;
  /** Being disrupted by Karpenter since then: its karpenter.sh/disrupted taint and deletionTimestamp. */
  disruptedAt?: EpochMs;
}): KubeNode {
  const taints = [...n.taints, ...(n.cordoned ? [UNSCHEDULABLE_TAINT] : []), ...(n.disruptedAt !== undefined ? [DISRUPTED_TAINT] : [])];
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: n.name,
      labels: n.labels,
      creationTimestamp: new Date(n.createdAt).toISOString(),
      ...(n.disruptedAt !== undefined ? { deletionTimestamp: new Date(n.disruptedAt).toISOString() } : {}),
    },
    spec: { taints, ...(n.cordoned ? { unschedulable: true } : {}) },
    status: {
      allocatable: { ...n.allocatable },
      ...(n.capacity ? { capacity: { ...n.capacity } } : {}),
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/**
 * Which of the DaemonSet templates run on a node, by the engine's own predicate (existing-node.ts): every taint of
 * the node tolerated, and the template's node selection compatible with the node's labels. The DaemonSet
 * controller places its pods by the same rule (node affinity and taints, NoSchedule and NoExecute).
 */
export function daemonSetMatcher(templates: readonly KubePod[]): (labels: Record<string, string>, taints: readonly Taint[]) => boolean[] {
  const sched = templates.map((p, i) => normalizePod(p, i));
  return (labels, taints) => {
    const reqs = Requirements.fromLabels(labels);
    return sched.map((d) => toleratesAll(taints, d.constraints.tolerations) && reqs.isCompatible(podRequirements(d, d.constraints, false)));
  };
}

/**
 * Keeps the engine's topology domain sources (every NodePool × instance type's requirements, what a topology spread
 * or pod affinity counts domains over) from one context to the next while the NodePools and the types they offer
 * are the same. The engine rebuilds them for every Topology it makes — every provisioning round and every
 * consolidation candidate — which with week4's zone-spread Deployment was most of the simulation's time. A cache of
 * the engine's own values, not a model of the sandbox's: when the engine keeps them itself, this does nothing.
 */
export class DomainSourceCache {
  private key = '';
  private sources: DomainSource[] = [];

  apply(ctx: EngineContext): EngineContext {
    const key = ctx.templates.map((t) => `${t.pool.name}:${t.options.map((it) => it.name).join(',')}`).join('|');
    if (key !== this.key) {
      this.key = key;
      this.sources = [...ctx.domainSources()];
    }
    const sources = this.sources;
    ctx.domainSources = () => sources;
    return ctx;
  }
}

/**
 * The catalogue the simulation priced with at time t, rebuilt from a simulated history: the types its NodePools
 * admit and its managed nodes run, on-demand at the static prices, spot at the simulated prices of t, reserved in
 * the capacity reservations (available while one has room). What `simulate --instance-types` needs to price a dump
 * of the sandbox as its own engine did.
 */
export function scenarioCatalogue(
  sc: Pick<Scenario, 'nodePools' | 'nodes' | 'spotPrices' | 'onDemandUsdPerHour' | 'region' | 'zones' | 'capacityReservations'>,
  t: EpochMs,
  data: Pick<InstanceCatalog, 'types'>,
): CatalogueEntry[] {
  const spotTypes = new Set(sc.spotPrices.map((p) => p.instanceType));
  const relevant = new Set([...sc.nodePools.flatMap((p) => p.instanceTypes), ...sc.nodes.map((n) => n.instanceType)]);
  const reservations = sc.capacityReservations ?? [];
  const prices = new PricedCatalogue(
    { types: new Map([...data.types].filter(([name]) => relevant.has(name))) },
    {
      region: sc.region,
      zones: sc.zones,
      onDemandUsdPerHour: new Map(Object.entries(sc.onDemandUsdPerHour)),
      spot: new SpotPriceIndex(sc.spotPrices),
      spotTypes,
      reservations,
    },
  );
  const running = sc.nodes.filter((n) => n.createdAt <= t && (n.deletedAt === null || n.deletedAt > t));
  return prices.at(t, (r) => reservationWithRoom([r], r.instanceType, running) !== null);
}
