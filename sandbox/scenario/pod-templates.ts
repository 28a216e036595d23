import type { KubePod, KubeVolume } from '../../core/karpenter/scheduling/kube-types.js';
import { ANNOTATION_DO_NOT_DISRUPT } from '../../core/labels.js';
import { karpenterControllerDigest } from './karpenter-images.js';
import type { DaemonSetSpec, TolerationSpec, WorkloadSpec } from './scenario-file.js';
import type { EpochMs, SimContainer, SimNodePool, SimPod, SimPodTemplate, SimToleration } from './types.js';

/**
 * The pod templates of the scenario's controllers, as their charts write them, and the Pod object the engine reads
 * for a pod made from one. The simulation schedules with these; the Kubernetes API serves the same fields.
 */

/** The built-in PriorityClasses (scheduling.k8s.io/v1) and their values. */
export const PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

/** What every pod of one controller carries, and who owns it. */
export interface PodShape extends SimPodTemplate {
  namespace: string;
  ownerKind: SimPod['ownerKind'];
  /** The owner's name (a Job's, per run, is given with each pod). */
  ownerName: string;
  /** Its controller's workloadKey. */
  workloadKey: string;
}

const tolerationOf = (t: TolerationSpec): SimToleration => ({ ...t });

const priorityOf = (className: string | undefined): number => (className === undefined ? 0 : (PRIORITY_CLASSES[className] ?? 0));

/** A DaemonSet's template: tolerations as its chart writes them (absent: every taint, operator Exists). */
export function daemonSetTemplate(ds: DaemonSetSpec): SimPodTemplate {
  const container: SimContainer = {
    name: ds.name,
    image: ds.image ?? `public.ecr.aws/eks/${ds.name}:v1.31.0`,
    resources: { requests: { ...ds.requests } as Record<string, string> },
    ...(ds.hostPort !== undefined
      ? { ports: [{ name: 'metrics', containerPort: ds.hostPort, hostPort: ds.hostPort, protocol: 'TCP' }] }
      : {}),
  };
  return {
    labels: { app: ds.name },
    annotations: {},
    containers: [container],
    initContainers: [],
    nodeSelector: { ...(ds.nodeSelector ?? {}) },
    tolerations: (ds.tolerations ?? [{ operator: 'Exists' }]).map(tolerationOf),
    ...(ds.affinity ? { affinity: ds.affinity } : {}),
    ...(ds.priorityClassName ? { priorityClassName: ds.priorityClassName } : {}),
    priority: priorityOf(ds.priorityClassName),
    ...(ds.hostNetwork ? { hostNetwork: true } : {}),
    ...(ds.hostPort !== undefined ? { hostPort: ds.hostPort } : {}),
  };
}

/**
 * The tolerations the DaemonSet controller adds to every pod it makes (kubernetes pkg/controller/daemon/util
 * AddOrUpdateDaemonPodTolerations): NoExecute for not-ready and unreachable, NoSchedule for disk, memory and PID
 * pressure and for unschedulable (a cordoned node), and network-unavailable for pods on the host network.
 */
