import type { CapacityType, DisruptionReason } from '../../core/labels.js';
import { ANNOTATION_DO_NOT_DISRUPT } from '../../core/labels.js';
import { effectiveRequests } from '../../core/pod-requests.js';
import { parseKarpenterDuration } from '../../core/duration.js';
import { Requirements } from '../../core/karpenter/requirements.js';
import { DAY_MS as DAY, HOUR_MS as HOUR, MINUTE_MS as MINUTE } from '../../core/time.js';
import { reservationWithRoom } from './capacity-reservations.js';
import { catalogLabelKeys, loadCatalog } from './catalog.js';
import { karpenterProfile } from './karpenter-profile.js';
import { withinLimits } from './pool-limits.js';
import { shapeForRelease } from './release-shape.js';
import { type EventSpec, karpenterEventWriter, type KarpenterEventWriter } from './karpenter-events.js';
import { Rng } from './rng.js';
import type { ScenarioFile, WorkloadSpec } from './scenario-file.js';
import { SpotPriceIndex, simulateSpotPrices } from './spot-prices.js';
import type { EpochMs, InstanceTypeInfo, Resources, Scenario, SimContainer, SimEvent, SimNode, SimNodePool, SimPod } from './types.js';

/** How long a pool waits after one disruption before the next: keeps the simulated churn near Karpenter's. */
const DISRUPTION_COOLDOWN = 15 * MINUTE;
const BLOCKED_EVENT_EVERY = 6 * HOUR;

interface LiveNode {
  node: SimNode;
  type: InstanceTypeInfo;
  pool: SimNodePool | null;
  free: Resources;
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
  jobEndsAt?: EpochMs;
  ordinal?: number;
}

const fits = (free: Resources, r: Resources) =>
  free.cpuMillicores >= r.cpuMillicores && free.memoryBytes >= r.memoryBytes && free.pods >= r.pods && free.gpu >= r.gpu;
