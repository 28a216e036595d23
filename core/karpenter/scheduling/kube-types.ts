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
  runtimeClassName?: string;
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
