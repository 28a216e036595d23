import type { CapacityType, DisruptionReason } from '../../core/labels.js';
import { ANNOTATION_DO_NOT_DISRUPT } from '../../core/labels.js';
import { effectiveRequests } from '../../core/pod-requests.js';
import { parseKarpenterDuration } from '../../core/duration.js';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import {
  consolidate as consolidateRound,
  type EngineContext,
  isReschedulable,
  type KubeNode,
  type KubePod,
  prepare,
  provision,
  type ProvisioningOutcome,
  type SchedPod,
} from '../../core/karpenter/scheduling/index.js';
import type { LaunchChoice } from '../../core/karpenter/scheduling/launch.js';
import { DAY_MS as DAY, HOUR_MS as HOUR, MINUTE_MS as MINUTE } from '../../core/time.js';
import { reservationWithRoom } from './capacity-reservations.js';
import { loadCatalog } from './catalog.js';
import { admittedTypes, kubeNode, kubeNodePool, nodeLabels, PricedCatalogue } from './engine-cluster.js';
import { karpenterProfile } from './karpenter-profile.js';
import { shapeForRelease } from './release-shape.js';
import { type EventSpec, karpenterEventWriter, type KarpenterEventWriter } from './karpenter-events.js';
import { Rng } from './rng.js';
import type { ScenarioFile, WorkloadSpec } from './scenario-file.js';
import { SpotPriceIndex, simulateSpotPrices } from './spot-prices.js';
import type { EpochMs, InstanceTypeInfo, Resources, Scenario, SimContainer, SimEvent, SimNode, SimNodePool, SimPod } from './types.js';

/** What every pod of one workload (or DaemonSet) carries. */
interface PodShape {
  namespace: string;
  ownerKind: SimPod['ownerKind'];
  ownerName: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  containers: SimContainer[];
  initContainers: SimContainer[];
  nodeSelector: Record<string, string>;
  tolerations: SimPod['tolerations'];
}

const daemonContainers = (ds: ScenarioFile['daemonSets'][number]): SimContainer[] => [
  {
    name: ds.name,
    image: `public.ecr.aws/eks/${ds.name}:v1.31.0`,
    resources: { requests: { ...ds.requests } as Record<string, string> },
  },
];

/** A DaemonSet's pods as the engine sees them: they tolerate every taint, as DaemonSets like these do. */
const daemonShape = (ds: ScenarioFile['daemonSets'][number] | undefined): PodShape => ({
  namespace: ds?.namespace ?? 'kube-system',
  ownerKind: 'DaemonSet',
  ownerName: ds?.name ?? '',
  labels: { app: ds?.name ?? '' },
  annotations: {},
  containers: ds ? daemonContainers(ds) : [],
  initContainers: [],
  nodeSelector: {},
  tolerations: [{ key: '', operator: 'Exists' }],
});

/** How long a pool waits after one disruption before the next: keeps the simulated churn near Karpenter's. */
const DISRUPTION_COOLDOWN = 15 * MINUTE;
/**
 * How long a pool waits after a consolidation round that found nothing before the next look (unless a drift is
 * pending). Karpenter looks again within seconds of a change; the sandbox's clock moves in 5-minute steps and a
 * round of the engine evaluates every candidate, so a pool is looked at every 15 simulated minutes at most.
 */
const LOOK_INTERVAL = 15 * MINUTE;
const BLOCKED_EVENT_EVERY = 6 * HOUR;

interface LiveNode {
  node: SimNode;
  type: InstanceTypeInfo;
  pool: SimNodePool | null;
  /** The Node object the engine reads. */
  kube: KubeNode;
  pods: LivePod[];
  lastPodChangeAt: EpochMs;
  lastBlockedEventAt: EpochMs;
}

interface Workload {
  spec: WorkloadSpec;
  requests: Resources;
  containers: SimContainer[];
  initContainers: SimContainer[];
  templateHash: string;
  shape: PodShape;
  /** Live and pending pods, oldest first. */
  pods: LivePod[];
  noiseHour: number;
  noise: number;
}

