import type { NodeSelectorRequirement } from './karpenter/requirements.js';
import type { CapacityType } from './labels.js';
import type { KubeAffinity, KubeTopologySpreadConstraint } from './karpenter/scheduling/kube-types.js';
import type { Toleration } from './karpenter/scheduling/taints.js';
import type { Currency } from './partitions.js';
import type { ContainerRecord } from './usage.js';

/** Domain records as the collectors produce them and the store keeps them. Times: epoch ms UTC. */

export interface ResourceAmounts {
  cpuMillicores: number;
  memoryBytes: number;
  pods: number;
  gpu: number;
}

export interface NodePoolRecord {
  name: string;
  weight: number | null;
  consolidationPolicy: string | null;
  consolidateAfter: string | null;
  capacityTypes: string[];
  /** spec.template.spec.requirements as written (minValues kept). */
  requirements: NodeSelectorRequirement[];
  /** spec.limits, each int-or-string quantity in its string form (`cpu: 100` -> "100"). */
  limits: Record<string, string>;
  budgets: { nodes: string; reasons?: string[]; schedule?: string; duration?: string }[];
  nodeClass: string | null;
  /** spec.template.spec.expireAfter ("720h", "Never"); null/absent when unset. */
  expireAfter?: string | null;
  /** spec.template.spec.taints (Karpenter puts them on every node it launches); absent when not collected. */
  taints?: NodePoolTaint[];
}

export interface NodePoolTaint {
  key: string;
  value?: string;
  /** NoSchedule | PreferNoSchedule | NoExecute */
  effect: string;
}

export interface NamespaceRecord {
  name: string;
  team: string | null;
  labels: Record<string, string>;
}

export interface NodeRecord {
  name: string;
  nodeClaim: string | null;
  nodePool: string | null;
  instanceType: string;
  capacityType: CapacityType;
  zone: string;
  instanceId: string | null;
  createdAt: number;
  allocatable: ResourceAmounts;
  /** status.capacity as given (quantity strings, every resource): what Karpenter counts against NodePool limits. */
  capacity?: Record<string, string>;
  labels: Record<string, string>;
}

