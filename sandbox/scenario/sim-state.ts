import { effectiveRequests } from '../../core/pod-requests.js';
import { loadInstanceCatalog } from '../../core/instance-catalog.js';
import type { KubeCSINode, KubeNode, KubePod, KubeVolume } from '../../core/karpenter/scheduling/index.js';
import { DAY_MS as DAY, MINUTE_MS as MINUTE } from '../../core/time.js';
import { reservationWithRoom } from './capacity-reservations.js';
import { loadCatalog } from './catalog.js';
import { admittedTypes, daemonSetMatcher, DomainSourceCache, type kubeNode, PricedCatalogue } from './engine-cluster.js';
import { karpenterFeatureGatesEnv, karpenterProfile, type KarpenterProfile } from './karpenter-profile.js';
import { DEFAULT_AMI_ALIAS } from './node-classes.js';
import { daemonSetTemplate, kubePodOf, type PodShape } from './pod-templates.js';
import { Rng } from './rng.js';
import type { DaemonSetSpec, ScenarioFile, WorkloadSpec } from './scenario-file.js';
import { SpotPriceIndex, simulateSpotPrices } from './spot-prices.js';
import { storageClasses } from './storage.js';
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
  type SimNodePoolChange,
  type SimVolumeClaim,
  workloadKey,
} from './types.js';
import { makeWorkload } from './workload-controllers.js';

/** When the cluster's long-lived objects (namespaces, NodePools, classes, controllers) were made: a month before. */
export const CLUSTER_AGE = 30 * DAY;

export interface LiveNode {
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

export interface DaemonSetState {
  spec: DaemonSetSpec;
  shape: PodShape;
  requests: Resources;
  /** Nodes it runs on, from each time on. */
  scheduled: { at: EpochMs; count: number }[];
}

export interface Workload {
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

export interface LivePod {
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

/**
 * The simulated cluster as every part of the simulation sees it: the scenario file, the one seeded random stream
 * (every draw in a fixed order: the history is a function of the file and the seed), the NodePools and prices, the
 * live nodes and controllers, and the history being written (nodes, pods, events, Jobs, claims). The parts
 * (kubelet.ts, workload-controllers.ts, karpenter-driver.ts, incidents.ts, event-log.ts) change it; simulate.ts
 * runs them in turn.
 */
export class SimState {
  readonly rng: Rng;
  readonly catalog = loadCatalog();
  readonly start: EpochMs;
  readonly end: EpochMs;
  readonly step: number;
  readonly pools: SimNodePool[];
  readonly staticPools: SimNodePool[];
  readonly spot: SpotPriceIndex;
  readonly spotPoints: Scenario['spotPrices'];
  readonly nodes: SimNode[] = [];
  readonly pods: SimPod[] = [];
  readonly events: SimEvent[] = [];
  readonly live: LiveNode[] = [];
  readonly workloads: Workload[];
  readonly nodeClassHash = new Map<string, string>();
  /** Bumped whenever a pool's nodes or pods change: a pool where nothing changed need not be re-evaluated. */
  readonly poolVersion = new Map<string, number>();
  readonly onDemand: Record<string, number> = {};
  readonly prices: PricedCatalogue;
  readonly daemonSets: DaemonSetState[];
  /** The DaemonSets' pod templates, as the engine reads them (one array, so the engine reuses its templates). */
  readonly daemonTemplates: KubePod[];
  readonly daemonsOn: ReturnType<typeof daemonSetMatcher>;
  readonly jobs: SimJob[] = [];
  /** Finished pods of each Job (listed until the Job is deleted). */
  readonly jobRecords = new Map<SimJob, SimPod[]>();
  readonly pdbs: SimPodDisruptionBudget[];
  readonly claims = new Map<string, SimVolumeClaim>();
  /** Bumped whenever a claim is made or bound (engine-view.ts rebuilds the PVC and PV objects then). */
  claimsVersion = 0;
  readonly storageClassObjects;
  readonly nodeClasses: SimNodeClass[];
  readonly namespaceObjects: { metadata: { name: string; labels: Record<string, string> } }[];
  readonly uncordons: { at: EpochMs; live: LiveNode }[] = [];
  /** Edits of the pools' disruption settings made so far (incidents.ts), for the served NodePool objects. */
  readonly nodePoolChanges: SimNodePoolChange[] = [];
  /**
   * The node a spot interruption struck, chosen when a consolidation command's validation window saw it
   * (karpenter-driver.ts), removed at its step (incidents.ts).
   */
  readonly interrupted = new Map<ScenarioFile['incidents'][number], string>();
  readonly domainSources = new DomainSourceCache();
  ipCounter = 10;
  /** What the imitated Karpenter release writes (karpenterVersion of the scenario file, else the current release). */
  readonly karpenterVersion: string;
  readonly profile: KarpenterProfile;

  constructor(
    readonly file: ScenarioFile,
    readonly seed: number,
  ) {
    this.rng = new Rng(seed);
    this.profile = karpenterProfile(file.karpenterVersion);
    this.karpenterVersion = this.profile.version;
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
    this.workloads = file.workloads.map((spec) =>
      makeWorkload(
        spec,
        file,
        this.rng,
        this.karpenterVersion,
        karpenterFeatureGatesEnv(this.profile, file.featureGates?.spotToSpotConsolidation ?? false),
      ),
    );
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

  /** Room was freed or added in the pool (a pod removed, a node launched or removed): consolidation may find more. */
  touch(pool: SimNodePool | null): void {
    if (pool) this.poolVersion.set(pool.name, (this.poolVersion.get(pool.name) ?? 0) + 1);
  }

  /** The spot node of the pool an interruption strikes: the one running the most pods (then by name). */
  interruptionVictim(pool: string): LiveNode | undefined {
    return this.live
      .filter((n) => n.pool?.name === pool && n.node.capacityType === 'spot' && n.terminateAt === null)
      .sort((a, b) => b.pods.length - a.pods.length || a.node.name.localeCompare(b.node.name))[0];
  }

  liveNamed(name: string): LiveNode | undefined {
    return this.live.find((n) => n.node.name === name);
  }

  /** A capacity reservation with room for `type` now (scenario-file capacityReservations). */
  reservationFor(type: string) {
    return reservationWithRoom(
      this.file.capacityReservations ?? [],
      type,
      this.live.map((n) => n.node),
    );
  }
}