interface LivePod {
  name: string;
  workload: Workload | null; // null: a DaemonSet pod
  daemonSet?: ScenarioFile['daemonSets'][number];
  requests: Resources;
  node: LiveNode | null;
  record: SimPod | null;
  createdAt: EpochMs;
  /** The Pod object the engine reads, while its binding holds. */
  kube?: KubePod;
  jobEndsAt?: EpochMs;
  ordinal?: number;
}

/** Runs the scenario file with a seed: a deterministic 14-day history of a Karpenter cluster. */
export function simulate(file: ScenarioFile, seed: number): Scenario {
  return new Simulation(shapeForRelease(file), seed).run();
}

class Simulation {
  private readonly rng: Rng;
  private readonly catalog = loadCatalog();
  private readonly start: EpochMs;
  private readonly end: EpochMs;
  private readonly step: number;
  private readonly pools: SimNodePool[];
  private readonly spot: SpotPriceIndex;
  private readonly spotPoints: Scenario['spotPrices'];
  private readonly nodes: SimNode[] = [];
  private readonly pods: SimPod[] = [];
  private readonly events: SimEvent[] = [];
  private readonly live: LiveNode[] = [];
  private readonly workloads: Workload[];
  private readonly nodeClassHash = new Map<string, string>();
  private readonly lastDisruption = new Map<string, EpochMs>();
  /** Bumped whenever a pool's nodes or pods change: a pool where nothing changed need not be re-evaluated. */
  private readonly poolVersion = new Map<string, number>();
  private readonly evaluatedAt = new Map<string, { version: number; at: EpochMs }>();
  private readonly onDemand: Record<string, number> = {};
  private readonly prices: PricedCatalogue;
  private readonly daemonTemplates: KubePod[];
  private ipCounter = 10;
  /** What the imitated Karpenter release writes (karpenterVersion of the scenario file, else the current release). */
  private readonly karpenterVersion: string;
  private readonly karpenter: KarpenterEventWriter;

  constructor(
    private readonly file: ScenarioFile,
    private readonly seed: number,
  ) {
    this.rng = new Rng(seed);
    const profile = karpenterProfile(file.karpenterVersion);
    this.karpenterVersion = profile.version;
    this.karpenter = karpenterEventWriter(profile);
    this.start = Date.parse(file.start);
    this.end = this.start + file.days * DAY;
    this.step = file.stepMinutes * MINUTE;
    for (const t of this.catalog.values()) this.onDemand[t.name] = t.onDemandUsdPerHour;
    const data = loadInstanceCatalog();
    const onDemand = new Map(Object.entries(this.onDemand));
    const admitted = admittedTypes(file.nodePools, data, file.region, file.zones, onDemand);
    this.pools = file.nodePools.map((p) => ({ ...p, instanceTypes: admitted.get(p.name) ?? [] }));
    for (const p of this.pools) this.nodeClassHash.set(p.nodeClassName, this.rng.hex(16));
    const spotTypes = new Set<string>();
    for (const p of this.pools) if (p.capacityTypes.includes('spot')) p.instanceTypes.forEach((t) => spotTypes.add(t));
    this.spotPoints = simulateSpotPrices(
      this.rng,
      file.spotPrices,
      [...spotTypes].sort().map((t) => ({ name: t, onDemandUsdPerHour: this.onDemand[t] })),
      file.zones,
      this.start,
      this.end,
    );
    this.spot = new SpotPriceIndex(this.spotPoints);
    // The engine prices with the types the NodePools admit and the managed group's: nothing else can run here.
    const relevant = new Set([...this.pools.flatMap((p) => p.instanceTypes), ...file.managedNodes.map((m) => m.instanceType)]);
    this.prices = new PricedCatalogue(
      { types: new Map([...data.types].filter(([name]) => relevant.has(name))) },
      {
        region: file.region,
        zones: file.zones,
        onDemandUsdPerHour: onDemand,
        spot: this.spot,
        spotTypes,
        reservations: file.capacityReservations ?? [],
      },
    );
    this.daemonTemplates = file.daemonSets.map((ds) => {
      const pod: LivePod = {
        name: ds.name,
        workload: null,
        daemonSet: ds,
        requests: effectiveRequests(daemonContainers(ds)),
        node: null,
        record: null,
        createdAt: this.start,
      };
      return this.kubePod(pod);
    });
    this.workloads = file.workloads.map((spec) => this.makeWorkload(spec));
  }

