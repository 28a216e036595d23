import { ANNOTATION_DO_NOT_DISRUPT, type CapacityType, type DisruptionReason } from '../../core/labels.js';
import { effectiveRequests } from '../../core/pod-requests.js';
import { Requirements } from '../../core/karpenter/requirements.js';
import { catalogLabelKeys, loadCatalog } from '../scenario/catalog.js';
import { Rng } from '../scenario/rng.js';
import { loadScenarioFile } from '../scenario/scenario-file.js';
import { simulateSpotPrices } from '../scenario/spot-prices.js';
import type { EpochMs, InstanceTypeInfo, Scenario, SimContainer, SimEvent, SimNode, SimNodePool, SimPod } from '../scenario/types.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../core/time.js';
import { type EventSpec, karpenterEventWriter } from '../scenario/karpenter-events.js';
import { CURRENT_KARPENTER_VERSION, karpenterProfile } from '../scenario/karpenter-profile.js';

/**
 * A synthetic cluster of any size, built directly (no step-by-step simulation) and deterministic from a seed:
 * the week4 NodePools, many namespaces and Deployments, every node packed with a fixed number of pods, and node
 * churn (consolidation, spot interruptions, expiry) with pods that live and die with their node. It is the
 * cluster envelope for benchmarks — 5,000 nodes and 150,000 pods — and a long bill for Cost Explorer.
 */

const DEFAULT_END = Date.parse('2026-12-01T00:00:00Z');
const MANAGED_NODES = 2;

export interface ScaleOptions {
  /** Nodes alive at the end of the scenario, the managed node group's two included. */
  nodes: number;
  /** Pods on every node (its three DaemonSet pods included): nodes x podsPerNode pods run at the end. */
  podsPerNode: number;
  /** Length of the history. */
  days: number;
  seed?: number;
  /** End of the scenario (the sandbox clock starts there); default 2026-12-01T00:00:00Z. */
  end?: EpochMs;
  /** Mean life of a general or spot-batch node, in days; 0 = no churn (every node lives the whole scenario). */
  meanNodeLifetimeDays?: number;
  /** Application namespaces besides kube-system and monitoring (teams are one per four namespaces). */
  namespaces?: number;
}

/** Share of the nodes per NodePool (the rest of the 100% after the managed nodes). */
const POOL_SHARE: Record<string, number> = { system: 0.02, general: 0.58, 'spot-batch': 0.4 };
/**
 * The envelope keeps the shape it was measured with: week4's three syllabus NodePools and the DaemonSets that run on
 * every node (week4's dedicated and on-demand-only pools, and the DaemonSets added with them, are not scaled up).
 */
const SCALE_POOLS = new Set(['system', 'general', 'spot-batch']);
const SCALE_DAEMONSETS = new Set(['aws-node', 'kube-proxy', 'node-exporter']);
const DEPLOYMENTS_PER_NAMESPACE = 6;
const TYPES_PER_POOL = 8;
const APP_WORDS = ['api', 'web', 'worker', 'cache', 'search', 'ingest', 'render', 'billing', 'auth', 'notify', 'report', 'queue'];

interface Slot {
  pool: SimNodePool | null;
  type: InstanceTypeInfo;
  capacityType: CapacityType;
  zone: string;
}

interface Deployment {
  namespace: string;
  name: string;
  hash: string;
  image: string;
}

export function scaleScenario(opts: ScaleOptions): Scenario {
  return new ScaleBuilder(opts).build();
}

class ScaleBuilder {
  private readonly rng: Rng;
  private readonly file = loadScenarioFile('week4');
  private readonly catalog = loadCatalog();
  private readonly end: EpochMs;
  private readonly start: EpochMs;
  private readonly pools: SimNodePool[];
  private readonly nodes: SimNode[] = [];
  private readonly pods: SimPod[] = [];
  private readonly events: SimEvent[] = [];
  private readonly podNames = new Set<string>();
  private readonly deployments: Deployment[] = [];
  private readonly namespaces: Scenario['namespaces'];
  private readonly nodeClassHash: string;
  private ipCounter = 10;

