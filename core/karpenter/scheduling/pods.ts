import { effectiveRequestList } from '../../pod-requests.js';
import { naming } from './errors.js';
import type { KubeContainer, KubePod, KubePodAffinityTerm, KubeTopologySpreadConstraint } from './kube-types.js';
import { Requirement, Requirements, type SelectorRequirement } from './requirements.js';
import { parseQuantity, type ResourceMap } from './resources.js';
import type { VolumeUsage } from './volumes.js';
import type { Toleration } from './taints.js';

/** A host port a container binds (Karpenter's scheduling.HostPort). */
export interface HostPort {
  ip: string;
  port: number;
  protocol: string;
}

const unspecified = (ip: string) => ip === '0.0.0.0' || ip === '::';
export const hostPortsConflict = (a: HostPort, b: HostPort): boolean =>
  a.protocol === b.protocol && a.port === b.port && (a.ip === b.ip || unspecified(a.ip) || unspecified(b.ip));

/** The scheduling constraints of a pod that preference relaxation may loosen (a copy per attempt). */
export interface PodConstraints {
  /** nodeAffinity required terms (OR'd), each a list of expressions (AND'd). */
  requiredNodeTerms: SelectorRequirement[][];
  preferredNodeTerms: { weight: number; expressions: SelectorRequirement[] }[];
  requiredPodAffinity: KubePodAffinityTerm[];
  preferredPodAffinity: { weight: number; term: KubePodAffinityTerm }[];
  requiredAntiAffinity: KubePodAffinityTerm[];
  preferredAntiAffinity: { weight: number; term: KubePodAffinityTerm }[];
  spread: KubeTopologySpreadConstraint[];
  tolerations: Toleration[];
}

/** A pod as the engine sees it. Times are epoch ms. */
export interface SchedPod {
  /** "namespace/name" */
  key: string;
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  ownerKind: string | null;
  ownerName: string | null;
  ownerApiVersion: string | null;
  nodeName: string | null;
  phase: string;
  createdAt: number;
  startTime: number | null;
  /**
   * When a finished pod turned terminal: the latest status.containerStatuses[].state.terminated.finishedAt (epoch
   * ms); null for a pod still running or one whose statuses say nothing.
   */
  finishedAt: number | null;
  terminating: boolean;
  priority: number | null;
  nodeSelector: Record<string, string>;
  /** Effective requests by the Kubernetes rule, plus pods: 1. */
  requests: ResourceMap;
  hostPorts: HostPort[];
  constraints: PodConstraints;
  /** Whether the pod carried a PodReady=False condition (PDBs with AlwaysAllow may evict it). */
  notReady: boolean;
  /** What its volumes require of a node (a PV's zone, a StorageClass's allowedTopologies); not part of its affinity. */
  volumeRequirements?: Requirements | null;
  /** When its volumes allow several topologies: all of them, the first being volumeRequirements. */
  volumeAlternatives?: Requirements[] | null;
  /** The PVCs it attaches, per CSI driver (attach limits). */
  volumes?: VolumeUsage | null;
  /** Why Karpenter would not provision for it (a missing PersistentVolumeClaim). */
  volumeError?: string | null;
}

export const cloneConstraints = (c: PodConstraints): PodConstraints => ({
  requiredNodeTerms: [...c.requiredNodeTerms],
  preferredNodeTerms: [...c.preferredNodeTerms],
  requiredPodAffinity: [...c.requiredPodAffinity],
  preferredPodAffinity: [...c.preferredPodAffinity],
  requiredAntiAffinity: [...c.requiredAntiAffinity],
  preferredAntiAffinity: [...c.preferredAntiAffinity],
  spread: [...c.spread],
  tolerations: [...c.tolerations],
});

const time = (s: string | undefined): number | null => {
  if (!s) return null;
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new Error(`not an RFC 3339 time: "${s}"`);
  return t;
};

/** Resources a pod may request at pod level (Kubernetes IsSupportedPodLevelResource: cpu, memory, hugepages). */
const podLevelResource = (name: string) => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');