const sub = (a: Resources, b: Resources): Resources => ({
  cpuMillicores: a.cpuMillicores - b.cpuMillicores,
  memoryBytes: a.memoryBytes - b.memoryBytes,
  pods: a.pods - b.pods,
  gpu: a.gpu - b.gpu,
});
const add = (a: Resources, b: Resources): Resources =>
  sub(a, { cpuMillicores: -b.cpuMillicores, memoryBytes: -b.memoryBytes, pods: -b.pods, gpu: -b.gpu });

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
    this.pools = file.nodePools.map((p) => ({ ...p, instanceTypes: this.typesFor(p.requirements) }));
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
    this.workloads = file.workloads.map((spec) => this.makeWorkload(spec));
  }

  /** Instance types a NodePool's requirements admit, cheapest first (capacity-type keys are not instance labels). */
  private typesFor(reqs: SimNodePool['requirements']): string[] {
    const requirements = new Requirements(reqs);
    return [...this.catalog.values()]
      .filter((t) => requirements.admitsInstanceType(t.labels, catalogLabelKeys()))
      .sort((a, b) => a.onDemandUsdPerHour - b.onDemandUsdPerHour || a.name.localeCompare(b.name))
      .map((t) => t.name);
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
    return {
      spec,
      containers,
      initContainers,
      requests: effectiveRequests(containers, initContainers),
      templateHash: this.rng.suffix(9).slice(0, 9),
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
      for (const pool of this.pools) this.disrupt(pool, t);
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
        this.launch(null, m.instanceType, 'on-demand', this.file.zones[i % this.file.zones.length], this.start - 30 * DAY, {
          kind: 'static',
        });
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
    const live: LiveNode = {
      node,
      type,
      pool,
      free: { ...type.allocatableParsed },
      pods: [],
      lastPodChangeAt: t,
      lastBlockedEventAt: -Infinity,
    };
    this.live.push(live);
    for (const ds of this.file.daemonSets) {
      const containers: SimContainer[] = [
        {
          name: ds.name,
          image: `public.ecr.aws/eks/${ds.name}:v1.31.0`,
          resources: { requests: { ...ds.requests } as Record<string, string> },
        },
      ];
      const pod: LivePod = {
        name: `${ds.name}-${this.rng.suffix(5)}`,
        workload: null,
        daemonSet: ds,
        requests: effectiveRequests(containers),
        node: null,
        record: null,
      };
      this.bind(pod, live, t);
    }
    return live;
  }

  private remove(live: LiveNode, t: EpochMs, reason: DisruptionReason | null): LivePod[] {
    live.node.deletedAt = t;
    live.node.deletionReason = reason;
    this.live.splice(this.live.indexOf(live), 1);
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
    return { name, workload: w, requests: w.requests, node: null, record: null, ordinal };
  }

  private touch(pool: SimNodePool | null): void {
    if (pool) this.poolVersion.set(pool.name, (this.poolVersion.get(pool.name) ?? 0) + 1);
  }

  private bind(pod: LivePod, live: LiveNode, t: EpochMs): void {
    this.touch(live.pool);
    pod.node = live;
    live.pods.push(pod);
    live.free = sub(live.free, pod.requests);
    live.lastPodChangeAt = t;
    const w = pod.workload;
    const ds = pod.daemonSet;
    const namespace = w ? w.spec.namespace : (ds?.namespace ?? 'kube-system');
    const ownerKind: SimPod['ownerKind'] = w ? (w.spec.kind === 'Deployment' ? 'ReplicaSet' : w.spec.kind) : 'DaemonSet';
    const ownerName = w ? (w.spec.kind === 'Deployment' ? `${w.spec.name}-${w.templateHash}` : w.spec.name) : (ds?.name ?? '');
    const appName = w ? w.spec.name : (ds?.name ?? '');
    const selector: Record<string, string> = {};
    const tolerations: SimPod['tolerations'] = [];
    if (w && w.spec.target !== 'managed') selector['karpenter.sh/nodepool'] = w.spec.target;
    if (w?.spec.capacityType) selector['karpenter.sh/capacity-type'] = w.spec.capacityType;
    if (w && w.spec.target === 'managed') selector['eks.amazonaws.com/nodegroup'] = 'karpenter-mng';
    for (const taint of live.pool?.taints ?? [])
      tolerations.push({ key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect });
    if (!w) tolerations.push({ key: '', operator: 'Exists' });
    pod.record = {
      uid: this.rng.uuid(),
      namespace,
      name: pod.name,
      ownerKind,
      ownerName,
      labels: {
        app: appName,
        ...(w?.spec.labels ?? {}),
        ...(w?.spec.kind === 'Deployment' ? { 'pod-template-hash': w.templateHash } : {}),
      },
      annotations: w?.spec.doNotDisrupt ? { [ANNOTATION_DO_NOT_DISRUPT]: 'true' } : {},
      containers: w
        ? w.containers
        : [
            {
              name: appName,
              image: `public.ecr.aws/eks/${appName}:v1.31.0`,
              resources: { requests: { ...(ds?.requests ?? {}) } as Record<string, string> },
            },
          ],
      initContainers: w ? w.initContainers : [],
      nodeSelector: selector,
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
    live.free = add(live.free, pod.requests);
    live.lastPodChangeAt = t;
    if (pod.record) {
      pod.record.deletedAt = t;
      pod.record.endPhase = phase;
    }
    pod.node = null;
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

  // ---- scheduling and provisioning -----------------------------------------------------------------------------

  private accepts(live: LiveNode, pod: LivePod): boolean {
    const w = pod.workload;
    if (!w) return false;
    if (w.spec.target === 'managed') return live.pool === null;
    if (live.pool?.name !== w.spec.target) return false;
    return !w.spec.capacityType || w.spec.capacityType === live.node.capacityType;
  }

  private schedulePending(t: EpochMs): void {
    const pending = this.workloads
      .flatMap((w) => w.pods.filter((p) => p.node === null))
      .sort((a, b) => b.requests.cpuMillicores - a.requests.cpuMillicores || a.name.localeCompare(b.name));
    const unplaced: LivePod[] = [];
    for (const pod of pending) {
      // Most-allocated first: pack nodes the way the scheduler's bin-packing profile would.
      const target = this.live
        .filter((n) => this.accepts(n, pod) && fits(n.free, pod.requests))
        .sort((a, b) => a.free.cpuMillicores - b.free.cpuMillicores || a.node.name.localeCompare(b.node.name))[0];
      if (target) this.bind(pod, target, t);
      else unplaced.push(pod);
    }
    this.provision(unplaced, t);
  }

  /** A capacity reservation with room for `type` now (scenario-file capacityReservations). */
  private reservationFor(type: string) {
    return reservationWithRoom(
      this.file.capacityReservations ?? [],
      type,
      this.live.map((n) => n.node),
    );
  }

  /**
   * Price of a new node of `type` and where Karpenter would put it (a reservation with room, billed at the on-demand
   * rate; the lowest spot price zone; or round-robin). No offer (Infinity) for reserved capacity without room.
   */
  private offer(type: string, capacityType: CapacityType, t: EpochMs): { usd: number; zone: string } {
    if (capacityType === 'reserved') {
      const r = this.reservationFor(type);
      return r ? { usd: this.onDemand[type], zone: r.zone } : { usd: Infinity, zone: this.file.zones[0] };
    }
    if (capacityType === 'on-demand')
      return { usd: this.onDemand[type], zone: this.file.zones[this.nodes.length % this.file.zones.length] };
    let best = { usd: Infinity, zone: this.file.zones[0] };
    for (const zone of this.file.zones) {
      const p = this.spot.priceAt(type, zone, t);
      if (p !== null && p < best.usd) best = { usd: p, zone };
    }
    return best;
  }

  private daemonSetOverhead: Resources | null = null;

  /** Free capacity of an empty node of `type` once its DaemonSet pods run. */
  private emptyCapacity(type: InstanceTypeInfo): Resources {
    if (!this.daemonSetOverhead) {
      this.daemonSetOverhead = { cpuMillicores: 0, memoryBytes: 0, pods: 0, gpu: 0 };
      for (const ds of this.file.daemonSets)
        this.daemonSetOverhead = add(
          this.daemonSetOverhead,
          effectiveRequests([{ resources: { requests: { ...ds.requests } as Record<string, string> } }]),
        );
    }
    return sub(type.allocatableParsed, this.daemonSetOverhead);
  }

  /** How many of `pods` (sorted big first) one empty node of `type` holds, first-fit. */
  private packInto(type: InstanceTypeInfo, pods: LivePod[]): LivePod[] {
    let free = this.emptyCapacity(type);
    const taken: LivePod[] = [];
    for (const p of pods) {
      if (fits(free, p.requests)) {
        free = sub(free, p.requests);
        taken.push(p);
      }
    }
    return taken;
  }

  private chooseType(pool: SimNodePool, capacityType: CapacityType, pods: LivePod[], t: EpochMs, cheaperThan = Infinity) {
    const running = this.live.filter((n) => n.pool === pool).map((n) => n.type);
    let best: { type: InstanceTypeInfo; usd: number; zone: string; taken: LivePod[] } | null = null;
    for (const name of pool.instanceTypes) {
      const type = this.catalog.get(name);
      if (!type) continue;
      if (!withinLimits(pool.limits, running, type)) continue;
      const { usd, zone } = this.offer(name, capacityType, t);
      if (!(usd < cheaperThan)) continue;
      const taken = this.packInto(type, pods);
      if (taken.length === 0) continue;
      // Prefer the type that takes the most pods, then the cheapest: Karpenter launches for all it can.
      if (!best || taken.length > best.taken.length || (taken.length === best.taken.length && usd < best.usd))
        best = { type, usd, zone, taken };
    }
    return best;
  }

  private provision(pods: LivePod[], t: EpochMs): void {
    const groups = new Map<string, LivePod[]>();
    for (const p of pods) {
      const w = p.workload;
      if (!w || w.spec.target === 'managed') continue;
      const key = `${w.spec.target}|${w.spec.capacityType ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    for (const [key, group] of groups) {
      const [poolName, constraint] = key.split('|');
      const pool = this.pools.find((p) => p.name === poolName);
      if (!pool) continue;
      const fallback: CapacityType = constraint === 'on-demand' ? 'on-demand' : pool.capacityTypes.includes('spot') ? 'spot' : 'on-demand';
      // Karpenter launches into a capacity reservation first when the NodePool and the pods allow `reserved`.
      const order: CapacityType[] = constraint === '' && pool.capacityTypes.includes('reserved') ? ['reserved', fallback] : [fallback];
      let remaining = group;
      while (remaining.length > 0) {
        let capacityType: CapacityType = fallback;
        let choice: ReturnType<Simulation['chooseType']> = null;
        for (const ct of order) {
          choice = this.chooseType(pool, ct, remaining, t);
          capacityType = ct;
          if (choice) break;
        }
        if (!choice) break; // over the NodePool's limits: the pods stay pending
        const live = this.launch(pool, choice.type.name, capacityType, choice.zone, t, {
          kind: 'pending-pods',
          podNames: choice.taken.map((p) => p.name),
        });
        for (const p of choice.taken) this.bind(p, live, t);
        remaining = remaining.filter((p) => !choice.taken.includes(p));
      }
    }
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

  private disrupt(pool: SimNodePool, t: EpochMs): void {
    if (t - (this.lastDisruption.get(pool.name) ?? -Infinity) < DISRUPTION_COOLDOWN) return;
    // Nothing changed since a fruitless look (spot prices aside, which an hourly look catches): skip the work.
    const version = this.poolVersion.get(pool.name) ?? 0;
    const seen = this.evaluatedAt.get(pool.name);
    if (seen && seen.version === version && t - seen.at < HOUR && !this.driftPending(pool)) return;
    if (this.drift(pool, t) || this.consolidate(pool, t)) this.lastDisruption.set(pool.name, t);
    else this.evaluatedAt.set(pool.name, { version: this.poolVersion.get(pool.name) ?? 0, at: t });
  }

  private driftPending(pool: SimNodePool): boolean {
    const hash = this.nodeClassHash.get(pool.nodeClassName);
    return this.live.some((n) => n.pool === pool && n.node.nodeClassHash !== hash && !this.blocker(n));
  }

  private drift(pool: SimNodePool, t: EpochMs): boolean {
    const hash = this.nodeClassHash.get(pool.nodeClassName);
    const drifted = this.live.filter((n) => n.pool === pool && n.node.nodeClassHash !== hash);
    for (const live of drifted) {
      const blocker = this.blocker(live);
      if (blocker) {
        this.noteBlocked(live, blocker, t);
        continue;
      }
      this.replace(live, 'Drifted', t, Infinity);
      return true;
    }
    return false;
  }

  private replace(live: LiveNode, reason: DisruptionReason, t: EpochMs, cheaperThan: number): boolean {
    const pool = live.pool;
    if (!pool) return false;
    const pods = live.pods.filter((p) => p.workload).sort((a, b) => b.requests.cpuMillicores - a.requests.cpuMillicores);
    let capacityType = live.node.capacityType;
    let choice = this.chooseType(pool, capacityType, pods, t, cheaperThan);
    // No room left in the reservation (the node being replaced still holds its slot): on-demand, as Karpenter falls back.
    if (!choice && capacityType === 'reserved') choice = this.chooseType(pool, (capacityType = 'on-demand'), pods, t, cheaperThan);
    if (!choice || choice.taken.length < pods.length) return false;
    this.emit(live, t, this.karpenter.terminating(reason, 'Replace'));
    const replacement = this.launch(pool, choice.type.name, capacityType, choice.zone, t, {
      kind: 'replacement',
      replaces: [live.node.nodeClaimName ?? live.node.name],
      reason,
    });
    this.emit(replacement, t, [this.karpenter.launching(reason)]);
    for (const p of this.remove(live, t, reason)) this.bind(p, replacement, t);
    return true;
  }

  private currentPrice(live: LiveNode, t: EpochMs): number {
    if (live.node.capacityType === 'spot')
      return this.spot.priceAt(live.node.instanceType, live.node.zone, t) ?? this.onDemand[live.node.instanceType];
    return this.onDemand[live.node.instanceType];
  }

  private consolidate(pool: SimNodePool, t: EpochMs): boolean {
    if (pool.consolidationPolicy !== 'WhenEmptyOrUnderutilized' && pool.consolidationPolicy !== 'WhenEmpty') return false;
    const after = parseKarpenterDuration(pool.consolidateAfter) ?? 0;
    const nodes = this.live.filter((n) => n.pool === pool);
    const candidates = nodes.filter((n) => t - n.lastPodChangeAt >= after);
    const budget = Math.max(1, budgetNodes(pool.budgets[0]?.nodes ?? '10%', nodes.length));
    const empty = candidates.filter((n) => n.pods.every((p) => !p.workload)).slice(0, budget);
    for (const live of empty) {
      this.emit(live, t, this.karpenter.terminating('Empty', 'Delete'));
      this.remove(live, t, 'Empty');
    }
    if (empty.length > 0) return true;
    if (pool.consolidationPolicy === 'WhenEmpty') return false;
    const ordered = candidates
      .map((n) => ({ n, load: n.pods.filter((p) => p.workload).length }))
      .sort((a, b) => a.load - b.load || b.n.free.cpuMillicores - a.n.free.cpuMillicores || a.n.node.name.localeCompare(b.n.node.name))
      .map((x) => x.n);
    for (const live of ordered.slice(0, 6)) {
      const blocker = this.blocker(live);
      if (blocker) {
        this.noteBlocked(live, blocker, t);
        continue;
      }
      const placement = this.placeElsewhere(live);
      if (placement) {
        this.emit(live, t, this.karpenter.terminating('Underutilized', 'Delete'));
        const moved = this.remove(live, t, 'Underutilized');
        moved.forEach((p, i) => this.bind(p, placement[i], t));
        return true;
      }
      // Replace with a cheaper node; spot-to-spot only where many cheaper types exist, as Karpenter requires.
      const price = this.currentPrice(live, t);
      if (live.node.capacityType === 'spot' && pool.instanceTypes.filter((n) => this.offer(n, 'spot', t).usd < price).length < 15) continue;
      if (this.replace(live, 'Underutilized', t, price * 0.98)) return true;
    }
    return false;
  }

  /** Targets for each workload pod of `live` on the pool's other nodes, or null when they do not all fit. */
  private placeElsewhere(live: LiveNode): LiveNode[] | null {
    const pods = live.pods.filter((p) => p.workload).sort((a, b) => b.requests.cpuMillicores - a.requests.cpuMillicores);
    const others = this.live.filter((n) => n !== live && n.pool === live.pool);
    const free = new Map(others.map((n) => [n, { ...n.free }]));
    const targets: LiveNode[] = [];
    for (const p of pods) {
      const target = others
        .filter((n) => this.accepts(n, p) && fits(free.get(n) ?? n.free, p.requests))
        .sort((a, b) => (free.get(a)?.cpuMillicores ?? 0) - (free.get(b)?.cpuMillicores ?? 0))[0];
      if (!target) return null;
      free.set(target, sub(free.get(target) ?? target.free, p.requests));
      targets.push(target);
    }
    // remove() re-creates pods in the node's pod order; map targets onto that order.
    const order = live.pods.filter((p) => p.workload);
    return order.map((p) => targets[pods.indexOf(p)]);
  }
}

function budgetNodes(spec: string, total: number): number {
  return spec.endsWith('%') ? Math.floor((Number(spec.slice(0, -1)) / 100) * total) : Number(spec);
}
