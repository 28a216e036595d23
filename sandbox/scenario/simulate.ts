import type { CapacityType, DisruptionReason } from '../../core/labels.js';
import { effectiveRequests } from '../../core/pod-requests.js';
import { parseKarpenterDuration } from '../../core/duration.js';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import {
  consolidate as consolidateRound,
  type ConsolidationOutcome,
  type EngineContext,
  evictionCost,
  isReschedulable,
  type KubeCSINode,
  type KubeEC2NodeClass,
  type KubeNode,
  type KubePersistentVolume,
  type KubePersistentVolumeClaim,
  type KubePod,
  type KubePodDisruptionBudget,
  type KubeVolume,
  nodePrice,
  prepare,
  provision,
  type ProvisioningOutcome,
  type SchedPod,
} from '../../core/karpenter/scheduling/index.js';
import type { LaunchChoice } from '../../core/karpenter/scheduling/launch.js';
import { ANNOTATION_DO_NOT_DISRUPT, LABEL_CAPACITY_TYPE } from '../../core/labels.js';
import { DAY_MS as DAY, HOUR_MS as HOUR, MINUTE_MS as MINUTE } from '../../core/time.js';
import { approvedMessage, type BalancedScore, balancedScore } from './balanced-score.js';
import { reservationWithRoom } from './capacity-reservations.js';
import { loadCatalog } from './catalog.js';
import {
  admittedTypes,
  daemonSetMatcher,
  DomainSourceCache,
  kubeNode,
  kubeNodePool,
  nodeLabels,
  PricedCatalogue,
} from './engine-cluster.js';
import { karpenterProfile, type KarpenterProfile } from './karpenter-profile.js';
import { shapeForRelease } from './release-shape.js';
import { type EventSpec, karpenterEventWriter, type KarpenterEventWriter } from './karpenter-events.js';
import { DEFAULT_AMI_ALIAS, nodeClassObject } from './node-classes.js';
import { pdbObject, pdbStatus } from './pdb-status.js';
import { claimVolumes, daemonSetTemplate, kubePodOf, type PodShape, workloadTemplate } from './pod-templates.js';
import { Rng } from './rng.js';
import { uidFor } from './uid.js';
import { type DaemonSetSpec, parseCronSchedule, type ScenarioFile, type WorkloadSpec } from './scenario-file.js';
import { SpotPriceIndex, simulateSpotPrices } from './spot-prices.js';
import { claimObject, csiNodeObject, ebsAttachLimit, storageClasses, volumeObject } from './storage.js';
import {
  type EpochMs,
  type InstanceTypeInfo,
  type Resources,
  type Scenario,
  type SimEvent,
  type SimJob,
  type SimNode,
  type SimNodeClass,
  type SimNodePool,
  type SimPod,
  type SimPodDisruptionBudget,
  type SimVolumeClaim,
  type SimWorkload,
  workloadKey,
} from './types.js';

/** When the cluster's long-lived objects (namespaces, NodePools, classes, controllers) were made: a month before. */
const CLUSTER_AGE = 30 * DAY;
/** ttlSecondsAfterFinished of Jobs a scenario makes from a Job template (their pods stay listed that long). */
const DEFAULT_JOB_TTL_SECONDS = 600;

/** How long a pool waits after one disruption before the next: keeps the simulated churn near Karpenter's. */
const DISRUPTION_COOLDOWN = 15 * MINUTE;
/**
 * How long a pool waits after a consolidation round that found nothing before the next look (unless a drift is
 * pending). Karpenter looks again within seconds of a change; the sandbox's clock moves in 5-minute steps and a
 * round of the engine evaluates every candidate, so a pool is looked at every 15 simulated minutes at most.
 */
const LOOK_INTERVAL = 15 * MINUTE;
const BLOCKED_EVENT_EVERY = 6 * HOUR;
/** Rounds retried without a Balanced NodePool's rejected candidates before the round gives up. */
const MAX_BALANCED_RETRIES = 8;
/**
 * Engine verdicts Karpenter publishes as DisruptionBlocked (candidate validation, budgets) or as no event at all
 * (an error it logs), not as Unconsolidatable.
 */
