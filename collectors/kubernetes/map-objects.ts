import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_DO_NOT_DISRUPT } from '../../core/labels.js';
import type { VersionedKind, VersionedObjectRecord } from '../../core/model.js';
import { canonicalJson, contentHash } from './canonical-json.js';

/**
 * Pure: the objects of the versioned kinds as the bodies the store keeps (one row per distinct body) and the
 * scheduling engine reads (core/karpenter/scheduling/kube-types.ts): each keeps the fields Karpenter decides on and
 * drops what changes without meaning anything to it (managedFields, resourceVersion, timestamps, the
 * last-applied annotation, conditions' transition times, a CSI driver's node id), so an object that did not change
 * for Karpenter keeps its version. Raw JSON (custom objects API) and the client's model classes (core API) alike.
 */

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const arr = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const nonEmptyArr = (v: unknown): unknown[] | undefined => {
  const a = arr(v);
  return a !== undefined && a.length > 0 ? a : undefined;
};
const nonEmptyObj = (v: unknown): Json | undefined => {
  const o = obj(v);
  return o !== undefined && Object.keys(o).some((k) => o[k] !== undefined) ? o : undefined;
};
/** Only the keys given, those defined. */
const pick = (o: Json | undefined, keys: readonly string[]): Json | undefined => {
  if (o === undefined) return undefined;
  const out: Json = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return Object.keys(out).length > 0 ? out : undefined;
};

export { VERSIONED_KINDS, type VersionedKind } from '../../core/model.js';

/**
 * The object's record: its body without its name and namespace (they are the version's key, and put back on read),
 * so objects alike (the CSINodes of one instance type, the Nodes of one NodePool) share one stored body.
 */
function versioned(kind: VersionedKind, namespace: string | undefined, name: string | undefined, body: Json): VersionedObjectRecord | null {
  if (name === undefined || name === '') return null;
  const { name: _name, namespace: _namespace, ...metadata } = obj(body.metadata) ?? {};
  const json = canonicalJson({ ...body, metadata: Object.keys(metadata).some((k) => metadata[k] !== undefined) ? metadata : undefined });
  return { kind, namespace: namespace ?? '', name, json, hash: contentHash(json) };
}

const metaOf = (o: Json | undefined) => {
  const md = obj(o?.metadata);
  return { name: str(md?.name), namespace: str(md?.namespace), labels: nonEmptyObj(md?.labels) };
};

/** karpenter.sh/v1 NodePool: its whole spec (requirements, taints, limits, disruption, weight, replicas, …). */
export function nodePoolObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name } = metaOf(o);
  return versioned('NodePool', undefined, name, {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: obj(o?.spec) ?? {},
  });
}

/** A Node's mutable part Karpenter reads: taints (karpenter.sh/disrupted when it disrupts), cordon, allocatable, do-not-disrupt. */
export function nodeSpecObject(n: V1Node): VersionedObjectRecord | null {
  const taints = (n.spec?.taints ?? []).map((t) => ({ key: t.key, value: t.value, effect: t.effect }));
  const dnd = n.metadata?.annotations?.[ANNOTATION_DO_NOT_DISRUPT];
  return versioned('Node', undefined, n.metadata?.name, {
    ...(dnd === undefined ? {} : { metadata: { annotations: { [ANNOTATION_DO_NOT_DISRUPT]: dnd } } }),
    spec: { taints: taints.length > 0 ? taints : undefined, unschedulable: n.spec?.unschedulable === true ? true : undefined },
    status: { allocatable: nonEmptyObj(n.status?.allocatable) },
  });
}

/** policy/v1 PodDisruptionBudget with the status Karpenter reads (disruptionsAllowed). */
export function podDisruptionBudgetObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name, namespace } = metaOf(o);
  return versioned('PodDisruptionBudget', namespace, name, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace },
    spec: pick(obj(o?.spec), ['selector', 'minAvailable', 'maxUnavailable', 'unhealthyPodEvictionPolicy']) ?? {},
    status: pick(obj(o?.status), ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']),
  });
}

const CONTAINER_KEYS = ['name', 'resources', 'restartPolicy'] as const;
function containerOf(c: unknown): Json {
  const x = obj(c);
  const hostPorts = arr(x?.ports)?.filter((p) => (num(obj(p)?.hostPort) ?? 0) > 0);
  return { ...pick(x, CONTAINER_KEYS), ...(hostPorts !== undefined && hostPorts.length > 0 ? { ports: hostPorts } : {}) };
}