export function daemonControllerTolerations(hostNetwork: boolean): SimToleration[] {
  return [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ...(hostNetwork ? [{ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : []),
  ];
}

const resolveImage = (image: string, karpenterVersion: string): string =>
  image.replaceAll('${karpenterVersion}', karpenterVersion).replaceAll('${karpenterDigest}', karpenterControllerDigest(karpenterVersion));

/**
 * A workload's template: nodeSelector on its NodePool (or the managed node group) and capacity type, plus its own;
 * tolerations as written, else the NodePool's taints tolerated with Equal.
 */
export function workloadTemplate(
  spec: WorkloadSpec,
  pool: Pick<SimNodePool, 'taints'> | undefined,
  karpenterVersion: string,
  templateHash: string | null,
  /** The FEATURE_GATES env a Karpenter controller container gets (karpenterFeatureGatesEnv). */
  featureGatesEnv?: string,
): SimPodTemplate {
  const controller = spec.image !== undefined && spec.image.includes('karpenter/controller:${karpenterVersion}');
  const containers: SimContainer[] = [
    {
      name: spec.name.split('-')[0],
      image: spec.image ? resolveImage(spec.image, karpenterVersion) : `public.ecr.aws/ledger-demo/${spec.name}:1.4.2`,
      resources: { requests: { ...spec.requests } as Record<string, string> },
      ...(controller && featureGatesEnv !== undefined ? { env: [{ name: 'FEATURE_GATES', value: featureGatesEnv }] } : {}),
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
  const nodeSelector: Record<string, string> = {};
  if (spec.target !== 'managed') nodeSelector['karpenter.sh/nodepool'] = spec.target;
  if (spec.capacityType) nodeSelector['karpenter.sh/capacity-type'] = spec.capacityType;
  if (spec.target === 'managed') nodeSelector['eks.amazonaws.com/nodegroup'] = 'karpenter-mng';
  Object.assign(nodeSelector, spec.nodeSelector ?? {});
  const tolerations: SimToleration[] = spec.tolerations
    ? spec.tolerations.map(tolerationOf)
    : (pool?.taints ?? []).map((taint) => ({ key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect }));
  return {
    labels: { app: spec.name, ...(spec.labels ?? {}), ...(templateHash !== null ? { 'pod-template-hash': templateHash } : {}) },
    annotations: { ...(spec.doNotDisrupt ? { [ANNOTATION_DO_NOT_DISRUPT]: 'true' } : {}), ...(spec.annotations ?? {}) },
    containers,
    initContainers,
    nodeSelector,
    tolerations,
    ...(spec.affinity ? { affinity: spec.affinity } : {}),
    ...(spec.topologySpreadConstraints ? { topologySpreadConstraints: spec.topologySpreadConstraints } : {}),
    ...(spec.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}),
    priority: priorityOf(spec.priorityClassName),
  };
}

/** The volumes a StatefulSet pod mounts for its claims: `<template>-<pod>`. */
export const claimVolumes = (templates: readonly { name: string }[], podName: string): KubeVolume[] =>
  templates.map((t) => ({ name: t.name, persistentVolumeClaim: { claimName: `${t.name}-${podName}` } }));

/** The Pod object the engine reads for a pod of `shape`: bound to `nodeName`, or pending. */
export function kubePodOf(
  shape: PodShape,
  pod: {
    name: string;
    uid: string;
    createdAt: EpochMs;
    /** When it was bound (its start); null while pending. */
    startedAt: EpochMs | null;
    ownerName: string;
    nodeName: string | null;
    volumes: readonly KubeVolume[];
  },
): KubePod {
  const volumes = [...(shape.volumes ?? []), ...pod.volumes];
  const ports = (c: SimContainer) => (c.ports ? { ports: c.ports } : {});
  return {
    metadata: {
      name: pod.name,
      namespace: shape.namespace,
      uid: pod.uid,
      labels: shape.labels,
      annotations: shape.annotations,
      creationTimestamp: new Date(pod.createdAt).toISOString(),
      ownerReferences: [
        {
          apiVersion: shape.ownerKind === 'Node' ? 'v1' : shape.ownerKind === 'Job' ? 'batch/v1' : 'apps/v1',
          kind: shape.ownerKind,
          name: pod.ownerName,
          controller: true,
        },
      ],
    },
    spec: {
      ...(pod.nodeName !== null ? { nodeName: pod.nodeName } : {}),
      nodeSelector: shape.nodeSelector,
      ...(shape.affinity ? { affinity: shape.affinity } : {}),
      tolerations: shape.tolerations,
      ...(shape.topologySpreadConstraints ? { topologySpreadConstraints: shape.topologySpreadConstraints } : {}),
      containers: shape.containers.map((c) => ({ name: c.name, resources: c.resources, ...ports(c) })),
      initContainers: shape.initContainers.map((c) => ({ name: c.name, resources: c.resources })),
      priority: shape.priority,
      ...(shape.priorityClassName ? { priorityClassName: shape.priorityClassName } : {}),
      ...(volumes.length > 0 ? { volumes } : {}),
    },
    status:
      pod.nodeName !== null
        ? { phase: 'Running', startTime: new Date(pod.startedAt ?? pod.createdAt).toISOString() }
        : { phase: 'Pending' },
  };
}