export interface NodeClaimRecord {
  name: string;
  nodePool: string | null;
  nodeName: string | null;
  instanceType: string | null;
  capacityType: string | null;
  zone: string | null;
  instanceId: string | null;
  createdAt: number;
  /** The disruption reason its conditions record (core/karpenter/events.ts disruptionFromConditions), as written. */
  disruptionReason: string | null;
  /** When its DisruptionReason condition was set (the disruption decision), epoch ms; null or absent when unknown. */
  disruptionAt?: number | null;
  /** spec.expireAfter as written ("720h", "Never"); null or absent when unknown. */
  expireAfter?: string | null;
  conditions: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

/**
 * What a pod used, summarised over the time a snapshot stands for (e.g. p95 CPU and max working-set memory from
 * metrics-server or Prometheus). Absent until usage is collected; the attribution methods that take
 * max(request, usage) then fall back to the request, as AWS and OpenCost do when usage is unavailable.
 */
export interface PodUsage {
  cpuMillicores: number;
  memoryBytes: number;
  /** GPUs in use; absent = not measured (the request stands in). */
  gpu?: number;
}

export interface PodRecord {
  uid: string;
  namespace: string;
  name: string;
  nodeName: string | null;
  /** Pending | Running | Succeeded | Failed | Unknown */
  phase: string;
  ownerKind: string | null;
  ownerName: string | null;
  team: string | null;
  requests: ResourceAmounts;
  /** Usage over the snapshot's interval; absent when not collected. */
  usage?: PodUsage;
  /** Its app containers' requests, limits and restarts (core/usage.ts); absent in records made before they were read. */
  containers?: ContainerRecord[];
  /** karpenter.sh/do-not-disrupt honoured at some time: "true", or a positive Go duration (v1.12+, from startTime). */
  doNotDisrupt: boolean;
  createdAt: number;
  labels: Record<string, string>;
  /*
   * What the scheduling engine reads of a pod (issue 21), absent in records made before it was collected. The
   * scheduling spec is deduplicated by its hash (a Deployment's 300 replicas store it once):
   * collectors/kubernetes/map-scheduling.ts.
   */
  scheduling?: PodSchedulingRef;
  /** karpenter.sh/do-not-disrupt as written ("true", "30m"); null when absent. */
  doNotDisruptValue?: string | null;
  /** controller.kubernetes.io/pod-deletion-cost as written; null when absent. */
  deletionCost?: string | null;
  /** status.startTime (what a do-not-disrupt duration runs from), epoch ms; null when not started. */
  startedAt?: number | null;
  /**
   * When a Succeeded or Failed pod finished: the latest status.containerStatuses[].state.terminated.finishedAt, epoch
   * ms (what Karpenter's podevents controller dates the pod's terminal event by); null while running or when absent.
   */
  finishedAt?: number | null;
  /** Its PersistentVolumeClaim and generic ephemeral volumes (the only volumes that pin or limit placement). */
  volumes?: PodVolumeRecord[];
  /** The image of a Karpenter controller container this pod runs (karpenterVersion is read off its tag). */
  karpenterImage?: string;
  /** That container's FEATURE_GATES env as written ("SpotToSpotConsolidation=true,…"), when given by value. */
  karpenterFeatureGates?: string;
}

/**
 * The part of a pod the scheduling engine reads and replicas share, stored once per distinct hash (its canonical
 * JSON). Field names and shapes are the Kubernetes API's (kube-types.ts), so the reader spreads it into a pod spec.
 */
export interface PodSchedulingSpec {
  nodeSelector?: Record<string, string>;
  affinity?: KubeAffinity;
  tolerations?: Toleration[];
  topologySpreadConstraints?: KubeTopologySpreadConstraint[];
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: string;
  /** spec.schedulingGates' names: a gated pod is not scheduled (nor provisioned for) until they are removed. */
  schedulingGates?: string[];
  /**
   * Effective requests of every resource the pod names (Kubernetes' rule: max(Σ containers, max init) + overhead,
   * pod-level resources replacing cpu and memory where set): cpu as millicores (`250m`), the rest in base units.
   */
  requests: Record<string, string>;
  /** Host ports its containers claim (two pods claiming one port cannot share a node). */
  hostPorts?: { hostPort: number; protocol?: string; hostIP?: string }[];
  /**
   * True when the required node affinity's matchFields named the pod's own node (`metadata.name In [<node>]`, what
   * the DaemonSet controller writes): stored without the name so a DaemonSet's pods share one spec, put back on read.
   */
  ownNodeAffinity?: true;
}

/** A pod's scheduling spec as canonical JSON and its hash; equal specs share one object (and one stored row). */
export interface PodSchedulingRef {
  hash: string;
  /**
   * The canonical JSON; undefined once a snapshot carrying it is stored (the watch cache keeps the hash alone from
   * then on: collectors/kubernetes/spec-refs.ts), when pod_specs has it under the hash.
   */
  json: string | undefined;
}

export interface PodVolumeRecord {
  name: string;
  claimName?: string;
  /** A generic ephemeral volume's claim template storage class ('' when it names none). */
  ephemeralStorageClass?: string;
}

/**
 * One object of a kind the ledger keeps versioned (NodePools, PodDisruptionBudgets, DaemonSets, PVCs, PVs,
 * StorageClasses, CSINodes, EC2NodeClasses, NodeOverlays, and each Node's mutable part: taints, unschedulable,
 * allocatable): its body as canonical JSON, in the shape the engine reads (core/karpenter/scheduling/kube-types.ts).
 */
/** The versioned kinds, as `kind` is written in the store and in a snapshot's kinds. */
export const VERSIONED_KINDS = [
  'NodePool',
  'Node',
  'PodDisruptionBudget',
  'DaemonSet',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'CSINode',
  'EC2NodeClass',
  'NodeOverlay',
] as const;
export type VersionedKind = (typeof VERSIONED_KINDS)[number];

export interface VersionedObjectRecord {
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
  json: string;
  /** Content hash of `json` (a body is stored once per hash). */
  hash: string;
}

/** How reading one kind went in a snapshot: read, or why not (the CRD is absent, the role lacks it, it failed). */
export type KindState = { state: 'ok' } | { state: 'absent' | 'forbidden' | 'failed'; message: string };

/** Karpenter's version as the collector found it: its controller's image tag, or --karpenter-version. */
export interface KarpenterVersionRecord {
  version: string;
  source: 'image' | 'flag';
  image?: string;
  /** The controller's FEATURE_GATES env as written (read with the image); absent: Karpenter's defaults for the release. */
  featureGates?: string;
}

export interface EventRecord {
  uid: string;
  at: number;
  type: string;
  reason: string;
  message: string;
  kind: string;
  name: string;
  namespace: string | null;
}

/**
 * Where a price came from: the Pricing API, the spot price history, or Karpenter's static table of the region
 * named (`static-table (us-east-1)`: which table priced it); plain `static-table` in rows written before the table
 * was named.
 */
export type PriceSource = 'pricing-api' | 'spot-history' | 'static-table' | `static-table (${string})`;

/** A price per hour in its currency; `unknown` (0) when nothing prices the type. */
export interface PriceQuote {
  pricePerHour: number;
  currency: Currency;
  source: PriceSource | 'unknown';
}

/** One node at one snapshot: what it offers, what its pods request, what it costs then. */
export interface SnapshotNode {
  nodeName: string;
  nodePool: string | null;
  capacityType: CapacityType;
  instanceType: string;
  allocatable: ResourceAmounts;
  requested: ResourceAmounts;
  /** The node's price per hour in `currency` (the name predates currencies); null when unknown. */
  usdPerHour: number | null;
  priceSource: PriceQuote['source'] | null;
  currency: Currency;
}

export interface NodePoolRollup {
  nodePool: string; // '' = nodes without a NodePool
  capacityType: CapacityType;
  nodes: number;
  allocatable: ResourceAmounts;
  requested: ResourceAmounts;
  usdPerHour: number;
  /**
   * Σ node price × node efficiency (requested ÷ allocatable) per resource, USD/h: the numerators of the
   * cost-weighted efficiency Σ(price × efficiency) ÷ Σ price. GPU sums run over nodes offering GPUs only,
   * gpuNodesUsdPerHour being their Σ price. Absent in rows written before these were recorded.
   */
  costWeighted?: CostWeightedSums;
  /** Σ on-demand price of the same instances, USD/h (spot savings); null when unknown for a spot node. */
  onDemandUsdPerHour?: number | null;
  /**
   * Under the relative-price weighting (core/cost-weights.ts), USD/h: the part of the nodes' price their requests
   * cover (idle is the rest), and the CPU and GPU parts of the price (memory's is the rest). Absent in rows written
   * before they were recorded.
   */
  relativePrice?: RelativePriceSums;
}

export interface RelativePriceSums {
  requestedUsdPerHour: number;
  cpuUsdPerHour: number;
  gpuUsdPerHour: number;
}

export interface CostWeightedSums {
  cpuUsdPerHour: number;
  memoryUsdPerHour: number;
  podsUsdPerHour: number;
  gpuUsdPerHour: number;
  gpuNodesUsdPerHour: number;
}

export interface NamespaceRollup {
  namespace: string;
  nodePool: string;
  team: string | null;
  pods: number;
  cpuMillicores: number;
  memoryBytes: number;
  /** Request share of node cost (cpu and memory weighted 50/50 against allocatable). */
  usdPerHour: number;
  /**
   * Σ pod cpu request ÷ node cpu allocatable × node price, USD/h, and the same for memory: any cpu/memory
   * weights apply from these (w_cpu × cpu + w_memory × memory). Absent in rows written before they were recorded.
   */
  cpuShareUsdPerHour?: number;
  memoryShareUsdPerHour?: number;
  /**
   * AWS split cost allocation data for EKS (core/attribution/aws-split.ts), USD/h: the split cost of the namespace's
   * pods, and the instance's unused cost AWS hands them. Absent in rows written before migration 0010.
   */
  awsSplitCostUsdPerHour?: number;
  awsUnusedCostUsdPerHour?: number;
  /** The OpenCost specification's workload cost of the namespace's pods (core/attribution/opencost.ts), USD/h. */
  openCostUsdPerHour?: number;
  /** Pods whose usage fed the AWS split and OpenCost figures (0: requests only). */
  usagePods?: number;
}

export interface KubeSnapshot {
  takenAt: number;
  nodePools: NodePoolRecord[];
  namespaces: NamespaceRecord[];
  nodes: NodeRecord[];
  nodeClaims: NodeClaimRecord[];
  pods: PodRecord[];
  events: EventRecord[];
  /**
   * NodeClaims deleted since the previous snapshot as last seen by a watch (their final conditions: a disruption's
   * DisruptionReason is often set and deleted between two snapshots). Absent when the snapshot came from lists.
   */
  goneNodeClaims?: NodeClaimRecord[];
  /** Objects of the versioned kinds read with this snapshot (absent: none were read, as before issue 21). */
  objects?: VersionedObjectRecord[];
  /** Per versioned kind: read, or why not. A kind not named was not asked for. */
  kinds?: Record<string, KindState>;
  /** Karpenter's version, when readable (or given); absent when not. */
  karpenterVersion?: KarpenterVersionRecord;
}

export const zeroResources = (): ResourceAmounts => ({ cpuMillicores: 0, memoryBytes: 0, pods: 0, gpu: 0 });
export const addResources = (a: ResourceAmounts, b: ResourceAmounts): ResourceAmounts => ({
  cpuMillicores: a.cpuMillicores + b.cpuMillicores,
  memoryBytes: a.memoryBytes + b.memoryBytes,
  pods: a.pods + b.pods,
  gpu: a.gpu + b.gpu,
});