/** A pod spec as far as scheduling goes: containers reduced to their resources, ports on the host and restart policy. */
function schedulingPodSpec(spec: Json | undefined): Json {
  const volumes = arr(spec?.volumes)?.filter((v) => obj(v)?.persistentVolumeClaim !== undefined || obj(v)?.ephemeral !== undefined);
  return {
    ...pick(spec, [
      'nodeSelector',
      'affinity',
      'tolerations',
      'topologySpreadConstraints',
      'priority',
      'priorityClassName',
      'preemptionPolicy',
      'runtimeClassName',
      'overhead',
      'resources',
    ]),
    containers: (arr(spec?.containers) ?? []).map(containerOf),
    ...(nonEmptyArr(spec?.initContainers) ? { initContainers: (arr(spec?.initContainers) ?? []).map(containerOf) } : {}),
    ...(volumes !== undefined && volumes.length > 0 ? { volumes } : {}),
  };
}

/** apps/v1 DaemonSet: its selector and pod template (what each node of a NodePool it tolerates will run). */
export function daemonSetObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name, namespace } = metaOf(o);
  const spec = obj(o?.spec);
  const template = obj(spec?.template);
  const tmd = obj(template?.metadata);
  const dnd = str(obj(tmd?.annotations)?.[ANNOTATION_DO_NOT_DISRUPT]);
  return versioned('DaemonSet', namespace, name, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace },
    spec: {
      selector: spec?.selector,
      template: {
        metadata: {
          labels: nonEmptyObj(tmd?.labels),
          ...(dnd === undefined ? {} : { annotations: { [ANNOTATION_DO_NOT_DISRUPT]: dnd } }),
        },
        spec: schedulingPodSpec(obj(template?.spec)),
      },
    },
  });
}

/** v1 PersistentVolumeClaim (core API model or raw JSON). */
export function persistentVolumeClaimObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name, namespace } = metaOf(o);
  const spec = obj(o?.spec);
  return versioned('PersistentVolumeClaim', namespace, name, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: {
      ...pick(spec, ['storageClassName', 'volumeName', 'accessModes']),
      resources: pick(obj(spec?.resources), ['requests']),
    },
    status: pick(obj(o?.status), ['phase']),
  });
}

/** v1 PersistentVolume: its node affinity is the zone pin of the pods that use it. */
export function persistentVolumeObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name, labels } = metaOf(o);
  const spec = obj(o?.spec);
  const claimRef = pick(obj(spec?.claimRef), ['namespace', 'name']);
  return versioned('PersistentVolume', undefined, name, {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    // In-tree EBS volumes (awsElasticBlockStore) carry their zone as a label instead of node affinity.
    metadata: { name, labels },
    spec: {
      ...pick(spec, ['storageClassName', 'nodeAffinity', 'capacity', 'accessModes']),
      ...(claimRef === undefined ? {} : { claimRef }),
      csi: pick(obj(spec?.csi), ['driver', 'volumeHandle']),
      awsElasticBlockStore: pick(obj(spec?.awsElasticBlockStore), ['volumeID']),
    },
  });
}

/** storage.k8s.io/v1 StorageClass. */
export function storageClassObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name } = metaOf(o);
  return versioned('StorageClass', undefined, name, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    ...pick(o, ['provisioner', 'volumeBindingMode', 'allowedTopologies', 'parameters']),
  });
}

/** storage.k8s.io/v1 CSINode: per driver, how many volumes the node attaches (its node id left out: it is the instance's). */
export function csiNodeObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name } = metaOf(o);
  const drivers = (arr(obj(o?.spec)?.drivers) ?? []).map((d) => pick(obj(d), ['name', 'topologyKeys', 'allocatable']) ?? {});
  return versioned('CSINode', undefined, name, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name },
    spec: { drivers },
  });
}

/** karpenter.k8s.aws/v1 EC2NodeClass: subnets' zones, the root volume, kubelet settings and capacity reservations. */
export function ec2NodeClassObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name } = metaOf(o);
  const status = obj(o?.status);
  return versioned('EC2NodeClass', undefined, name, {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: pick(obj(o?.spec), [
      'amiFamily',
      'subnetSelectorTerms',
      'capacityReservationSelectorTerms',
      'blockDeviceMappings',
      'instanceStorePolicy',
      'kubelet',
    ]),
    status: {
      subnets: arr(status?.subnets)?.map((s) => pick(obj(s), ['id', 'zone', 'zoneID']) ?? {}),
      capacityReservations: arr(status?.capacityReservations),
    },
  });
}

/** karpenter.sh/v1alpha1 NodeOverlay (its conditions say whether Karpenter applied it). */
export function nodeOverlayObject(raw: unknown): VersionedObjectRecord | null {
  const o = obj(raw);
  const { name } = metaOf(o);
  const conditions = arr(obj(o?.status)?.conditions)?.map((c) => pick(obj(c), ['type', 'status', 'reason', 'message']) ?? {});
  return versioned('NodeOverlay', undefined, name, {
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name },
    spec: obj(o?.spec) ?? {},
    ...(conditions !== undefined && conditions.length > 0 ? { status: { conditions } } : {}),
  });
}