/**
 * Pod-level `spec.resources` over the containers' effective requests, as resourcehelper.PodRequests does (Karpenter
 * v1.8.0+, component-helpers v0.34): a pod-level request replaces the containers' for that resource; a pod-level
 * limit without a request stands for it when no container requests it (the API server's defaulting, which a
 * manifest that never went through it has not had).
 */
function applyPodLevelResources(requests: ResourceMap, spec: KubePod['spec']): void {
  const level = spec.resources;
  if (!level) return;
  const req = level.requests ?? {};
  const lim = level.limits ?? {};
  for (const name of Object.keys(req)) if (podLevelResource(name)) requests[name] = parseQuantity(name, req[name]);
  for (const name of Object.keys(lim)) {
    if (!podLevelResource(name) || req[name] !== undefined || (requests[name] ?? 0) > 0) continue;
    requests[name] = parseQuantity(name, lim[name]);
  }
}

export interface NormalizeOptions {
  /** Karpenter v1.8.0+ reads pod-level resources (default true). */
  podLevelResources?: boolean;
}

/** Normalises a Kubernetes Pod; a bad quantity, time or operator throws naming the pod. */
export function normalizePod(pod: KubePod, index = 0, opts: NormalizeOptions = {}): SchedPod {
  const ns = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name;
  const label = `Pod ${ns}/${name ?? `#${index}`}`;
  return naming(label, () => {
    if (!name) throw new Error('metadata.name is missing');
    if (!pod.spec || !Array.isArray(pod.spec.containers)) throw new Error('spec.containers is missing');
    const spec = pod.spec;
    // the API server defaults a request to its limit when only the limit is given
    const withDefaults = (cs: KubeContainer[]) =>
      cs.some((c) => c.resources?.limits)
        ? cs.map((c) => ({ ...c, resources: { requests: { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) } } }))
        : cs;
    const requests: ResourceMap = effectiveRequestList(withDefaults(spec.containers), withDefaults(spec.initContainers ?? []));
    if (opts.podLevelResources ?? true) applyPodLevelResources(requests, spec);
    for (const [k, q] of Object.entries(spec.overhead ?? {})) requests[k] = (requests[k] ?? 0) + parseQuantity(k, q);
    requests.pods = 1;
    const owner = pod.metadata.ownerReferences?.find((o) => o.controller) ?? pod.metadata.ownerReferences?.[0];
    const na = spec.affinity?.nodeAffinity;
    const terms = na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    const constraints: PodConstraints = {
      requiredNodeTerms: terms.map((t) => t.matchExpressions ?? []),
      preferredNodeTerms: (na?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p) => ({
        weight: p.weight,
        expressions: p.preference?.matchExpressions ?? [],
      })),
      requiredPodAffinity: spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
      preferredPodAffinity: (spec.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({
        weight: w.weight,
        term: w.podAffinityTerm,
      })),
      requiredAntiAffinity: spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
      preferredAntiAffinity: (spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({
        weight: w.weight,
        term: w.podAffinityTerm,
      })),
      spread: spec.topologySpreadConstraints ?? [],
      tolerations: spec.tolerations ?? [],
    };
    // validate the selector operators now, so a typo is reported against this pod rather than mid-simulation
    for (const t of constraints.requiredNodeTerms) Requirements.fromSelectors(t);
    for (const t of constraints.preferredNodeTerms) Requirements.fromSelectors(t.expressions);
    const hostPorts: HostPort[] = [];
    for (const c of spec.containers) {
      for (const p of c.ports ?? []) {
        if (!p.hostPort) continue;
        hostPorts.push({ ip: p.hostIP || '0.0.0.0', port: p.hostPort, protocol: p.protocol || 'TCP' });
      }
    }
    return {
      key: `${ns}/${name}`,
      uid: pod.metadata.uid ?? `${ns}/${name}`,
      namespace: ns,
      name,
      labels: pod.metadata.labels ?? {},
      annotations: pod.metadata.annotations ?? {},
      ownerKind: owner?.kind ?? null,
      ownerName: owner?.name ?? null,
      ownerApiVersion: owner?.apiVersion ?? null,
      nodeName: spec.nodeName || null,
      phase: pod.status?.phase ?? (spec.nodeName ? 'Running' : 'Pending'),
      createdAt: time(pod.metadata.creationTimestamp) ?? 0,
      startTime: time(pod.status?.startTime),
      finishedAt: latestFinish(pod),
      terminating: Boolean(pod.metadata.deletionTimestamp),
      priority: typeof spec.priority === 'number' ? spec.priority : null,
      nodeSelector: spec.nodeSelector ?? {},
      requests,
      hostPorts,
      constraints,
      notReady: (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False'),
    };
  });
}