  constructor(private readonly opts: ScaleOptions) {
    if (!(opts.nodes > MANAGED_NODES && opts.podsPerNode > 3 && opts.days > 0)) {
      throw new RangeError(`a scale scenario needs more than ${MANAGED_NODES} nodes, more than 3 pods per node and some days`);
    }
    this.rng = new Rng(opts.seed ?? 1);
    this.end = opts.end ?? DEFAULT_END;
    this.start = this.end - opts.days * DAY_MS;
    // Capacity reservations are not modelled at scale: a pool allowing reserved runs on-demand (the same price).
    this.pools = this.file.nodePools
      .filter((p) => SCALE_POOLS.has(p.name))
      .map((p) => ({
        ...p,
        capacityTypes: p.capacityTypes.filter((c) => c !== 'reserved'),
        instanceTypes: this.typesFor(p.requirements),
      }));
    this.nodeClassHash = this.rng.hex(16);
    const appNamespaces = Array.from({ length: opts.namespaces ?? 40 }, (_, i) => ({
      name: `team${Math.floor(i / 4) + 1}-${APP_WORDS[i % APP_WORDS.length]}`,
      labels: { team: `team${Math.floor(i / 4) + 1}` },
    }));
    this.namespaces = [
      { name: 'kube-system', labels: { team: 'platform' } },
      { name: 'monitoring', labels: { team: 'platform' } },
      ...appNamespaces,
    ];
    for (const ns of appNamespaces) {
      for (let d = 0; d < DEPLOYMENTS_PER_NAMESPACE; d++) {
        const name = `${APP_WORDS[(d * 5 + ns.name.length) % APP_WORDS.length]}-${d}`;
        this.deployments.push({
          namespace: ns.name,
          name,
          hash: this.rng.suffix(9).slice(0, 9),
          image: `public.ecr.aws/ledger-scale/${ns.name}/${name}:1.4.2`,
        });
      }
    }
  }

  /** Instance types a NodePool admits that hold `podsPerNode` pods, cheapest first; the roomiest one when none does. */
  private typesFor(reqs: SimNodePool['requirements']): string[] {
    const requirements = new Requirements(reqs);
    const admitted = [...this.catalog.values()]
      .filter((t) => requirements.admitsInstanceType(t.labels, catalogLabelKeys()))
      .sort((a, b) => a.onDemandUsdPerHour - b.onDemandUsdPerHour || a.name.localeCompare(b.name));
    const roomy = admitted.filter((t) => t.allocatableParsed.pods >= this.opts.podsPerNode && t.vcpu >= 4);
    // Karpenter launches the cheapest types that fit: a handful per pool, not every one admitted.
    const chosen = roomy.length > 0 ? roomy.slice(0, TYPES_PER_POOL) : admitted.slice(-1);
    return chosen.map((t) => t.name);
  }

  build(): Scenario {
    const slots = this.slots();
    slots.forEach((slot, i) => this.fillSlot(slot, i));
    const spotTypes = [...new Set(this.nodes.filter((n) => n.capacityType === 'spot').map((n) => n.instanceType))].sort();
    const onDemand: Record<string, number> = {};
    for (const t of new Set(this.nodes.map((n) => n.instanceType))) onDemand[t] = this.catalog.get(t)?.onDemandUsdPerHour ?? 0;
    const spotPrices = simulateSpotPrices(
      this.rng,
      this.file.spotPrices,
      spotTypes.map((t) => ({ name: t, onDemandUsdPerHour: onDemand[t] })),
      this.file.zones,
      this.start,
      this.end,
    );
    return {
      name: `scale-${this.opts.nodes}x${this.opts.podsPerNode}-${this.opts.days}d`,
      karpenterVersion: CURRENT_KARPENTER_VERSION,
      seed: this.opts.seed ?? 1,
      clusterName: 'ledger-scale',
      region: this.file.region,
      zones: this.file.zones,
      accountId: this.file.accountId,
      start: this.start,
      end: this.end,
      stepMs: 5 * MINUTE_MS,
      nodePools: this.pools,
      namespaces: this.namespaces,
      nodes: this.nodes,
      pods: this.pods.sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      events: this.events.sort((a, b) => a.at - b.at),
      spotPrices,
      onDemandUsdPerHour: onDemand,
      // No volumes, but the CSINode of every node (the sandbox serves them once volumeClaims is set): the one kind
      // issue 21 collects that grows with the cluster, weighed by the snapshot bench's "objects Karpenter reads" row.
      volumeClaims: [],
    };
  }