  private makeWorkload(spec: WorkloadSpec): Workload {
    const containers: SimContainer[] = [
      {
        name: spec.name.split('-')[0],
        image: `public.ecr.aws/ledger-demo/${spec.name}:1.4.2`,
        resources: { requests: { ...spec.requests } as Record<string, string> },
      },
    ];
    const initContainers: SimContainer[] = spec.initRequests
      ? [
          {
            name: 'migrate',
            image: `public.ecr.aws/ledger-demo/${spec.name}-migrate:1.4.2`,
            resources: { requests: { ...spec.initRequests } as Record<string, string> },
          },
        ]
      : [];
    const templateHash = this.rng.suffix(9).slice(0, 9);
    const pool = this.file.nodePools.find((p) => p.name === spec.target);
    const nodeSelector: Record<string, string> = {};
    if (spec.target !== 'managed') nodeSelector['karpenter.sh/nodepool'] = spec.target;
    if (spec.capacityType) nodeSelector['karpenter.sh/capacity-type'] = spec.capacityType;
    if (spec.target === 'managed') nodeSelector['eks.amazonaws.com/nodegroup'] = 'karpenter-mng';
    const shape: PodShape = {
      namespace: spec.namespace,
      ownerKind: spec.kind === 'Deployment' ? 'ReplicaSet' : spec.kind,
      ownerName: spec.kind === 'Deployment' ? `${spec.name}-${templateHash}` : spec.name,
      labels: { app: spec.name, ...(spec.labels ?? {}), ...(spec.kind === 'Deployment' ? { 'pod-template-hash': templateHash } : {}) },
      annotations: spec.doNotDisrupt ? { [ANNOTATION_DO_NOT_DISRUPT]: 'true' } : {},
      containers,
      initContainers,
      nodeSelector,
      // the taints of the NodePool it targets
      tolerations: (pool?.taints ?? []).map((taint) => ({ key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect })),
    };
    return {
      spec,
      containers,
      initContainers,
      requests: effectiveRequests(containers, initContainers),
      templateHash,
      shape,
      pods: [],
      noiseHour: -1,
      noise: 0,
    };
  }

