import type { SelectorRequirement } from './requirements.js';
import type { QuantityInput } from './resources.js';
import type { Taint, Toleration } from './taints.js';

/**
 * The parts of Kubernetes and Karpenter objects the engine reads, shaped as `kubectl get -o yaml` (or the API's
 * JSON) gives them, so parsed YAML can be passed straight in. Everything not listed here is ignored.
 */

export interface KubeOwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  controller?: boolean;
}

export interface KubeObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** RFC 3339 */
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: KubeOwnerReference[];
}

export interface KubeLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface KubePodAffinityTerm {
  labelSelector?: KubeLabelSelector | null;
  topologyKey: string;
  namespaces?: string[];
  namespaceSelector?: KubeLabelSelector | null;
}

export interface KubeWeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: KubePodAffinityTerm;
}

export interface KubeNodeSelectorTerm {
  matchExpressions?: SelectorRequirement[];
}

export interface KubeAffinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: KubeNodeSelectorTerm[] };
    preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference: KubeNodeSelectorTerm }[];
  };
  podAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: KubePodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: KubeWeightedPodAffinityTerm[];
  };
  podAntiAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: KubePodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: KubeWeightedPodAffinityTerm[];
  };
}

export interface KubeTopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  labelSelector?: KubeLabelSelector | null;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  matchLabelKeys?: string[];
}

export interface KubeContainer {
  name?: string;
  resources?: { requests?: Record<string, QuantityInput>; limits?: Record<string, QuantityInput> };
  ports?: { containerPort?: number; hostPort?: number; protocol?: string; hostIP?: string }[];
  restartPolicy?: string;
}

export interface KubePodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: KubeAffinity;
  tolerations?: Toleration[];
  topologySpreadConstraints?: KubeTopologySpreadConstraint[];
  containers: KubeContainer[];
  initContainers?: KubeContainer[];
  /** RuntimeClass overhead as the admission controller writes it into the pod. */
  overhead?: Record<string, QuantityInput>;
  priority?: number;
  priorityClassName?: string;
  runtimeClassName?: string;
  volumes?: KubeVolume[];
  /** Pod-level resources (Kubernetes 1.32+, Karpenter v1.8.0+): when set, they are the pod's requests. */
  resources?: { requests?: Record<string, QuantityInput>; limits?: Record<string, QuantityInput> };
}

export interface KubePod {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec: KubePodSpec;
  status?: {
    phase?: string;
    startTime?: string;
    nominatedNodeName?: string;
    conditions?: { type: string; status: string; reason?: string }[];
    /** When a finished pod's containers ended (state.terminated.finishedAt): the pod's terminal event. */
    containerStatuses?: { name?: string; state?: { terminated?: { finishedAt?: string } } }[];
  };
}

export interface KubeNode {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec?: { taints?: Taint[]; unschedulable?: boolean; providerID?: string };
  status?: {
    allocatable?: Record<string, QuantityInput>;
    capacity?: Record<string, QuantityInput>;
    conditions?: { type: string; status: string }[];
  };
}

export interface KubeBudget {
  nodes: string | number;
  reasons?: string[];
  schedule?: string;
  duration?: string;
}

export interface KubeNodePool {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec: {
    weight?: number;
    /** Static-capacity NodePool (gate StaticCapacity, v1.8.0+): Karpenter keeps exactly this many nodes. */
    replicas?: number;
    limits?: Record<string, QuantityInput>;
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: {
        requirements?: SelectorRequirement[];
        taints?: Taint[];
        startupTaints?: Taint[];
        expireAfter?: string;
        terminationGracePeriod?: string;
        nodeClassRef?: { group?: string; kind?: string; name: string };
      };
    };
    disruption?: {
      consolidationPolicy?: string;
      consolidateAfter?: string;
      budgets?: KubeBudget[];
    };
  };
}

export interface KubePodDisruptionBudget {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec: {
    selector?: KubeLabelSelector | null;
    minAvailable?: string | number;
    maxUnavailable?: string | number;
    unhealthyPodEvictionPolicy?: string;
  };
  status?: { disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number };
}

/*
 * Kinds added for issues 21 and 22 (the what-if sees what Karpenter sees; the Karpenter of today). The stored
 * snapshot reader (db/) and the kubectl-output reader (object-stream.ts) both produce them, so the engine is given
 * the same objects whichever way the cluster was read.
 */

export interface KubeVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  /** Generic ephemeral volumes: a PVC named `<pod>-<volume>` made from this template. */
  ephemeral?: { volumeClaimTemplate?: { spec?: { storageClassName?: string } } };
}