  /** One slot per node alive at the end: its pool, type, capacity type and zone (kept across replacements). */
  private slots(): Slot[] {
    const karpenterNodes = this.opts.nodes - MANAGED_NODES;
    // week4's managed type (m5.large) holds 29 pods; a larger m5 when every node must hold more.
    const managedType =
      ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge']
        .map((t) => this.catalog.get(t))
        .find((t): t is InstanceTypeInfo => t !== undefined && t.allocatableParsed.pods >= this.opts.podsPerNode) ??
      this.catalog.get('m5.4xlarge');
    if (!managedType) throw new Error('the managed node type is not in the catalogue');
    const out: Slot[] = Array.from({ length: MANAGED_NODES }, (_, i) => ({
      pool: null,
      type: managedType,
      capacityType: 'on-demand' as const,
      zone: this.file.zones[i % this.file.zones.length],
    }));
    let assigned = 0;
    this.pools.forEach((pool, pi) => {
      const count =
        pi === this.pools.length - 1
          ? karpenterNodes - assigned
          : Math.round(karpenterNodes * (POOL_SHARE[pool.name] ?? 1 / this.pools.length));
      assigned += count;
      for (let i = 0; i < count; i++) {
        const typeName = this.rng.pick(pool.instanceTypes);
        const type = this.catalog.get(typeName);
        if (!type) throw new Error(`instance type ${typeName} is not in the catalogue`);
        const capacityType: CapacityType =
          pool.capacityTypes.length === 1 ? pool.capacityTypes[0] : this.rng.next() < 0.5 ? 'spot' : 'on-demand';
        out.push({ pool, type, capacityType, zone: this.rng.pick(this.file.zones) });
      }
    });
    return out;
  }

  private nextIp(): string {
    const n = this.ipCounter++;
    return `10.${1 + (n >> 16)}.${(n >> 8) & 0xff}.${n & 0xff}`;
  }

  /** The nodes that held a slot over the scenario, one after another, each with its pods. */
  private fillSlot(slot: Slot, index: number): void {
    const meanMs = (this.opts.meanNodeLifetimeDays ?? 7) * DAY_MS;
    const churns = slot.pool !== null && slot.pool.name !== 'system' && meanMs > 0;
    let createdAt = churns ? this.start - Math.floor((this.rng.next() * meanMs) / MINUTE_MS) * MINUTE_MS : this.start - 30 * DAY_MS;
    let previous: SimNode | null = null;
    for (;;) {
      const life = churns
        ? Math.max(HOUR_MS, Math.floor((-Math.log(1 - this.rng.next()) * meanMs) / MINUTE_MS) * MINUTE_MS)
        : Number.POSITIVE_INFINITY;
      const deletedAt = createdAt + life < this.end ? createdAt + life : null;
      const reason: DisruptionReason | null =
        deletedAt === null
          ? null
          : slot.capacityType === 'spot' && this.rng.next() < 0.3
            ? 'Interrupted'
            : this.rng.next() < 0.8
              ? 'Underutilized'
              : 'Expired';
      if (deletedAt === null || deletedAt > this.start) {
        // Nodes gone before the scenario starts are never seen, billed or listed: not made at all.
        const node = this.launch(slot, createdAt, deletedAt, reason, previous);
        this.packPods(node, slot, index);
        previous = node;
      }
      if (deletedAt === null) return;
      createdAt = deletedAt;
    }
  }

