import type { NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import type { KubeAffinity, KubeTopologySpreadConstraint, KubeVolume } from '../../core/karpenter/scheduling/kube-types.js';
import type { CapacityType, DisruptionReason } from '../../core/labels.js';
import type { CapacityReservationSpec } from './capacity-reservations.js';

/** Times are epoch milliseconds (UTC) throughout the simulation. */
export type EpochMs = number;

export interface Resources {
  cpuMillicores: number;
  memoryBytes: number;
  pods: number;
  gpu: number;
}

export interface InstanceTypeInfo {
  name: string;
  labels: Record<string, string>;
  /** Kubernetes quantity strings, as Karpenter computes them. */
  allocatable: Record<string, string>;
  allocatableParsed: Resources;
  vcpu: number;
  memoryMiB: number;
  onDemandUsdPerHour: number;
}

export interface SimNodePool {
  name: string;
  weight: number;
  /** Exactly the NodePool spec.template.spec.requirements. */
  requirements: NodeSelectorRequirement[];
  capacityTypes: CapacityType[];
  /** Instance types these requirements admit, cheapest first (derived, for the simulation). */
  instanceTypes: string[];
  /** spec.limits as the scenario writes them: int-or-string quantities (`cpu: 16`, `memory: "64Gi"`, `nodes: 60`). */
  limits: Record<string, string | number>;
  /** Balanced: Karpenter v1.14+ scores each consolidation move (balanced-score.ts). */
  consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
  consolidateAfter: string;
  budgets: { nodes: string; reasons?: DisruptionReason[] }[];
  nodeClassName: string;
  taints?: { key: string; value?: string; effect: string }[];
  expireAfter: string;
  /**
   * A static NodePool (spec.replicas, Karpenter v1.8+, feature gate StaticCapacity): it keeps that many nodes and
   * takes no part in provisioning for pods or in consolidation. Served without `weight` (not allowed there).
   */
  replicas?: number;
}

export interface SimNode {
  /** Kubernetes Node name, e.g. ip-10-0-12-34.ec2.internal */
  name: string;
  /** NodeClaim name, e.g. general-x7k2p; null for nodes Karpenter did not launch (managed node group). */
  nodeClaimName: string | null;
  nodePool: string | null;
  instanceType: string;
  capacityType: CapacityType;
  zone: string;
  instanceId: string;
  privateIp: string;
  createdAt: EpochMs;
  deletedAt: EpochMs | null;
  deletionReason: DisruptionReason | null;
  /**
   * When Karpenter decided to disrupt it (tainted karpenter.sh/disrupted:NoSchedule, its NodeClaim deleted, its pods
   * evicted): the node drains and its instance terminates at `deletedAt`, the next step. Absent when it was not
   * disrupted, or interrupted (gone at once).
   */
  disruptedAt?: EpochMs;
  /** Cordoned by an operator (spec.unschedulable) from..until (until null: to the end). */
  cordoned?: { from: EpochMs; until: EpochMs | null; reason: string };
  /** Why it was launched: pending pods, or as a replacement for a disrupted node. */
  launchReason:
    | { kind: 'pending-pods'; podNames: string[] }
    | { kind: 'replacement'; replaces: string[]; reason: DisruptionReason }
    | { kind: 'static' };
  /** NodeClass hash at launch; drift when the NodeClass changes. */
  nodeClassHash: string;
  /** The capacity reservation it runs in (capacity type `reserved`); absent otherwise. */
  capacityReservationId?: string;
  allocatable: Resources;
}

export interface SimContainer {
  name: string;
  image: string;
  resources: { requests: Record<string, string> };
  /** Ports bound on the node (a DaemonSet on the host network). */
  ports?: { name?: string; containerPort: number; hostPort?: number; protocol: string }[];
  /** Environment given by value (Karpenter's controller: FEATURE_GATES). */
  env?: { name: string; value: string }[];
}

/** A toleration as a pod spec holds it. */
export interface SimToleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface SimPod {
  uid: string;
  namespace: string;
  name: string;
  ownerKind: 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet' | 'Node';
  ownerName: string;
  /** Its controller in Scenario.workloads (workloadKey), whose template gives the rest of its spec. */
  workload?: string;
  /** The StatefulSet's claims it mounts (data-ledger-db-0), beside the template's volumes. */
  volumes?: KubeVolume[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  containers: SimContainer[];
  initContainers: SimContainer[];
  nodeSelector: Record<string, string>;
  /** The pod's own (a DaemonSet pod's template ones: the DaemonSet controller's additions are served beside them). */
  tolerations: SimToleration[];
  nodeName: string;
  createdAt: EpochMs;
  /** When it stopped running (removed, or finished); null while it runs at the end of the scenario. */
  deletedAt: EpochMs | null;
  /** Job pods end Succeeded (or Failed); the others are deleted. */
  endPhase: 'Succeeded' | 'Failed' | 'Deleted';
  /**
   * A finished pod stays listed until its Job is deleted (history limit, ttlSecondsAfterFinished) or its node is
   * gone (pod garbage collection); null: still listed at the end. Absent: ten minutes after it finished.
   */
  listedUntil?: EpochMs | null;
  /** Effective requests by the Kubernetes rule, precomputed. */
  requests: Resources;
}

/** The part of a pod spec a controller's template gives every pod it makes. */
export interface SimPodTemplate {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  containers: SimContainer[];
  initContainers: SimContainer[];
  nodeSelector: Record<string, string>;
  tolerations: SimPod['tolerations'];
  affinity?: KubeAffinity;
  topologySpreadConstraints?: KubeTopologySpreadConstraint[];
  priorityClassName?: string;
  /** The priority of its class (system-node-critical 2000001000, system-cluster-critical 2000000000); 0 without one. */
  priority: number;
  hostNetwork?: boolean;
  /** A port bound on the node (containerPort = hostPort), DaemonSets on the host network. */
  hostPort?: number;
  /** Template volumes (prometheus' emptyDir). */
  volumes?: KubeVolume[];
}

/** A controller of the cluster: what `kubectl get deployments,statefulsets,daemonsets,cronjobs` shows. */
export interface SimWorkload {
  /** 'Job': a template that Jobs are made from (an external scheduler's runs), not an object itself. */
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'CronJob' | 'Job';
  namespace: string;
  name: string;
  createdAt: EpochMs;
  template: SimPodTemplate;
  /** Deployment, StatefulSet: spec.replicas from each time on (sorted; the first at createdAt). */
  replicas?: { at: EpochMs; replicas: number }[];
  /** Deployment: the pod-template-hash of its one ReplicaSet (`<name>-<hash>`). */
  templateHash?: string;
  volumeClaimTemplates?: { name: string; storageClassName: string; storage: string }[];
  cron?: { schedule: string; successfulJobsHistoryLimit: number; failedJobsHistoryLimit: number };
  /** DaemonSet: the nodes it runs on from each time on (sorted): status.desiredNumberScheduled. */
  scheduled?: { at: EpochMs; count: number }[];
}

/** A batch/v1 Job: one run of a CronJob or of a Job template. */
export interface SimJob {
  namespace: string;
  name: string;
  /** workloadKey of the CronJob or Job template it was made from. */
  workload: string;
  createdAt: EpochMs;
  parallelism: number;
  /** When its last pod finished; null while it runs at the end. */
  finishedAt: EpochMs | null;
  failed: boolean;
  /** When it is deleted (history limit, TTL after finished); null: still there at the end. */
  deletedAt: EpochMs | null;
  ttlSecondsAfterFinished?: number;
  backoffLimit: number;
  pods: string[];
}

/** A policy/v1 PodDisruptionBudget. */
export interface SimPodDisruptionBudget {
  namespace: string;
  name: string;
  matchLabels: Record<string, string>;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  /** workloadKey of the controller whose scale is its expected pod count. */
  workload: string;
  createdAt: EpochMs;
}

/** A PersistentVolumeClaim of a StatefulSet and the EBS volume (PV) provisioned for it. */
export interface SimVolumeClaim {
  namespace: string;
  /** <template>-<pod>, e.g. data-ledger-db-0 */
  name: string;
  storageClassName: string;
  storage: string;
  createdAt: EpochMs;
  /** pvc-<uid>, the PV's name */
  volumeName: string;
  /** vol-0…, the EBS volume id */
  volumeId: string;
  /** Provisioned when its pod first ran (WaitForFirstConsumer), in that node's zone; null: never bound. */
  boundAt: EpochMs | null;
  zone: string | null;
}

/** An EC2NodeClass: its AMI alias over time (a change is what drifts its nodes) and the reservations it selects. */
export interface SimNodeClass {
  name: string;
  /** The alias from each time on, with the class's hash then (what its nodes' ec2nodeclass-hash is compared to). */
  amiAliases: { at: EpochMs; alias: string; hash: string }[];
  capacityReservationIds: string[];
}

export interface SimEvent {
  uid: string;
  at: EpochMs;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  involvedObject: { kind: 'Node' | 'NodeClaim' | 'Pod' | 'NodePool'; name: string; namespace?: string };
}

export interface SimNamespace {
  name: string;
  labels: Record<string, string>;
}

/** A price change of one spot market (zone x type): in effect from `at` until the next change. */
export interface SpotPricePoint {
  at: EpochMs;
  instanceType: string;
  zone: string;
  usdPerHour: number;
}

export interface Scenario {
  name: string;
  /** The Karpenter release whose objects and events the sandbox serves (karpenter-profile.ts; "1.14.1"). */
  karpenterVersion: string;
  seed: number;
  clusterName: string;
  region: string;
  zones: string[];
  accountId: string;
  start: EpochMs;
  end: EpochMs;
  /** Simulation step (5 minutes). */
  stepMs: number;
  nodePools: SimNodePool[];
  namespaces: SimNamespace[];
  nodes: SimNode[];
  pods: SimPod[];
  events: SimEvent[];
  /** Sorted by (instanceType, zone, at). Simulated, labelled as such. */
  spotPrices: SpotPricePoint[];
  /** On-demand USD/hour by instance type, from Karpenter's static table (us-east-1). */
  onDemandUsdPerHour: Record<string, number>;
  /* What issue 21 added (absent in hand-made scenarios: the sandbox then serves empty lists for these kinds). */
  workloads?: SimWorkload[];
  jobs?: SimJob[];
  podDisruptionBudgets?: SimPodDisruptionBudget[];
  volumeClaims?: SimVolumeClaim[];
  nodeClasses?: SimNodeClass[];
  capacityReservations?: CapacityReservationSpec[];
  /* What issue 22 added (Karpenter v1.7+ only). */
  nodeOverlays?: SimNodeOverlay[];
  /**
   * Edits of NodePools' spec.disruption over time, oldest first (issue 23: nodepool-disruption incidents); `nodePools`
   * holds the settings at the start. Absent: none.
   */
  nodePoolChanges?: SimNodePoolChange[];
}

/** A NodePool's disruption settings edited at `at`: those given replace the ones before. */
export interface SimNodePoolChange {
  at: EpochMs;
  nodePool: string;
  disruption: Partial<Pick<SimNodePool, 'consolidationPolicy' | 'consolidateAfter' | 'budgets'>>;
}

/** The NodePools as they were at `t`: the starting settings with every edit made by then applied, in order. */
export function nodePoolsAt(sc: Pick<Scenario, 'nodePools' | 'nodePoolChanges'>, t: EpochMs): { pool: SimNodePool; generation: number }[] {
  return sc.nodePools.map((p) => {
    const edits = (sc.nodePoolChanges ?? []).filter((c) => c.nodePool === p.name && c.at <= t);
    return { pool: edits.reduce<SimNodePool>((acc, c) => ({ ...acc, ...c.disruption }), p), generation: 1 + edits.length };
  });
}

/**
 * A karpenter.sh/v1alpha1 NodeOverlay as the scenario writes it (pkg/apis/v1alpha1/nodeoverlay.go): served, but
 * not applied by the simulation, whose controller runs with the NodeOverlay feature gate off (v1.14.1's default).
 */
export interface SimNodeOverlay {
  name: string;
  weight?: number;
  requirements: { key: string; operator: string; values?: string[] }[];
  /** "-12%", "+0.05", …; or `price`, an absolute hourly price. */
  priceAdjustment?: string;
  price?: string;
  /** Extended resources only. */
  capacity?: Record<string, string>;
}

/** "<Kind>/<namespace>/<name>": how a pod or a Job names its controller. */
export const workloadKey = (kind: string, namespace: string, name: string): string => `${kind}/${namespace}/${name}`;
