import type { CoreV1Event, V1Namespace, V1Node, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_DO_NOT_DISRUPT, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE } from '../../core/labels.js';
import type { CapacityType } from '../../core/labels.js';
import type {
  EventRecord,
  NamespaceRecord,
  NodeClaimRecord,
  NodePoolRecord,
  NodeRecord,
  PodRecord,
  PodSchedulingRef,
  PodSchedulingSpec,
  ResourceAmounts,
} from '../../core/model.js';
import { disruptionFromConditions } from '../../core/karpenter/events.js';
import { requirementsFromJson } from '../../core/karpenter/requirements.js';
import { parseBaseUnits, parseCpuMillicores, quantitiesFromJson } from '../../core/quantity.js';
import { mapContainers } from './map-metrics.js';
import {
  annotationValue,
  ANNOTATION_POD_DELETION_COST,
  createSpecTable,
  finishedAtOf,
  honoursDoNotDisrupt,
  karpenterFeatureGatesOf,
  karpenterImageOf,
  podRequestList,
  podSchedulingSpec,
  podVolumes,
  startedAtOf,
} from './map-scheduling.js';

/** Pure mappings from Kubernetes API objects to the ledger's records. */

const ms = (d: Date | string | undefined): number => (d === undefined ? 0 : new Date(d).getTime());

/** `aws:///us-east-1a/i-0abc` -> `i-0abc` (three slashes: the host part is empty). */
export function instanceIdFromProviderId(providerId: string | undefined): string | null {
  const m = /^aws:\/\/\/[^/]*\/(i-[0-9a-f]+)$/.exec(providerId ?? '');
  return m ? m[1] : null;
}

export function parseResources(r: Record<string, string> | undefined): ResourceAmounts {
  return {
    cpuMillicores: r?.cpu ? parseCpuMillicores(r.cpu) : 0,
    memoryBytes: r?.memory ? parseBaseUnits(r.memory) : 0,
    pods: r?.pods ? parseBaseUnits(r.pods) : 0,
    gpu: r?.['nvidia.com/gpu'] ? parseBaseUnits(r['nvidia.com/gpu']) : 0,
  };
}

function capacityTypeOf(labels: Record<string, string>): CapacityType {
  const karpenter = labels[LABEL_CAPACITY_TYPE];
  if (karpenter === 'spot' || karpenter === 'on-demand' || karpenter === 'reserved') return karpenter;
  return labels['eks.amazonaws.com/capacityType'] === 'SPOT' ? 'spot' : 'on-demand';
}

export function mapNode(n: V1Node): NodeRecord {
  const labels = n.metadata?.labels ?? {};
  const owner = n.metadata?.ownerReferences?.find((o) => o.kind === 'NodeClaim');
  return {
    name: n.metadata?.name ?? '',
    nodeClaim: owner?.name ?? null,
    nodePool: labels[LABEL_NODEPOOL] ?? null,
    instanceType: labels[LABEL_INSTANCE_TYPE] ?? labels['beta.kubernetes.io/instance-type'] ?? 'unknown',
    capacityType: capacityTypeOf(labels),
    zone: labels[LABEL_ZONE] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? 'unknown',
    instanceId: instanceIdFromProviderId(n.spec?.providerID),
    createdAt: ms(n.metadata?.creationTimestamp),
    allocatable: parseResources(n.status?.allocatable),
    // Absent stays absent (unknown), not {}: a node offering nothing would read as 0 against the limits.
    capacity: n.status?.capacity === undefined ? undefined : { ...n.status.capacity },
    labels,
  };
}

/** Shared by every pod mapped without a table of its own (the canonical text keys it: see createSpecTable). */
const sharedSpecs = createSpecTable();

export function mapPod(
  p: V1Pod,
  namespaceTeam: Map<string, string | null>,
  teamLabel: string,
  specOf: (spec: PodSchedulingSpec) => PodSchedulingRef = sharedSpecs,
): PodRecord {
  const labels = p.metadata?.labels ?? {};
  const doNotDisruptValue = annotationValue(p, ANNOTATION_DO_NOT_DISRUPT);
  const volumes = podVolumes(p);
  const karpenterImage = karpenterImageOf(p);
  const karpenterFeatureGates = karpenterFeatureGatesOf(p);
  const requestList = podRequestList(p);
  const owner = p.metadata?.ownerReferences?.find((o) => o.controller) ?? p.metadata?.ownerReferences?.[0];
  const namespace = p.metadata?.namespace ?? '';
  return {
    uid: p.metadata?.uid ?? `${namespace}/${p.metadata?.name}`,
    namespace,
    name: p.metadata?.name ?? '',
    nodeName: p.spec?.nodeName ?? null,
    phase: p.status?.phase ?? 'Unknown',
    ownerKind: owner?.kind ?? null,
    ownerName: owner?.name ?? null,
    team: labels[teamLabel] ?? namespaceTeam.get(namespace) ?? null,
    // Kubernetes' effective requests (pod-level resources of Kubernetes 1.32+ included), computed once for both.
    requests: {
      cpuMillicores: requestList.cpu ?? 0,
      memoryBytes: requestList.memory ?? 0,
      pods: 1,
      gpu: requestList['nvidia.com/gpu'] ?? 0,
    },
    // Per container: requests and limits beside usage, restarts and OOM kills (lastState.terminated).
    containers: mapContainers(p.spec?.containers, p.status?.containerStatuses),
    // "true" or a duration ("30m", Karpenter v1.12+): the value itself is kept for when it runs out.
    doNotDisrupt: honoursDoNotDisrupt(doNotDisruptValue),
    createdAt: ms(p.metadata?.creationTimestamp),
    labels,
    scheduling: specOf(podSchedulingSpec(p, requestList)),
    doNotDisruptValue,
    deletionCost: annotationValue(p, ANNOTATION_POD_DELETION_COST),
    startedAt: startedAtOf(p),
    finishedAt: finishedAtOf(p),
    ...(volumes === undefined ? {} : { volumes }),
    ...(karpenterImage === undefined ? {} : { karpenterImage }),
    ...(karpenterFeatureGates === undefined ? {} : { karpenterFeatureGates }),
  };
}