/** The latest state.terminated.finishedAt of a pod's containers (epoch ms), null when none ended. */
function latestFinish(pod: KubePod): number | null {
  let latest: number | null = null;
  for (const c of pod.status?.containerStatuses ?? []) {
    const t = time(c.state?.terminated?.finishedAt);
    if (t !== null && (latest === null || t > latest)) latest = t;
  }
  return latest;
}

const byWeightDesc = <T extends { weight: number }>(a: T, b: T) => b.weight - a.weight;

/**
 * Karpenter's pod requirements: the nodeSelector, the heaviest preferred node-affinity term (treated as required
 * until relaxed, unless preferences are ignored) and the first required term (the others are tried as the first is
 * relaxed away).
 */
export function podRequirements(pod: SchedPod, c: PodConstraints, includePreferences: boolean): Requirements {
  const out = new Requirements();
  for (const [k, v] of Object.entries(pod.nodeSelector)) out.add(Requirement.of(k, 'In', [v]));
  if (includePreferences && c.preferredNodeTerms.length > 0) {
    const heaviest = [...c.preferredNodeTerms].sort(byWeightDesc)[0];
    out.addAll(Requirements.fromSelectors(heaviest.expressions));
  }
  if (c.requiredNodeTerms.length > 0) out.addAll(Requirements.fromSelectors(c.requiredNodeTerms[0]));
  return out;
}

export const isTerminal = (p: SchedPod) => p.phase === 'Succeeded' || p.phase === 'Failed';
export const isActive = (p: SchedPod) => !isTerminal(p) && !p.terminating;
const ownedBy = (p: SchedPod, apiVersion: string, kind: string) =>
  p.ownerKind === kind && (p.ownerApiVersion === null || p.ownerApiVersion === apiVersion);
export const isOwnedByDaemonSet = (p: SchedPod) => ownedBy(p, 'apps/v1', 'DaemonSet');
export const isOwnedByNode = (p: SchedPod) => ownedBy(p, 'v1', 'Node');
export const isOwnedByStatefulSet = (p: SchedPod) => ownedBy(p, 'apps/v1', 'StatefulSet');

/** Karpenter's pod.IsReschedulable: pods that need a new home when their node goes. */
export const isReschedulable = (p: SchedPod) =>
  (isActive(p) || (isOwnedByStatefulSet(p) && p.terminating)) && !isOwnedByDaemonSet(p) && !isOwnedByNode(p);

/** Pods waiting for a node: not bound, not finished, not a daemon or mirror pod. */
export const isProvisionable = (p: SchedPod) => p.nodeName === null && isActive(p) && !isOwnedByDaemonSet(p) && !isOwnedByNode(p);

export const hasAntiAffinity = (c: PodConstraints) => c.requiredAntiAffinity.length > 0 || c.preferredAntiAffinity.length > 0;

export type { SelectorRequirement };

/**
 * `replicas` pending pods from one pod template (a Deployment's spec.template, a pasted Pod), named
 * `<name>-0`, `<name>-1`…, for predicting where a workload would go.
 */
export function expandReplicas(template: KubePod, replicas: number): KubePod[] {
  const base = template.metadata?.name ?? 'pod';
  return Array.from({ length: replicas }, (_, i) => ({
    ...template,
    metadata: { ...template.metadata, name: `${base}-${i}`, uid: `${template.metadata?.namespace ?? 'default'}/${base}-${i}` },
    spec: { ...template.spec, nodeName: undefined },
    status: { phase: 'Pending' },
  }));
}