const heldNode = (k: KubeNode): KubeNode => ({
  ...k,
  metadata: { ...k.metadata, annotations: { ...(k.metadata?.annotations ?? {}), [ANNOTATION_DO_NOT_DISRUPT]: 'true' } },
});
const BLOCKED_NOT_UNCONSOLIDATABLE =
  /^(Node is nominated|Node isn't|NodePool not found|Disruption is blocked|Pod has "|Pdb prevents|Eviction does not support|No allowed disruptions|Would schedule against uninitialized)/;

interface LiveNode {
  node: SimNode;
  type: InstanceTypeInfo;
  pool: SimNodePool | null;
  /** The Node object the engine reads (rebuilt when it is cordoned or disrupted). */
  kube: KubeNode;
  /** What it was built from, for rebuilding. */
  kubeInput: Parameters<typeof kubeNode>[0];
  csiNode: KubeCSINode;
  pods: LivePod[];
  /** Finished pods still listed on it: pod garbage collection removes them with the node. */
  finished: SimPod[];
  daemonSets: DaemonSetState[];
  lastPodChangeAt: EpochMs;
  lastBlockedEventAt: EpochMs;
  /** Disrupted by Karpenter: tainted and drained, its instance terminated at this time (the next step). */
  terminateAt: EpochMs | null;
}

interface DaemonSetState {
  spec: DaemonSetSpec;
  shape: PodShape;
  requests: Resources;
  /** Nodes it runs on, from each time on. */
  scheduled: { at: EpochMs; count: number }[];
}

interface Workload {
  spec: WorkloadSpec;
  requests: Resources;
  templateHash: string;
  shape: PodShape;
  /** Live and pending pods, oldest first. */
  pods: LivePod[];
  noiseHour: number;
  noise: number;
  /** Deployment / StatefulSet: spec.replicas from each time on. */
  replicas: { at: EpochMs; replicas: number }[];
  /** CronJob: its finished Jobs, oldest first, kept up to the history limits. */
  succeeded: SimJob[];
  failed: SimJob[];
}

interface LivePod {
  name: string;
  workload: Workload | null; // null: a DaemonSet pod
  daemonSet?: DaemonSetState;
  requests: Resources;
  node: LiveNode | null;
  record: SimPod | null;
  createdAt: EpochMs;
  /** Its owner's name: the ReplicaSet, StatefulSet, Job or DaemonSet. */
  ownerName: string;
  /** The Pod object the engine reads, while its binding holds. */
  kube?: KubePod;
  jobEndsAt?: EpochMs;
  /** The Job it belongs to, and whether it ends Failed. */
  job?: SimJob;
  fails?: boolean;
  ordinal?: number;
  /** A StatefulSet pod's claims. */
  volumes: KubeVolume[];
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
  private readonly staticPools: SimNodePool[];
  private readonly lastUnconsolidatable = new Map<string, { message: string; at: EpochMs }>();
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
  private readonly daemonSets: DaemonSetState[];
  /** The DaemonSets' pod templates, as the engine reads them (one array, so the engine reuses its templates). */
  private readonly daemonTemplates: KubePod[];
  private readonly daemonsOn: ReturnType<typeof daemonSetMatcher>;
  private readonly jobs: SimJob[] = [];
  /** Finished pods of each Job (listed until the Job is deleted). */
  private readonly jobRecords = new Map<SimJob, SimPod[]>();
  private readonly pdbs: SimPodDisruptionBudget[];
  private readonly claims = new Map<string, SimVolumeClaim>();
  private claimsVersion = 0;
  private volumeObjects: { version: number; claims: KubePersistentVolumeClaim[]; volumes: KubePersistentVolume[] } | null = null;
  private readonly storageClassObjects;
  private readonly nodeClasses: SimNodeClass[];
  private nodeClassObjects: { generation: string; objects: KubeEC2NodeClass[] } | null = null;
  private readonly namespaceObjects: { metadata: { name: string; labels: Record<string, string> } }[];
  private readonly uncordons: { at: EpochMs; live: LiveNode }[] = [];
  private readonly domainSources = new DomainSourceCache();
  private ipCounter = 10;
  /** What the imitated Karpenter release writes (karpenterVersion of the scenario file, else the current release). */
  private readonly karpenterVersion: string;
  private readonly profile: KarpenterProfile;
  private readonly karpenter: KarpenterEventWriter;

  constructor(
    private readonly file: ScenarioFile,
    private readonly seed: number,
  ) {
    this.rng = new Rng(seed);
    this.profile = karpenterProfile(file.karpenterVersion);
    this.karpenterVersion = this.profile.version;
    this.karpenter = karpenterEventWriter(this.profile);
    this.start = Date.parse(file.start);
    this.end = this.start + file.days * DAY;
    this.step = file.stepMinutes * MINUTE;
    for (const t of this.catalog.values()) this.onDemand[t.name] = t.onDemandUsdPerHour;
    const data = loadInstanceCatalog();
    const onDemand = new Map(Object.entries(this.onDemand));
    // A static NodePool (served scaled to zero) takes no part in provisioning or consolidation.
    const dynamic = file.nodePools.filter((p) => p.replicas === undefined);
    const admitted = admittedTypes(dynamic, data, file.region, file.zones, onDemand);
    this.pools = dynamic.map((p) => ({ ...p, instanceTypes: admitted.get(p.name) ?? [] }));
    this.staticPools = file.nodePools.filter((p) => p.replicas !== undefined).map((p) => ({ ...p, instanceTypes: [] }));
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
    this.daemonSets = file.daemonSets.map((ds) => {
      const template = daemonSetTemplate(ds);
      return {
        spec: ds,
        shape: {
          ...template,
          namespace: ds.namespace,
          ownerKind: 'DaemonSet',
          ownerName: ds.name,
          workloadKey: workloadKey('DaemonSet', ds.namespace, ds.name),
        },
        requests: effectiveRequests(template.containers),
        scheduled: [],
      };
    });
    this.daemonTemplates = this.daemonSets.map((ds) =>
      kubePodOf(ds.shape, {
        name: ds.spec.name,
        uid: `${ds.spec.namespace}/${ds.spec.name}`,
        createdAt: this.start,
        startedAt: null,
        ownerName: ds.spec.name,
        nodeName: null,
        volumes: [],
      }),
    );
    this.daemonsOn = daemonSetMatcher(this.daemonTemplates);
    this.workloads = file.workloads.map((spec) => this.makeWorkload(spec));
    this.pdbs = (file.podDisruptionBudgets ?? []).map((b) => {
      const owner = this.workloads.find(
        (w) => w.spec.namespace === b.namespace && Object.entries(b.matchLabels).every(([k, v]) => w.shape.labels[k] === v),
      );
      return {
        namespace: b.namespace,
        name: b.name,
        matchLabels: { ...b.matchLabels },
        ...(b.minAvailable !== undefined ? { minAvailable: b.minAvailable } : {}),
        ...(b.maxUnavailable !== undefined ? { maxUnavailable: b.maxUnavailable } : {}),
        workload: owner ? owner.shape.workloadKey : '',
        createdAt: this.start - CLUSTER_AGE,
      };
    });
    this.storageClassObjects = storageClasses(this.start - CLUSTER_AGE);
    this.nodeClasses = this.makeNodeClasses();
    this.namespaceObjects = file.namespaces.map((ns) => ({ metadata: { name: ns.name, labels: { ...ns.labels } } }));
  }

  /** The EC2NodeClasses the NodePools name (and the file describes): AMI alias, hash, reservations selected. */
  private makeNodeClasses(): SimNodeClass[] {
    const names = [...new Set([...this.pools.map((p) => p.nodeClassName), ...(this.file.nodeClasses ?? []).map((c) => c.name)])].sort();
    const reservations = this.file.capacityReservations ?? [];
    return names.map((name) => {
      const spec = this.file.nodeClasses?.find((c) => c.name === name);
      const reserves = this.pools.some((p) => p.nodeClassName === name && p.capacityTypes.includes('reserved'));
      return {
        name,
        amiAliases: [
          { at: this.start - CLUSTER_AGE, alias: spec?.amiAlias ?? DEFAULT_AMI_ALIAS, hash: this.nodeClassHash.get(name) ?? '' },
        ],
        capacityReservationIds: spec?.capacityReservationIds ?? (reserves ? reservations.map((r) => r.id) : []),
      };
    });
  }

  private makeWorkload(spec: WorkloadSpec): Workload {
    const templateHash = this.rng.suffix(9).slice(0, 9);
    const pool = this.file.nodePools.find((p) => p.name === spec.target);
    const template = workloadTemplate(spec, pool, this.karpenterVersion, spec.kind === 'Deployment' ? templateHash : null);
    const ownerKind: SimPod['ownerKind'] = spec.kind === 'Deployment' ? 'ReplicaSet' : spec.kind === 'StatefulSet' ? 'StatefulSet' : 'Job';
    const shape: PodShape = {
      ...template,
      namespace: spec.namespace,
      ownerKind,
      ownerName: spec.kind === 'Deployment' ? `${spec.name}-${templateHash}` : spec.name,
      workloadKey: workloadKey(spec.kind, spec.namespace, spec.name),
    };
    return {
      spec,
      requests: effectiveRequests(template.containers, template.initContainers),
      templateHash,
      shape,
      pods: [],
      noiseHour: -1,
      noise: 0,
      replicas: [],
      succeeded: [],
      failed: [],
    };
  }

  run(): Scenario {
    this.launchManagedNodes();
    for (let t = this.start; t < this.end; t += this.step) {
      this.reap(t);
      this.incidents(t);
      for (const w of this.workloads) this.reconcile(w, t);
      this.schedulePending(t);
      this.disrupt(t);
      this.schedulePending(t);
    }
    this.reap(this.end);
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
      nodePools: this.file.nodePools.flatMap((f) => [...this.pools, ...this.staticPools].filter((p) => p.name === f.name)),
      namespaces: this.file.namespaces,
      nodes: this.nodes,
      pods: this.pods.sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name)),
      events: this.events.sort((a, b) => a.at - b.at),
      spotPrices: this.spotPoints,
      onDemandUsdPerHour: Object.fromEntries(Object.entries(this.onDemand).filter(([t]) => this.usedOrAllowed(t))),
      workloads: this.simWorkloads(),
      jobs: this.jobs,
      podDisruptionBudgets: this.pdbs,
      volumeClaims: [...this.claims.values()].sort((a, b) => (a.namespace + a.name).localeCompare(b.namespace + b.name)),
      nodeClasses: this.nodeClasses,
      capacityReservations: this.file.capacityReservations ?? [],
      ...(this.file.nodeOverlays?.length ? { nodeOverlays: this.file.nodeOverlays } : {}),
    };
  }

  /** The controllers as the API serves them. */
  private simWorkloads(): SimWorkload[] {
    const template = (shape: PodShape) => {
      const { namespace: _n, ownerKind: _k, ownerName: _o, workloadKey: _w, ...rest } = shape;
      return rest;
    };
    const out: SimWorkload[] = this.daemonSets.map((ds) => ({
      kind: 'DaemonSet',
      namespace: ds.spec.namespace,
      name: ds.spec.name,
      createdAt: this.start - CLUSTER_AGE,
      template: template(ds.shape),
      scheduled: ds.scheduled,
    }));
    for (const w of this.workloads) {
      out.push({
        kind: w.spec.kind,
        namespace: w.spec.namespace,
        name: w.spec.name,
        createdAt: this.start - CLUSTER_AGE,
        template: template(w.shape),
        ...(w.spec.kind === 'Deployment' || w.spec.kind === 'StatefulSet' ? { replicas: w.replicas } : {}),
        ...(w.spec.kind === 'Deployment' ? { templateHash: w.templateHash } : {}),
        ...(w.spec.volumeClaimTemplates ? { volumeClaimTemplates: w.spec.volumeClaimTemplates } : {}),
        ...(w.spec.cron
          ? {
              cron: {
                schedule: w.spec.cron.schedule,
                successfulJobsHistoryLimit: w.spec.cron.successfulJobsHistoryLimit,
                failedJobsHistoryLimit: w.spec.cron.failedJobsHistoryLimit,
              },
            }
          : {}),
      });
    }
    return out;
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
    const kubeInput = {
      name: node.name,
      labels,
      taints: pool?.taints ?? [],
      createdAt: t,
      allocatable: type.allocatable,
      capacity: this.prices.capacity(typeName),
    };
    const live: LiveNode = {
      node,
      type,
      pool,
      kube: kubeNode(kubeInput),
      kubeInput,
      csiNode: csiNodeObject(node, ebsAttachLimit({ labels: type.labels, vcpu: type.vcpu })),
      pods: [],
      finished: [],
      daemonSets: [],
      lastPodChangeAt: t,
      lastBlockedEventAt: -Infinity,
      terminateAt: null,
    };
    this.live.push(live);
    this.touch(pool);
    // the DaemonSet controller runs a pod of each DaemonSet whose node selection and tolerations admit the node
    const runs = this.daemonsOn(labels, kubeInput.taints);
    this.daemonSets.forEach((ds, i) => {
      if (!runs[i]) return;
      live.daemonSets.push(ds);
      this.countDaemonSet(ds, t, +1);
      const pod: LivePod = {
        name: `${ds.spec.name}-${this.rng.suffix(5)}`,
        workload: null,
        daemonSet: ds,
        requests: ds.requests,
        node: null,
        record: null,
        createdAt: t,
        ownerName: ds.spec.name,
        volumes: [],
      };
      this.bind(pod, live, t);
    });
    return live;
  }

  private countDaemonSet(ds: DaemonSetState, t: EpochMs, delta: number): void {
    const last = ds.scheduled[ds.scheduled.length - 1];
    const count = (last?.count ?? 0) + delta;
    if (last && last.at === t) last.count = count;
    else ds.scheduled.push({ at: t, count });
  }

  /** The node object the engine reads, after a change of its cordon or disruption. */
  private rebuildKube(live: LiveNode): void {
    live.kube = kubeNode({
      ...live.kubeInput,
      cordoned: live.node.cordoned !== undefined && live.node.cordoned.until === null,
      ...(live.node.disruptedAt !== undefined ? { disruptedAt: live.node.disruptedAt } : {}),
    });
  }

  /** Gone at t: its pods unbound (the controllers make new ones for evicted pods), its finished pods garbage-collected. */
  private remove(live: LiveNode, t: EpochMs, reason: DisruptionReason | null): LivePod[] {
    live.node.deletedAt = t;
    live.node.deletionReason = reason;
    this.live.splice(this.live.indexOf(live), 1);
    this.touch(live.pool);
    for (const ds of live.daemonSets) this.countDaemonSet(ds, t, -1);
    for (const rec of live.finished) if (rec.listedUntil === null || (rec.listedUntil ?? Infinity) > t) rec.listedUntil = t;
    return this.evict(live, t, false);
  }

  /** Unbinds the node's pods; a controller makes a new pod for each evicted one (a StatefulSet keeps the name). */
  private evict(live: LiveNode, t: EpochMs, keepDaemons: boolean): LivePod[] {
    const evicted: LivePod[] = [];
    for (const pod of [...live.pods]) {
      if (keepDaemons && !pod.workload) continue;
      this.unbind(pod, t);
      if (pod.workload) {
        const replacement = this.newPod(pod.workload, t, pod.ordinal, pod.job);
        replacement.jobEndsAt = pod.jobEndsAt;
        replacement.fails = pod.fails;
        pod.workload.pods.splice(pod.workload.pods.indexOf(pod), 1, replacement);
        evicted.push(replacement);
      }
    }
    return evicted;
  }

  /**
   * Karpenter disrupts the node at t: taints it karpenter.sh/disrupted:NoSchedule, deletes its NodeClaim and drains
   * it (the controllers remake the evicted pods at once); its DaemonSet pods run until the instance terminates at the
   * next step, when reap() removes it. Meanwhile the engine sees it tainted and being deleted: no destination, not a
   * candidate, counted against its NodePool's disruption budget.
   */
  private disruptNode(live: LiveNode, t: EpochMs, reason: DisruptionReason): void {
    live.node.disruptedAt = t;
    live.node.deletionReason = reason;
    live.terminateAt = t + this.step;
    this.rebuildKube(live);
    this.touch(live.pool);
    this.evict(live, t, true);
  }

  /** Removes the disrupted nodes whose instances have terminated by t. */
  private reap(t: EpochMs): void {
    for (const live of this.live.filter((n) => n.terminateAt !== null && n.terminateAt <= t)) {
      this.remove(live, live.terminateAt ?? t, live.node.deletionReason);
    }
    for (const u of this.uncordons.filter((x) => x.at <= t)) {
      this.uncordons.splice(this.uncordons.indexOf(u), 1);
      const c = u.live.node.cordoned;
      if (!c || c.until !== null || u.live.node.deletedAt !== null) continue;
      c.until = t;
      this.rebuildKube(u.live);
      this.touch(u.live.pool);
    }
  }

  /**
   * Events on the node and its NodeClaim, as the imitated release writes them (karpenter-events.ts). `ownUid`: the
   * event's uid derived from what it says rather than drawn from the seed's stream, for the kinds of event one
   * release writes and another does not, so that writing them leaves every later draw (and the history) as it is.
   */
  private emit(live: LiveNode, t: EpochMs, specs: readonly EventSpec[], ownUid = false): void {
    for (const e of specs) {
      const name = e.object === 'Node' ? live.node.name : live.node.nodeClaimName;
      if (name !== null) this.event(t, { kind: e.object, name }, e.reason, e.message, e.type, ownUid);
    }
  }

  private event(
    t: EpochMs,
    involvedObject: SimEvent['involvedObject'],
    reason: string,
    message: string,
    type: SimEvent['type'] = 'Normal',
    ownUid = false,
  ): void {
    const uid = ownUid ? uidFor('Event', `${involvedObject.kind}/${involvedObject.name}/${reason}/${t}`) : this.rng.uuid();
    this.events.push({ uid, at: t, type, reason, message, involvedObject });
  }

  // ---- pods ----------------------------------------------------------------------------------------------------

  private newPod(w: Workload, t: EpochMs, ordinal?: number, job?: SimJob): LivePod {
    let name: string;
    let ownerName = w.shape.ownerName;
    if (w.spec.kind === 'StatefulSet') name = `${w.spec.name}-${ordinal ?? 0}`;
    else if (job) {
      name = `${job.name}-${this.rng.suffix(5)}`;
      ownerName = job.name;
      job.pods.push(name);
    } else name = `${w.spec.name}-${w.templateHash}-${this.rng.suffix(5)}`;
    const volumes = w.spec.volumeClaimTemplates ? claimVolumes(w.spec.volumeClaimTemplates, name) : [];
    for (const tpl of w.spec.volumeClaimTemplates ?? []) this.claimFor(w, `${tpl.name}-${name}`, tpl, t);
    return { name, workload: w, requests: w.requests, node: null, record: null, createdAt: t, ordinal, ownerName, job, volumes };
  }

  /** A StatefulSet's claim, made with its first pod (the controller creates the PVC before the pod). */
  private claimFor(w: Workload, name: string, tpl: { storageClassName: string; storage: string }, t: EpochMs): void {
    const key = `${w.spec.namespace}/${name}`;
    if (this.claims.has(key)) return;
    this.claims.set(key, {
      namespace: w.spec.namespace,
      name,
      storageClassName: tpl.storageClassName,
      storage: tpl.storage,
      createdAt: t,
      volumeName: `pvc-${this.rng.uuid()}`,
      volumeId: `vol-0${this.rng.hex(16)}`,
      boundAt: null,
      zone: null,
    });
    this.claimsVersion += 1;
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
    const shape = pod.workload ? pod.workload.shape : (pod.daemonSet as DaemonSetState).shape;
    // WaitForFirstConsumer: a claim's volume is provisioned in the zone of the node its pod first runs on
    for (const v of pod.volumes) {
      const claim = this.claims.get(`${shape.namespace}/${v.persistentVolumeClaim?.claimName}`);
      if (claim && claim.boundAt === null) {
        claim.boundAt = t;
        claim.zone = live.node.zone;
        this.claimsVersion += 1;
      }
    }
    pod.record = {
      uid: this.rng.uuid(),
      namespace: shape.namespace,
      name: pod.name,
      ownerKind: shape.ownerKind,
      ownerName: pod.ownerName,
      workload: shape.workloadKey,
      ...(pod.volumes.length > 0 ? { volumes: pod.volumes } : {}),
      labels: pod.job ? { ...shape.labels, 'batch.kubernetes.io/job-name': pod.job.name, 'job-name': pod.job.name } : { ...shape.labels },
      annotations: { ...shape.annotations },
      containers: shape.containers,
      initContainers: shape.initContainers,
      nodeSelector: { ...shape.nodeSelector },
      tolerations: shape.tolerations,
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
      if (phase !== 'Deleted') {
        // finished: listed until its Job goes, or its node (set then)
        pod.record.listedUntil = null;
        live.finished.push(pod.record);
        if (pod.job) {
          const list = this.jobRecords.get(pod.job) ?? [];
          list.push(pod.record);
          this.jobRecords.set(pod.job, list);
        }
      }
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
    if (w.spec.kind === 'CronJob') return this.reconcileCronJob(w, t);
    const want = this.desired(w, t);
    if (w.replicas[w.replicas.length - 1]?.replicas !== want) w.replicas.push({ at: t, replicas: want });
    while (w.pods.length > want) {
      const pod = w.pods.pop();
      if (pod) this.unbind(pod, t);
    }
    while (w.pods.length < want) w.pods.push(this.newPod(w, t, w.pods.length));
  }

  /** A new Job of `w` at t (named `<name>-<minutes since the epoch>`, as the CronJob controller names them). */
  private newJob(w: Workload, t: EpochMs, parallelism: number, ttlSeconds: number | null): SimJob {
    const job: SimJob = {
      namespace: w.spec.namespace,
      name: `${w.spec.name}-${Math.floor(t / 60_000)}`,
      workload: w.shape.workloadKey,
      createdAt: t,
      parallelism,
      finishedAt: null,
      failed: false,
      deletedAt: null,
      ...(ttlSeconds !== null ? { ttlSecondsAfterFinished: ttlSeconds } : {}),
      backoffLimit: w.spec.kind === 'CronJob' ? 0 : 6,
      pods: [],
    };
    this.jobs.push(job);
    return job;
  }

  /** Finishes the pods whose run ended by t; returns the Jobs all of whose pods have now finished. */
  private finishJobPods(w: Workload, t: EpochMs): SimJob[] {
    const done = new Set<SimJob>();
    for (const pod of [...w.pods]) {
      if (pod.jobEndsAt === undefined || pod.jobEndsAt > t) continue;
      this.unbind(pod, t, pod.fails ? 'Failed' : 'Succeeded');
      w.pods.splice(w.pods.indexOf(pod), 1);
      if (pod.job) done.add(pod.job);
    }
    return [...done].filter((job) => !w.pods.some((p) => p.job === job));
  }

  /** A Job is deleted at t: its finished pods leave the API with it. */
  private deleteJob(job: SimJob, t: EpochMs): void {
    job.deletedAt = t;
    for (const rec of this.jobRecords.get(job) ?? [])
      if (rec.listedUntil === null || (rec.listedUntil ?? Infinity) > t) rec.listedUntil = t;
  }

  private reconcileJob(w: Workload, t: EpochMs): void {
    const ttl = w.spec.ttlSecondsAfterFinished ?? DEFAULT_JOB_TTL_SECONDS;
    for (const job of this.finishJobPods(w, t)) {
      job.finishedAt = t;
      // ttlSecondsAfterFinished: the TTL controller deletes it, and its pods with it
      this.deleteJob(job, t + ttl * 1000);
    }
    for (const b of w.spec.bursts ?? []) {
      const at = this.start + b.day * DAY + b.hourUtc * HOUR;
      if (at > t - this.step && at <= t) {
        const job = this.newJob(w, t, b.parallelism, ttl);
        for (let i = 0; i < b.parallelism; i++) {
          const pod = this.newPod(w, t, undefined, job);
          pod.jobEndsAt = at + b.hours * HOUR;
          w.pods.push(pod);
        }
      }
    }
  }

  /**
   * A CronJob: a Job at each scheduled time, one pod that runs `runMinutes` and ends Succeeded (Failed at the
   * scheduled times listed as failures); finished Jobs are kept up to successfulJobsHistoryLimit and
   * failedJobsHistoryLimit, the oldest deleted (with their pods) as a newer one finishes.
   */
  private reconcileCronJob(w: Workload, t: EpochMs): void {
    const cron = w.spec.cron;
    const when = cron ? parseCronSchedule(cron.schedule) : null;
    if (!cron || !when) return;
    for (const job of this.finishJobPods(w, t)) {
      job.finishedAt = t;
      const history = job.failed ? w.failed : w.succeeded;
      history.push(job);
      const limit = job.failed ? cron.failedJobsHistoryLimit : cron.successfulJobsHistoryLimit;
      while (history.length > limit) this.deleteJob(history.shift() as SimJob, t);
    }
    // the scheduled times in (t - step, t]
    for (let m = Math.floor((t - this.step) / MINUTE) + 1; m <= Math.floor(t / MINUTE); m++) {
      const at = m * MINUTE;
      const d = new Date(at);
      if (d.getUTCMinutes() !== when.minute || (when.hour !== null && d.getUTCHours() !== when.hour)) continue;
      if (at < this.start) continue;
      const job = this.newJob(w, at, 1, null);
      job.failed = (cron.failures ?? []).some((f) => Date.parse(f) === at);
      const pod = this.newPod(w, t, undefined, job);
      pod.jobEndsAt = at + cron.runMinutes * MINUTE;
      pod.fails = job.failed;
      w.pods.push(pod);
    }
  }

  // ---- scheduling and provisioning (the engine's) ---------------------------------------------------------------

  /** The Kubernetes object of a pod as the engine reads it (rebuilt when it is bound or unbound). */
  private kubePod(pod: LivePod): KubePod {
    if (pod.kube) return pod.kube;
    const shape = pod.workload ? pod.workload.shape : (pod.daemonSet as DaemonSetState).shape;
    pod.kube = kubePodOf(shape, {
      name: pod.name,
      uid: pod.record?.uid ?? `${shape.namespace}/${pod.name}`,
      createdAt: pod.createdAt,
      startedAt: pod.record?.createdAt ?? null,
      ownerName: pod.ownerName,
      nodeName: pod.node ? pod.node.node.name : null,
      volumes: pod.volumes,
    });
    return pod.kube;
  }

  /**
   * The PodDisruptionBudgets with the status the disruption controller gives them now: healthy = its pods bound to
   * a node (the sandbox's pods are Ready once bound), expected = its controller's replicas (or its pods).
   */
  private pdbObjects(t: EpochMs): KubePodDisruptionBudget[] {
    return this.pdbs.map((b) => {
      const w = this.workloads.find((x) => x.shape.workloadKey === b.workload);
      const selected = w ? w.pods : [];
      const healthy = selected.filter((p) => p.node !== null && p.node.terminateAt === null).length;
      return pdbObject(b, pdbStatus(b, healthy, selected.length, w ? this.desiredNow(w) : 0), t);
    });
  }

  /** The replicas a controller wants now (its last reconcile). */
  private desiredNow(w: Workload): number {
    return w.replicas[w.replicas.length - 1]?.replicas ?? w.pods.length;
  }

  /** PVCs and PVs as the API holds them now (rebuilt only when a claim was made or bound). */
  private volumeInputs(t: EpochMs): { claims: KubePersistentVolumeClaim[]; volumes: KubePersistentVolume[] } {
    if (this.volumeObjects?.version !== this.claimsVersion) {
      const claims = [...this.claims.values()];
      this.volumeObjects = {
        version: this.claimsVersion,
        claims: claims.map((c) => claimObject(c, t, {}, null)),
        volumes: claims.flatMap((c) => volumeObject(c) ?? []),
      };
    }
    return this.volumeObjects;
  }

  /** The EC2NodeClasses as they stand (rebuilt when an AMI alias changes). */
  private nodeClassInputs(t: EpochMs): KubeEC2NodeClass[] {
    const generation = this.nodeClasses.map((c) => c.amiAliases.length).join(',');
    if (this.nodeClassObjects?.generation !== generation) {
      const ctx = {
        clusterName: this.file.clusterName,
        zones: this.file.zones,
        accountId: this.file.accountId,
        createdAt: this.start - CLUSTER_AGE,
        reservations: this.file.capacityReservations ?? [],
        profile: this.profile,
      };
      this.nodeClassObjects = { generation, objects: this.nodeClasses.map((c) => nodeClassObject(ctx, c, t)) };
    }
    return this.nodeClassObjects.objects;
  }

  /**
   * The cluster as it stands at t, prepared for the engine. `paused` NodePools are given consolidateAfter Never:
   * their nodes are no consolidation candidates this round but still take pods.
   */
  private engine(
    t: EpochMs,
    paused: ReadonlySet<string> = new Set(),
    held: ReadonlySet<string> = new Set(),
  ): { ctx: EngineContext; podByKey: Map<string, LivePod> } {
    const podByKey = new Map<string, LivePod>();
    const pods: KubePod[] = [];
    const add = (p: LivePod) => {
      const k = this.kubePod(p);
      podByKey.set(`${k.metadata.namespace}/${k.metadata.name}`, p);
      pods.push(k);
    };
    for (const live of this.live) for (const p of live.pods) add(p);
    for (const w of this.workloads) for (const p of w.pods) if (p.node === null) add(p);
    const volumes = this.volumeInputs(t);
    const ctx = prepare({
      nodePools: this.pools.map((p) => kubeNodePool(this.spotShort(p, t), paused.has(p.name))),
      // `held` nodes are no candidates this round (annotated do-not-disrupt for the engine only), still destinations
      nodes: this.live.map((n) => (held.has(n.node.name) ? heldNode(n.kube) : n.kube)),
      pods,
      daemonSetPods: this.daemonTemplates,
      podDisruptionBudgets: this.pdbObjects(t),
      namespaces: this.namespaceObjects,
      nodeClasses: this.nodeClassInputs(t),
      persistentVolumeClaims: volumes.claims,
      persistentVolumes: volumes.volumes,
      storageClasses: this.storageClassObjects,
      csiNodes: this.live.map((n) => n.csiNode),
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
      karpenterVersion: this.karpenterVersion,
    });
    return { ctx: this.domainSources.apply(ctx), podByKey };
  }

  /**
   * What a consolidation round says about the nodes it leaves: DisruptionBlocked for a do-not-disrupt pod (the
   * sandbox's cadence), Unconsolidatable where Karpenter's consolidation.go publishes one: its message, when it
   * changes and else at the DisruptionBlocked cadence (Karpenter dedupes for 15 minutes and re-evaluates on every
   * change of the cluster: every 15 minutes of a busy cluster would be ~14,000 events in week4's two weeks, noise
   * for a demo). Nodes of the NodePools paused this round are not looked at.
   */
  private noteVerdicts(verdicts: ConsolidationOutcome['unconsolidatable'], pools: ReadonlySet<string>, t: EpochMs): void {
    for (const v of verdicts) {
      if (!pools.has(v.node.nodePool ?? '')) continue;
      const live = this.liveNamed(v.node.name);
      if (!live) continue;
      if (v.reason.startsWith(`Pod has "${ANNOTATION_DO_NOT_DISRUPT}"`)) {
        const blocker = this.blocker(live);
        if (blocker) this.noteBlocked(live, blocker, t);
      } else if (v.wording === 'karpenter' && !BLOCKED_NOT_UNCONSOLIDATABLE.test(v.reason)) {
        const last = this.lastUnconsolidatable.get(live.node.name);
        if (last && last.message === v.reason && t - last.at < BLOCKED_EVENT_EVERY) continue;
        this.lastUnconsolidatable.set(live.node.name, { message: v.reason, at: t });
        this.emit(live, t, this.karpenter.unconsolidatable(v.reason), true);
      }
    }
  }

  /** The Balanced NodePools' scores of a command (none for Emptiness, which Karpenter does not score). */
  private balancedScores(ctx: EngineContext, cmd: NonNullable<ConsolidationOutcome['command']>): { pool: string; score: BalancedScore }[] {
    if (cmd.method === 'emptiness') return [];
    const out: { pool: string; score: BalancedScore }[] = [];
    const byPool = new Map<string, typeof cmd.candidates>();
    for (const c of cmd.candidates) byPool.set(c.pool.name, [...(byPool.get(c.pool.name) ?? []), c]);
    const sourceCost = cmd.candidates.reduce((s, c) => s + c.price, 0);
    for (const [pool, list] of byPool) {
      if (list[0].pool.consolidationPolicy !== 'Balanced') continue;
      // balanced.go EvaluateBalancedMove: a cross-pool move's savings split by each pool's share of the source cost
      const poolCost = list.reduce((s, c) => s + c.price, 0);
      const savings = byPool.size > 1 && sourceCost > 0 ? cmd.savingsUsdPerHour * (poolCost / sourceCost) : cmd.savingsUsdPerHour;
      const totals = this.poolTotals(ctx, pool);
      const move = list.reduce((s, c) => s + c.rescheduleDisruptionCost, 0);
      out.push({ pool, score: balancedScore(savings, move, totals.cost, totals.disruption) });
    }
    return out;
  }

  /** A NodePool's cost and disruption cost over all its nodes (balanced.go computeNodePoolTotals). */
  private poolTotals(ctx: EngineContext, pool: string): { cost: number; disruption: number } {
    let cost = 0;
    let disruption = 0;
    for (const n of ctx.nodes) {
      if (n.nodePool !== pool) continue;
      cost += nodePrice(ctx, n) ?? 0;
      disruption += 1 + n.pods.filter((p) => isReschedulable(p)).reduce((s, p) => s + Math.max(0, evictionCost(p)), 0);
    }
    return { cost, disruption };
  }

  /**
   * The pool as Karpenter can launch it at `t`: during a spot-shortage incident every spot offering is unavailable,
   * which for the pool's launches is its capacity-type requirement without spot (on-demand where it allows it).
   */
  private spotShort(pool: SimNodePool, t: EpochMs): SimNodePool {
    const short = this.file.incidents.some(
      (inc) =>
        inc.kind === 'spot-shortage' && inc.nodePool === pool.name && t >= Date.parse(inc.at) && t < Date.parse(inc.at) + inc.hours * HOUR,
    );
    if (!short) return pool;
    return {
      ...pool,
      requirements: pool.requirements.map((r) =>
        r.key === LABEL_CAPACITY_TYPE && r.operator === 'In' ? { ...r, values: (r.values ?? []).filter((v) => v !== 'spot') } : r,
      ),
    };
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
        if (!pool) continue;
        const hash = this.rng.hex(16);
        this.nodeClassHash.set(pool.nodeClassName, hash);
        const cls = this.nodeClasses.find((c) => c.name === pool.nodeClassName);
        const alias = /alias (\S+)/.exec(inc.change)?.[1];
        if (cls) cls.amiAliases.push({ at: t, alias: alias ?? cls.amiAliases[cls.amiAliases.length - 1].alias, hash });
      } else if (inc.kind === 'cordon') {
        const victim = this.live
          .filter((n) => n.pool?.name === inc.nodePool && n.terminateAt === null && n.node.cordoned === undefined)
          .sort((a, b) => a.node.createdAt - b.node.createdAt || a.node.name.localeCompare(b.node.name))[0];
        if (!victim) continue;
        victim.node.cordoned = { from: t, until: null, reason: inc.reason };
        this.rebuildKube(victim);
        this.touch(victim.pool);
        this.uncordons.push({ at: t + inc.hours * HOUR, live: victim });
      } else if (inc.kind === 'spot-shortage') {
        // Every spot node of the pool reclaimed at once (the two-minute notice, then gone), oldest first.
        const victims = this.live
          .filter((n) => n.pool?.name === inc.nodePool && n.node.capacityType === 'spot' && n.terminateAt === null)
          .sort((a, b) => a.node.createdAt - b.node.createdAt || a.node.name.localeCompare(b.node.name));
        for (const victim of victims) {
          this.emit(victim, t, this.karpenter.spotInterruption());
          this.remove(victim, t, 'Interrupted');
        }
      } else {
        const victim = this.live
          .filter((n) => n.pool?.name === inc.nodePool && n.node.capacityType === 'spot' && n.terminateAt === null)
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
      // prices aside, which an hourly look catches in a pool that can launch spot): Karpenter would find nothing
      // new, so skip the work.
      const seen = this.evaluatedAt.get(pool.name);
      if (seen && t - seen.at < LOOK_INTERVAL && !this.driftPending(pool)) return false;
      const spotMoved = pool.capacityTypes.includes('spot') && seen !== undefined && t - seen.at >= HOUR;
      if (!seen || seen.version !== (this.poolVersion.get(pool.name) ?? 0) || spotMoved || this.driftPending(pool)) return true;
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
    return this.live.some((n) => n.pool === pool && n.terminateAt === null && n.node.nodeClassHash !== hash && !this.blocker(n));
  }

  /**
   * Replaces one drifted node of the pool, as Karpenter's drift method does: its pods scheduled on the rest of the
   * cluster by the engine, NodeClaims launched for what does not fit, then the node deleted. Not when its pods
   * would not all schedule.
   */
  private drift(pool: SimNodePool, t: EpochMs): boolean {
    const hash = this.nodeClassHash.get(pool.nodeClassName);
    const drifted = this.live.filter((n) => n.pool === pool && n.terminateAt === null && n.node.nodeClassHash !== hash);
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
      this.disruptNode(live, t, 'Drifted');
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
    const considered = this.live.filter((n) => n.pool !== null && pools.has(n.pool.name) && n.terminateAt === null);
    if (!considered.some((n) => t - n.lastPodChangeAt >= (parseKarpenterDuration(n.pool?.consolidateAfter ?? 'Never') ?? Infinity))) {
      for (const live of considered) {
        const blocker = this.blocker(live);
        if (blocker) this.noteBlocked(live, blocker, t);
      }
      return false;
    }
    const paused = new Set(this.pools.map((p) => p.name).filter((name) => !pools.has(name)));
    // A Balanced NodePool's move that fails its score is not carried out: Karpenter goes on to its next candidate
    // (singlenodeconsolidation.go), here the round again without the rejected candidates.
    const rejected = new Set<string>();
    let cmd: ConsolidationOutcome['command'] = null;
    let approvals: { pool: string; message: string }[] = [];
    for (let attempt = 0; attempt < MAX_BALANCED_RETRIES; attempt++) {
      const { ctx } = this.engine(t, paused, rejected);
      const outcome = consolidateRound(ctx, provision(ctx), { commandOnly: true });
      if (attempt === 0) this.noteVerdicts(outcome.unconsolidatable, pools, t);
      cmd = outcome.command;
      if (!cmd) return false;
      if (cmd.replacement)
        for (const c of cmd.candidates) {
          const live = this.liveNamed(c.node.name);
          if (live)
            this.emit(live, t, this.karpenter.consolidationCandidate(c.node.name, cmd.candidates.length, cmd.savingsUsdPerHour), true);
        }
      const scored = this.balancedScores(ctx, cmd);
      if (scored.every((s) => s.score.approved)) {
        approvals = scored.map((s) => ({ pool: s.pool, message: approvedMessage(s.score) }));
        break;
      }
      for (const c of cmd.candidates) rejected.add(c.node.name);
      cmd = null;
    }
    if (!cmd) return false;
    if (approvals.length > 0 && this.profile.balancedConsolidation) {
      if (cmd.candidates.length === 1) {
        const live = this.liveNamed(cmd.candidates[0].node.name);
        if (live) this.emit(live, t, this.karpenter.consolidationApproved(approvals[0].message), true);
      } else
        for (const a of approvals) this.event(t, { kind: 'NodePool', name: a.pool }, 'ConsolidationApproved', a.message, 'Normal', true);
    }
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
      this.disruptNode(live, t, cmd.reason);
      if (live.pool) this.lastDisruption.set(live.pool.name, t);
    }
    return true;
  }
}
