import type { NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import type { CapacityType, DisruptionReason } from '../../core/labels.js';

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
  consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized';
  consolidateAfter: string;
  budgets: { nodes: string; reasons?: DisruptionReason[] }[];
  nodeClassName: string;
  taints?: { key: string; value?: string; effect: string }[];
  expireAfter: string;
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
}

export interface SimPod {
  uid: string;
  namespace: string;
  name: string;
  ownerKind: 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet' | 'Node';
  ownerName: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  containers: SimContainer[];
  initContainers: SimContainer[];
  nodeSelector: Record<string, string>;
  tolerations: { key: string; operator: string; value?: string; effect?: string }[];
  nodeName: string;
  createdAt: EpochMs;
  /** Removal time; null while it lives at the end of the scenario. */
  deletedAt: EpochMs | null;
  /** Jobs end Succeeded. */
  endPhase: 'Succeeded' | 'Deleted';
  /** Effective requests by the Kubernetes rule, precomputed. */
  requests: Resources;
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
}