  run(): Scenario {
    this.launchManagedNodes();
    for (let t = this.start; t < this.end; t += this.step) {
      this.incidents(t);
      for (const w of this.workloads) this.reconcile(w, t);
      this.schedulePending(t);
      this.disrupt(t);
      this.schedulePending(t);
    }
    return {
      name: this.file.name,
      seed: this.seed,
      karpenterVersion: this.karpenterVersion,
      clusterName: this.file.clusterName,
      region: this.file.region,
      zones: this.file.zones,
      accountId: this.file.accountId,
      start: this.start,
      end: this.end,
      stepMs: this.step,
      nodePools: this.pools,
      namespaces: this.file.namespaces,
      nodes: this.nodes,
      pods: this.pods.sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name)),
      events: this.events.sort((a, b) => a.at - b.at),
      spotPrices: this.spotPoints,
      onDemandUsdPerHour: Object.fromEntries(Object.entries(this.onDemand).filter(([t]) => this.usedOrAllowed(t))),
    };
  }

  private usedOrAllowed(type: string): boolean {
    return this.pools.some((p) => p.instanceTypes.includes(type)) || this.file.managedNodes.some((m) => m.instanceType === type);
  }

  // ---- nodes ---------------------------------------------------------------------------------------------------

  private nextIp(): string {
    const n = this.ipCounter++;
    return `10.0.${32 + Math.floor(n / 250)}.${(n % 250) + 4}`;
  }

  private launchManagedNodes(): void {
    for (const m of this.file.managedNodes) {
      for (let i = 0; i < m.count; i++) {
        this.launch(
          null,
          m.instanceType,
          'on-demand',
          this.file.zones[i % this.file.zones.length],
          this.start - 30 * DAY,
          { kind: 'static' },
          m.name,
        );
      }
    }
  }

  private launch(
    pool: SimNodePool | null,
    typeName: string,
    capacityType: CapacityType,
    zone: string,
    t: EpochMs,
    launchReason: SimNode['launchReason'],
    managedNodeGroup: string | null = null,
  ): LiveNode {
    const type = this.catalog.get(typeName);
    if (!type) throw new Error(`instance type ${typeName} is not in the catalogue`);
    const ip = this.nextIp();
    const node: SimNode = {
      name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`,
      nodeClaimName: pool ? `${pool.name}-${this.rng.suffix(5)}` : null,
      nodePool: pool ? pool.name : null,
      instanceType: typeName,
      capacityType,
      zone,
      instanceId: `i-0${this.rng.hex(16)}`,
      privateIp: ip,
      createdAt: t,
      deletedAt: null,
      deletionReason: null,
      launchReason,
      nodeClassHash: pool ? (this.nodeClassHash.get(pool.nodeClassName) ?? '') : '',
      allocatable: { ...type.allocatableParsed },
      ...(capacityType === 'reserved' ? { capacityReservationId: this.reservationFor(typeName)?.id } : {}),
    };
    this.nodes.push(node);
    const labels = nodeLabels({
      name: node.name,
      typeLabels: type.labels,
      instanceType: typeName,
      region: this.file.region,
      zone,
      capacityType,
      nodePool: node.nodePool,
      managedNodeGroup,
    });
    const kube = kubeNode({
      name: node.name,
      labels,
      taints: pool?.taints ?? [],
      createdAt: t,
      allocatable: type.allocatable,
      capacity: this.prices.capacity(typeName),
    });
    const live: LiveNode = {
      node,
      type,
      pool,
      kube,
      pods: [],
      lastPodChangeAt: t,
      lastBlockedEventAt: -Infinity,
    };
    this.live.push(live);
    this.touch(pool);
    for (const ds of this.file.daemonSets) {
      const pod: LivePod = {
        name: `${ds.name}-${this.rng.suffix(5)}`,
        workload: null,
        daemonSet: ds,
        requests: effectiveRequests(daemonContainers(ds)),
        node: null,
        record: null,
        createdAt: t,
      };
      this.bind(pod, live, t);
    }
    return live;
  }

  private remove(live: LiveNode, t: EpochMs, reason: DisruptionReason | null): LivePod[] {
    live.node.deletedAt = t;
    live.node.deletionReason = reason;
    this.live.splice(this.live.indexOf(live), 1);
    this.touch(live.pool);
    const evicted: LivePod[] = [];
    for (const pod of [...live.pods]) {
      this.unbind(pod, t);
      if (pod.workload) {
        // The controller makes a new pod for an evicted one (a StatefulSet keeps the name).
        const replacement = this.newPod(pod.workload, t, pod.ordinal);
        replacement.jobEndsAt = pod.jobEndsAt;
        pod.workload.pods.splice(pod.workload.pods.indexOf(pod), 1, replacement);
        evicted.push(replacement);
      }
    }
    return evicted;
  }

  /** Events on the node and its NodeClaim, as the imitated release writes them (karpenter-events.ts). */
  private emit(live: LiveNode, t: EpochMs, specs: readonly EventSpec[]): void {
    for (const e of specs) {
      const name = e.object === 'Node' ? live.node.name : live.node.nodeClaimName;
      if (name !== null) this.event(t, { kind: e.object, name }, e.reason, e.message, e.type);
    }
  }

  private event(
    t: EpochMs,
    involvedObject: SimEvent['involvedObject'],
    reason: string,
    message: string,
    type: SimEvent['type'] = 'Normal',
  ): void {
    this.events.push({ uid: this.rng.uuid(), at: t, type, reason, message, involvedObject });
  }

  // ---- pods ----------------------------------------------------------------------------------------------------

  private newPod(w: Workload, t: EpochMs, ordinal?: number): LivePod {
    let name: string;
    if (w.spec.kind === 'StatefulSet') name = `${w.spec.name}-${ordinal ?? 0}`;
    else if (w.spec.kind === 'Job') name = `${w.spec.name}-${Math.floor(t / 60_000)}-${this.rng.suffix(5)}`;
    else name = `${w.spec.name}-${w.templateHash}-${this.rng.suffix(5)}`;
    return { name, workload: w, requests: w.requests, node: null, record: null, createdAt: t, ordinal };
  }

  /** Room was freed or added in the pool (a pod removed, a node launched or removed): consolidation may find more. */
  private touch(pool: SimNodePool | null): void {
    if (pool) this.poolVersion.set(pool.name, (this.poolVersion.get(pool.name) ?? 0) + 1);
  }

  private bind(pod: LivePod, live: LiveNode, t: EpochMs): void {
    pod.node = live;
    pod.kube = undefined;
    live.pods.push(pod);
    live.lastPodChangeAt = t;
    const w = pod.workload;
    const shape = w ? w.shape : daemonShape(pod.daemonSet);
    // A DaemonSet pod's record names the taints of its node, then tolerates everything.
    const tolerations: SimPod['tolerations'] = w
      ? shape.tolerations
      : [
          ...(live.pool?.taints ?? []).map((taint) => ({ key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect })),
          { key: '', operator: 'Exists' },
        ];
    pod.record = {
      uid: this.rng.uuid(),
      namespace: shape.namespace,
      name: pod.name,
      ownerKind: shape.ownerKind,
      ownerName: shape.ownerName,
      labels: { ...shape.labels },
      annotations: { ...shape.annotations },
      containers: shape.containers,
      initContainers: shape.initContainers,
      nodeSelector: { ...shape.nodeSelector },
      tolerations,
      nodeName: live.node.name,
      createdAt: t,
      deletedAt: null,
      endPhase: 'Deleted',
      requests: pod.requests,
    };
    this.pods.push(pod.record);
  }

  private unbind(pod: LivePod, t: EpochMs, phase: SimPod['endPhase'] = 'Deleted'): void {
    const live = pod.node;
    if (!live) return;
    this.touch(live.pool);
    live.pods.splice(live.pods.indexOf(pod), 1);
    live.lastPodChangeAt = t;
    if (pod.record) {
      pod.record.deletedAt = t;
      pod.record.endPhase = phase;
    }
    pod.node = null;
    pod.kube = undefined;
  }

  /** Desired replicas of a workload at t. */
  private desired(w: Workload, t: EpochMs): number {
    const r = w.spec.replicas;
    if (!r) return 0;
    if ('fixed' in r) return r.fixed;
    const { min, max, peakHourUtc, weekendFactor } = r.daily;
    const hour = (t % DAY) / HOUR;
    const shape = 0.5 + 0.5 * Math.cos(((hour - peakHourUtc) / 24) * 2 * Math.PI);
    const weekday = new Date(t).getUTCDay();
    const factor = weekday === 0 || weekday === 6 ? weekendFactor : 1;
    // Noise changes once an hour, as real traffic does, rather than flapping every step.
    const hourIndex = Math.floor(t / HOUR);
    if (w.noiseHour !== hourIndex) {
      w.noiseHour = hourIndex;
      w.noise = this.rng.int(-1, 1);
    }
    const noise = w.noise;
    return Math.max(min, Math.round((min + (max - min) * shape) * factor) + noise);
  }

  private reconcile(w: Workload, t: EpochMs): void {
    if (w.spec.kind === 'Job') return this.reconcileJob(w, t);
    const want = this.desired(w, t);
    while (w.pods.length > want) {
      const pod = w.pods.pop();
      if (pod) this.unbind(pod, t);
    }
    while (w.pods.length < want) w.pods.push(this.newPod(w, t, w.pods.length));
  }

  private reconcileJob(w: Workload, t: EpochMs): void {
    for (const pod of [...w.pods]) {
      if (pod.jobEndsAt !== undefined && pod.jobEndsAt <= t) {
        this.unbind(pod, t, 'Succeeded');
        w.pods.splice(w.pods.indexOf(pod), 1);
      }
    }
    for (const b of w.spec.bursts ?? []) {
      const at = this.start + b.day * DAY + b.hourUtc * HOUR;
      if (at > t - this.step && at <= t) {
        for (let i = 0; i < b.parallelism; i++) {
          const pod = this.newPod(w, t);
          pod.jobEndsAt = at + b.hours * HOUR;
          w.pods.push(pod);
        }
      }
    }
  }

  // ---- scheduling and provisioning (the engine's) ---------------------------------------------------------------

  /** The Kubernetes object of a pod as the engine reads it (rebuilt when it is bound or unbound). */
  private kubePod(pod: LivePod): KubePod {
    if (pod.kube) return pod.kube;
    const shape = pod.workload ? pod.workload.shape : daemonShape(pod.daemonSet);
    const live = pod.node;
    pod.kube = {
      metadata: {
        name: pod.name,
        namespace: shape.namespace,
        uid: pod.record?.uid ?? `${shape.namespace}/${pod.name}`,
        labels: shape.labels,
        annotations: shape.annotations,
        creationTimestamp: new Date(pod.createdAt).toISOString(),
        ownerReferences: [
          { apiVersion: shape.ownerKind === 'Node' ? 'v1' : 'apps/v1', kind: shape.ownerKind, name: shape.ownerName, controller: true },
        ],
      },
      spec: {
        ...(live ? { nodeName: live.node.name } : {}),
        nodeSelector: shape.nodeSelector,
        tolerations: shape.tolerations,
        containers: shape.containers,
        initContainers: shape.initContainers,
      },
      status: live ? { phase: 'Running', startTime: new Date(pod.record?.createdAt ?? pod.createdAt).toISOString() } : { phase: 'Pending' },
    };
    return pod.kube;
  }

  /**
   * The cluster as it stands at t, prepared for the engine. `paused` NodePools are given consolidateAfter Never:
   * their nodes are no consolidation candidates this round but still take pods.
   */
  private engine(t: EpochMs, paused: ReadonlySet<string> = new Set()): { ctx: EngineContext; podByKey: Map<string, LivePod> } {
    const podByKey = new Map<string, LivePod>();
    const pods: KubePod[] = [];
    const add = (p: LivePod) => {
      const k = this.kubePod(p);
      podByKey.set(`${k.metadata.namespace}/${k.metadata.name}`, p);
      pods.push(k);
    };
    for (const live of this.live) for (const p of live.pods) add(p);
    for (const w of this.workloads) for (const p of w.pods) if (p.node === null) add(p);
    const ctx = prepare({
      nodePools: this.pools.map((p) => kubeNodePool(p, paused.has(p.name))),
      nodes: this.live.map((n) => n.kube),
      pods,
      daemonSetPods: this.daemonTemplates,
      catalogue: this.prices.at(
        t,
        (r) =>
          reservationWithRoom(
            [r],
            r.instanceType,
            this.live.map((n) => n.node),
          ) !== null,
      ),
      now: t,
      lastPodEventAt: new Map(this.live.map((n) => [n.node.name, n.lastPodChangeAt])),
      featureGates: { spotToSpotConsolidation: this.file.featureGates?.spotToSpotConsolidation ?? false },
    });
    return { ctx, podByKey };
  }

  private liveNamed(name: string): LiveNode | undefined {
    return this.live.find((n) => n.node.name === name);
  }

  /** One provisioning round for the pending pods: bound where the engine places them, NodeClaims launched. */
  private schedulePending(t: EpochMs): void {
    if (!this.workloads.some((w) => w.pods.some((p) => p.node === null))) return;
    const { ctx, podByKey } = this.engine(t);
    this.applyProvisioning(provision(ctx), podByKey, t);
  }

  private applyProvisioning(out: ProvisioningOutcome, podByKey: ReadonlyMap<string, LivePod>, t: EpochMs): void {
    const pods = (list: readonly SchedPod[]) => list.flatMap((p) => podByKey.get(p.key) ?? []);
    for (const [nodeName, placed] of out.onExistingNodes) {
      const live = this.liveNamed(nodeName);
      if (live) for (const p of pods(placed)) this.bind(p, live, t);
    }
    for (const nc of out.nodeClaims) {
      const taken = pods(nc.pods);
      const live = this.launchChoice(nc.nodePool, nc.launch, t, { kind: 'pending-pods', podNames: taken.map((p) => p.name) });
      for (const p of taken) this.bind(p, live, t);
    }
    // pods the engine finds no room for (a NodePool's limits, the managed group full) stay pending
  }

  /** Launches what the engine chose; a reservation filled within the round falls back to on-demand, as EC2 does. */
  private launchChoice(poolName: string, choice: LaunchChoice, t: EpochMs, reason: SimNode['launchReason']): LiveNode {
    const pool = this.pools.find((p) => p.name === poolName) ?? null;
    const type = choice.instanceType.name;
    const capacityType = choice.capacityType === 'reserved' && !this.reservationFor(type) ? 'on-demand' : choice.capacityType;
    return this.launch(pool, type, capacityType as CapacityType, choice.zone, t, reason);
  }

  /** A capacity reservation with room for `type` now (scenario-file capacityReservations). */
  private reservationFor(type: string) {
    return reservationWithRoom(
      this.file.capacityReservations ?? [],
      type,
      this.live.map((n) => n.node),
    );
  }

  // ---- disruption ----------------------------------------------------------------------------------------------

  private blocker(live: LiveNode): LivePod | undefined {
    return live.pods.find((p) => p.workload?.spec.doNotDisrupt);
  }

  private noteBlocked(live: LiveNode, pod: LivePod, t: EpochMs): void {
    if (t - live.lastBlockedEventAt < BLOCKED_EVENT_EVERY) return;
    live.lastBlockedEventAt = t;
    this.emit(live, t, this.karpenter.blocked(`${pod.record?.namespace}/${pod.name}`));
  }

  private incidents(t: EpochMs): void {
    for (const inc of this.file.incidents) {
      const at = Date.parse(inc.at);
      if (!(at > t - this.step && at <= t)) continue;
      if (inc.kind === 'drift') {
        const pool = this.pools.find((p) => p.name === inc.nodePool);
        if (pool) this.nodeClassHash.set(pool.nodeClassName, this.rng.hex(16));
      } else {
        const victim = this.live
          .filter((n) => n.pool?.name === inc.nodePool && n.node.capacityType === 'spot')
          .sort((a, b) => b.pods.length - a.pods.length || a.node.name.localeCompare(b.node.name))[0];
        if (!victim) continue;
        this.emit(victim, t, this.karpenter.spotInterruption());
        this.remove(victim, t, 'Interrupted');
      }
    }
  }

  /**
   * The disruption controller's turn: drift (the sandbox knows when a NodeClass changed) for each NodePool whose
   * pace allows, then one consolidation round decided by the engine over those NodePools.
   */
  private disrupt(t: EpochMs): void {
    const due = this.pools.filter((pool) => {
      if (t - (this.lastDisruption.get(pool.name) ?? -Infinity) < DISRUPTION_COOLDOWN) return false;
      // Nothing that could make room changed since a fruitless look, no node's consolidateAfter ended since (spot
      // prices aside, which an hourly look catches): Karpenter would find nothing new, so skip the work.
      const seen = this.evaluatedAt.get(pool.name);
      if (seen && t - seen.at < LOOK_INTERVAL && !this.driftPending(pool)) return false;
      if (!seen || seen.version !== (this.poolVersion.get(pool.name) ?? 0) || t - seen.at >= HOUR || this.driftPending(pool)) return true;
      const after = parseKarpenterDuration(pool.consolidateAfter);
      return (
        after !== null && this.live.some((n) => n.pool === pool && n.lastPodChangeAt + after > seen.at && n.lastPodChangeAt + after <= t)
      );
    });
    if (due.length === 0) return;
    const consolidating = new Set<string>();
    for (const pool of due) {
      if (this.drift(pool, t)) this.lastDisruption.set(pool.name, t);
      else consolidating.add(pool.name);
    }
    if (consolidating.size > 0 && !this.consolidate(consolidating, t)) {
      for (const name of consolidating) this.evaluatedAt.set(name, { version: this.poolVersion.get(name) ?? 0, at: t });
    }
  }

  private driftPending(pool: SimNodePool): boolean {
    const hash = this.nodeClassHash.get(pool.nodeClassName);
    return this.live.some((n) => n.pool === pool && n.node.nodeClassHash !== hash && !this.blocker(n));
  }

  /**
   * Replaces one drifted node of the pool, as Karpenter's drift method does: its pods scheduled on the rest of the
   * cluster by the engine, NodeClaims launched for what does not fit, then the node deleted. Not when its pods
   * would not all schedule.
   */
  private drift(pool: SimNodePool, t: EpochMs): boolean {
    const hash = this.nodeClassHash.get(pool.nodeClassName);
    const drifted = this.live.filter((n) => n.pool === pool && n.node.nodeClassHash !== hash);
    for (const live of drifted) {
      const blocker = this.blocker(live);
      if (blocker) {
        this.noteBlocked(live, blocker, t);
        continue;
      }
      const { ctx } = this.engine(t);
      const pods = ctx.pods.filter((p) => p.nodeName === live.node.name && isReschedulable(p)).map((p) => ({ ...p, nodeName: null }));
      const plan = provision(ctx, { pods, destinations: ctx.nodes.filter((n) => n.name !== live.node.name) });
      if (plan.unschedulable.length > 0) continue;
      this.emit(live, t, this.karpenter.terminating('Drifted', plan.nodeClaims.length > 0 ? 'Replace' : 'Delete'));
      for (const nc of plan.nodeClaims) {
        const replacement = this.launchChoice(nc.nodePool, nc.launch, t, {
          kind: 'replacement',
          replaces: [live.node.nodeClaimName ?? live.node.name],
          reason: 'Drifted',
        });
        this.emit(replacement, t, [this.karpenter.launching('Drifted')]);
      }
      // the evicted pods are placed by the next provisioning round, where the engine planned them
      this.remove(live, t, 'Drifted');
      return true;
    }
    return false;
  }

  /**
   * One consolidation round by the engine over the given NodePools (the others paused): the command Karpenter
   * would run, carried out. Nodes a do-not-disrupt pod holds get Karpenter's DisruptionBlocked events.
   */
  private consolidate(pools: ReadonlySet<string>, t: EpochMs): boolean {
    // Karpenter considers a node only once its consolidateAfter has passed since its last pod event: when no node of
    // these pools has, the round is known to find nothing (but the do-not-disrupt nodes it reports as blocked)
    const considered = this.live.filter((n) => n.pool !== null && pools.has(n.pool.name));
    if (!considered.some((n) => t - n.lastPodChangeAt >= (parseKarpenterDuration(n.pool?.consolidateAfter ?? 'Never') ?? Infinity))) {
      for (const live of considered) {
        const blocker = this.blocker(live);
        if (blocker) this.noteBlocked(live, blocker, t);
      }
      return false;
    }
    const paused = new Set(this.pools.map((p) => p.name).filter((name) => !pools.has(name)));
    const { ctx } = this.engine(t, paused);
    const outcome = consolidateRound(ctx, provision(ctx), { commandOnly: true });
    for (const v of outcome.unconsolidatable) {
      if (!v.reason.startsWith(`Pod has "${ANNOTATION_DO_NOT_DISRUPT}"`) || !pools.has(v.node.nodePool ?? '')) continue;
      const live = this.liveNamed(v.node.name);
      const blocker = live && this.blocker(live);
      if (live && blocker) this.noteBlocked(live, blocker, t);
    }
    const cmd = outcome.command;
    if (!cmd) return false;
    const victims = cmd.candidates.flatMap((c) => this.liveNamed(c.node.name) ?? []);
    const method = cmd.replacement ? 'Replace' : 'Delete';
    for (const live of victims) this.emit(live, t, this.karpenter.terminating(cmd.reason, method));
    if (cmd.replacement) {
      const replacement = this.launchChoice(cmd.candidates[0].pool.name, cmd.replacement.launch, t, {
        kind: 'replacement',
        replaces: victims.map((v) => v.node.nodeClaimName ?? v.node.name),
        reason: cmd.reason,
      });
      this.emit(replacement, t, [this.karpenter.launching(cmd.reason)]);
    }
    for (const live of victims) {
      this.remove(live, t, cmd.reason);
      if (live.pool) this.lastDisruption.set(live.pool.name, t);
    }
    return true;
  }
}