  private launch(
    slot: Slot,
    createdAt: EpochMs,
    deletedAt: EpochMs | null,
    reason: DisruptionReason | null,
    previous: SimNode | null,
  ): SimNode {
    const ip = this.nextIp();
    const node: SimNode = {
      name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`,
      nodeClaimName: slot.pool ? `${slot.pool.name}-${this.rng.suffix(5)}` : null,
      nodePool: slot.pool ? slot.pool.name : null,
      instanceType: slot.type.name,
      capacityType: slot.capacityType,
      zone: slot.zone,
      instanceId: `i-0${this.rng.hex(16)}`,
      privateIp: ip,
      createdAt,
      deletedAt,
      deletionReason: reason,
      launchReason: previous?.deletionReason
        ? { kind: 'replacement', replaces: [previous.name], reason: previous.deletionReason }
        : slot.pool
          ? { kind: 'pending-pods', podNames: [] }
          : { kind: 'static' },
      nodeClassHash: slot.pool ? this.nodeClassHash : '',
      allocatable: { ...slot.type.allocatableParsed },
    };
    this.nodes.push(node);
    // What the current Karpenter release writes: a consolidation replaces the node (its replacement launched with a
    // DisruptionLaunching event), an interruption is the AWS provider's events, and an expiry writes nothing (v1).
    const writer = karpenterEventWriter(karpenterProfile(CURRENT_KARPENTER_VERSION));
    if (previous?.deletionReason === 'Underutilized') this.emit(node, createdAt, [writer.launching('Underutilized')]);
    if (deletedAt !== null && reason !== null) {
      this.emit(
        node,
        deletedAt,
        reason === 'Interrupted' ? writer.spotInterruption() : reason === 'Expired' ? [] : writer.terminating(reason, 'Replace'),
      );
    }
    return node;
  }

  private emit(node: SimNode, at: EpochMs, specs: readonly EventSpec[]): void {
    for (const e of specs) {
      const name = e.object === 'Node' ? node.name : node.nodeClaimName;
      if (name !== null)
        this.events.push({
          uid: this.rng.uuid(),
          at,
          type: e.type,
          reason: e.reason,
          message: e.message,
          involvedObject: { kind: e.object, name },
        });
    }
  }

  private daemonSets() {
    return this.file.daemonSets.filter((ds) => SCALE_DAEMONSETS.has(ds.name));
  }

  private uniqueName(prefix: string): string {
    for (;;) {
      const name = `${prefix}-${this.rng.suffix(5)}`;
      if (!this.podNames.has(name)) {
        this.podNames.add(name);
        return name;
      }
    }
  }

  /** The node's DaemonSet pods, then Deployment pods sized so that podsPerNode of them fill 45-90% of it. */
  private packPods(node: SimNode, slot: Slot, slotIndex: number): void {
    const podAt = node.createdAt + MINUTE_MS;
    const tolerations = (slot.pool?.taints ?? []).map((t) => ({ key: t.key, operator: 'Equal', value: t.value, effect: t.effect }));
    const selector: Record<string, string> = slot.pool
      ? { 'karpenter.sh/nodepool': slot.pool.name }
      : { 'eks.amazonaws.com/nodegroup': 'karpenter-mng' };
    let usedCpu = 0;
    let usedMem = 0;
    for (const ds of this.daemonSets()) {
      const containers: SimContainer[] = [
        {
          name: ds.name,
          image: `public.ecr.aws/eks/${ds.name}:v1.31.0`,
          resources: { requests: { ...ds.requests } as Record<string, string> },
        },
      ];
      const pod = this.pod(node, podAt, {
        namespace: ds.namespace,
        name: this.uniqueName(`${ds.name}-${node.name.slice(3, 15)}`),
        ownerKind: 'DaemonSet',
        ownerName: ds.name,
        app: ds.name,
        containers,
        selector: {},
        tolerations: [{ key: '', operator: 'Exists' }],
      });
      usedCpu += pod.requests.cpuMillicores;
      usedMem += pod.requests.memoryBytes;
    }
    const workloadPods = Math.min(this.opts.podsPerNode, node.allocatable.pods) - this.daemonSets().length;
    const utilisation = this.rng.uniform(0.45, 0.9);
    const cpuEach = Math.max(5, Math.floor((node.allocatable.cpuMillicores * utilisation - usedCpu) / workloadPods / 5) * 5);
    const memEachMi = Math.max(16, Math.floor((node.allocatable.memoryBytes * utilisation - usedMem) / workloadPods / 1_048_576));
    const names: string[] = [];
    for (let i = 0; i < workloadPods; i++) {
      const d = this.deployments[(slotIndex * 7 + i * 13) % this.deployments.length];
      const containers: SimContainer[] = [
        { name: d.name.split('-')[0], image: d.image, resources: { requests: { cpu: `${cpuEach}m`, memory: `${memEachMi}Mi` } } },
      ];
      const pod = this.pod(node, podAt, {
        namespace: d.namespace,
        name: this.uniqueName(`${d.name}-${d.hash}`),
        ownerKind: 'ReplicaSet',
        ownerName: `${d.name}-${d.hash}`,
        app: d.name,
        containers,
        selector,
        tolerations,
        extraLabels: { 'pod-template-hash': d.hash },
        doNotDisrupt: i === 0 && slotIndex % 50 === 0,
      });
      names.push(pod.name);
    }
    if (node.launchReason.kind === 'pending-pods') node.launchReason.podNames = names.slice(0, 5);
  }

  private pod(
    node: SimNode,
    at: EpochMs,
    p: {
      namespace: string;
      name: string;
      ownerKind: SimPod['ownerKind'];
      ownerName: string;
      app: string;
      containers: SimContainer[];
      selector: Record<string, string>;
      tolerations: SimPod['tolerations'];
      extraLabels?: Record<string, string>;
      doNotDisrupt?: boolean;
    },
  ): SimPod {
    const pod: SimPod = {
      uid: this.rng.uuid(),
      namespace: p.namespace,
      name: p.name,
      ownerKind: p.ownerKind,
      ownerName: p.ownerName,
      labels: { app: p.app, ...(p.extraLabels ?? {}) },
      annotations: p.doNotDisrupt ? { [ANNOTATION_DO_NOT_DISRUPT]: 'true' } : {},
      containers: p.containers,
      initContainers: [],
      nodeSelector: p.selector,
      tolerations: p.tolerations,
      nodeName: node.name,
      createdAt: Math.min(at, node.deletedAt ?? at),
      deletedAt: node.deletedAt,
      endPhase: 'Deleted',
      requests: effectiveRequests(p.containers),
    };
    this.pods.push(pod);
    return pod;
  }
}