export function mapNamespace(ns: V1Namespace, teamLabel: string): NamespaceRecord {
  const labels = ns.metadata?.labels ?? {};
  return { name: ns.metadata?.name ?? '', team: labels[teamLabel] ?? null, labels };
}

export function mapEvent(e: CoreV1Event): EventRecord {
  return {
    uid: e.metadata?.uid ?? `${e.metadata?.namespace}/${e.metadata?.name}`,
    at: ms(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp),
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    message: e.message ?? '',
    kind: e.involvedObject?.kind ?? '',
    name: e.involvedObject?.name ?? '',
    namespace: e.involvedObject?.namespace ?? null,
  };
}

/** Karpenter's CRDs come back as plain JSON from the custom objects API: read them defensively. */
type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).filter(([, x]) => typeof x === 'string')) as Record<string, string>;

export function mapNodePool(raw: unknown): NodePoolRecord {
  const o = obj(raw);
  const spec = obj(o.spec);
  const tmpl = obj(obj(spec.template).spec);
  const requirements = requirementsFromJson(tmpl.requirements);
  const disruption = obj(spec.disruption);
  const ct = requirements.find((r) => r.key === LABEL_CAPACITY_TYPE && r.operator === 'In');
  return {
    name: str(obj(o.metadata).name) ?? '',
    weight: typeof spec.weight === 'number' ? spec.weight : null,
    consolidationPolicy: str(disruption.consolidationPolicy),
    consolidateAfter: str(disruption.consolidateAfter),
    capacityTypes: ct?.values ?? ['on-demand'],
    requirements,
    // int-or-string: `cpu: 100` and `nodes: 10` arrive as JSON numbers, `memory: 1000Gi` as a string.
    limits: quantitiesFromJson(spec.limits),
    budgets: arr(disruption.budgets).map((b) => {
      const x = obj(b);
      return {
        nodes: str(x.nodes) ?? '10%',
        ...(x.reasons ? { reasons: arr(x.reasons).filter((v): v is string => typeof v === 'string') } : {}),
        ...(str(x.schedule) ? { schedule: str(x.schedule) ?? '' } : {}),
        ...(str(x.duration) ? { duration: str(x.duration) ?? '' } : {}),
      };
    }),
    nodeClass: str(obj(tmpl.nodeClassRef).name),
    // karpenter.sh/v1 moved expireAfter into the template; v1beta1 had it under disruption.
    expireAfter: str(tmpl.expireAfter) ?? str(disruption.expireAfter),
    taints: arr(tmpl.taints).flatMap((t) => {
      const x = obj(t);
      const key = str(x.key);
      const effect = str(x.effect);
      if (key === null || effect === null) return [];
      const value = str(x.value);
      return [{ key, ...(value === null ? {} : { value }), effect }];
    }),
  };
}

export function mapNodeClaim(raw: unknown): NodeClaimRecord {
  const o = obj(raw);
  const md = obj(o.metadata);
  const labels = strMap(md.labels);
  const status = obj(o.status);
  const conditions = arr(status.conditions).map((c) => {
    const x = obj(c);
    return {
      type: str(x.type) ?? '',
      status: str(x.status) ?? '',
      reason: str(x.reason) ?? undefined,
      message: str(x.message) ?? undefined,
      lastTransitionTime: str(x.lastTransitionTime) ?? undefined,
    };
  });
  const disruption = disruptionFromConditions(conditions);
  const spec = obj(o.spec);
  return {
    name: str(md.name) ?? '',
    nodePool: labels[LABEL_NODEPOOL] ?? null,
    nodeName: str(status.nodeName),
    instanceType: labels[LABEL_INSTANCE_TYPE] ?? null,
    capacityType: labels[LABEL_CAPACITY_TYPE] ?? null,
    zone: labels[LABEL_ZONE] ?? null,
    instanceId: instanceIdFromProviderId(str(status.providerID) ?? undefined),
    createdAt: ms(str(md.creationTimestamp) ?? undefined),
    disruptionReason: disruption?.text ?? null,
    disruptionAt: disruption?.atMs ?? null,
    expireAfter: str(spec.expireAfter),
    conditions,
  };
}