/** karpenter.sh/v1alpha1 NodeOverlay (cluster-scoped; gate NodeOverlay, v1.7.0+). */
export interface KubeNodeOverlay {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec: {
    requirements?: SelectorRequirement[];
    /** Replaces the price, e.g. "0.0843". */
    price?: string;
    /** "+N", "-N", "+N%", "-N%". */
    priceAdjustment?: string;
    /** Extended resources only. */
    capacity?: Record<string, QuantityInput>;
    weight?: number;
  };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** A capacity reservation as an EC2NodeClass's status lists it (aws v1.3+; reservationType v1.6+, interruptible v1.10+). */
export interface KubeCapacityReservationStatus {
  availabilityZone: string;
  id: string;
  instanceMatchCriteria?: string;
  instanceType: string;
  ownerID?: string;
  /** "default" (an ODCR) or "capacity-block". */
  reservationType?: string;
  /** "active" or "expiring". */
  state?: string;
  interruptible?: boolean;
  /** RFC 3339 */
  endTime?: string;
}

/** karpenter.k8s.aws/v1 EC2NodeClass: what prices a node beside its instance (root volume) and its reservations. */
export interface KubeEC2NodeClass {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec?: {
    amiFamily?: string;
    subnetSelectorTerms?: { id?: string; tags?: Record<string, string> }[];
    capacityReservationSelectorTerms?: { id?: string; tags?: Record<string, string>; ownerID?: string; instanceMatchCriteria?: string }[];
    blockDeviceMappings?: {
      deviceName?: string;
      rootVolume?: boolean;
      ebs?: { volumeSize?: string; volumeType?: string; iops?: number; throughput?: number; encrypted?: boolean };
    }[];
  };
  status?: {
    subnets?: { id: string; zone: string; zoneID?: string }[];
    capacityReservations?: KubeCapacityReservationStatus[];
  };
}

export interface KubePersistentVolumeClaim {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec?: {
    storageClassName?: string;
    volumeName?: string;
    accessModes?: string[];
    resources?: { requests?: Record<string, QuantityInput> };
  };
  status?: { phase?: string };
}

export interface KubePersistentVolume {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec?: {
    storageClassName?: string;
    claimRef?: { namespace?: string; name?: string };
    csi?: { driver: string; volumeHandle?: string };
    /** An in-tree EBS volume (attach limits count it as ebs.csi.aws.com). */
    awsElasticBlockStore?: { volumeID?: string };
    /** Node-local volumes: their hostname pin is ignored when placing the pod elsewhere (volumetopology.go). */
    local?: { path?: string };
    hostPath?: { path?: string };
    /** The zone (or other topology) pin: a pod using this volume may only run where these terms match. */
    nodeAffinity?: { required?: { nodeSelectorTerms: KubeNodeSelectorTerm[] } };
    capacity?: Record<string, QuantityInput>;
  };
}

export interface KubeStorageClass {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  provisioner: string;
  volumeBindingMode?: string;
  allowedTopologies?: { matchLabelExpressions?: { key: string; values: string[] }[] }[];
  parameters?: Record<string, string>;
}

/** storage.k8s.io/v1 CSINode: per CSI driver, how many volumes the node can attach. */
export interface KubeCSINode {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec: { drivers?: { name: string; nodeID?: string; topologyKeys?: string[]; allocatable?: { count?: number } }[] };
}

export interface KubeDaemonSet {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec: { selector?: KubeLabelSelector; template: { metadata?: Partial<KubeObjectMeta>; spec: KubePodSpec } };
}

/**
 * A cluster as the engine is given it, whichever way it was read: a stored snapshot (db/repositories, the what-ifs)
 * or `kubectl get -o yaml` (object-stream.ts, `simulate`). The two must agree for the same moment (issue 21).
 */
export interface ClusterObjects {
  nodePools: KubeNodePool[];
  nodes: KubeNode[];
  /** Bound pods (spec.nodeName set; finished ones left out) and pending ones. */
  pods: KubePod[];
  podDisruptionBudgets: KubePodDisruptionBudget[];
  /** DaemonSet pod templates; undefined: the engine takes one running pod per DaemonSet. */
  daemonSetPods?: KubePod[];
  namespaces: { metadata: { name: string; labels?: Record<string, string> } }[];
  nodeOverlays: KubeNodeOverlay[];
  nodeClasses: KubeEC2NodeClass[];
  persistentVolumeClaims: KubePersistentVolumeClaim[];
  persistentVolumes: KubePersistentVolume[];
  storageClasses: KubeStorageClass[];
  csiNodes: KubeCSINode[];
}
