import type {
  ClusterObjects,
  KubeCSINode,
  KubeDaemonSet,
  KubeEC2NodeClass,
  KubeNode,
  KubeNodeOverlay,
  KubeNodePool,
  KubeObjectMeta,
  KubePersistentVolume,
  KubePersistentVolumeClaim,
  KubePod,
  KubePodDisruptionBudget,
  KubeStorageClass,
  KubeVolume,
} from '../../core/karpenter/scheduling/kube-types.js';
import type { Taint } from '../../core/karpenter/scheduling/taints.js';
import { ANNOTATION_DO_NOT_DISRUPT, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE } from '../../core/labels.js';
import type { KindState, NodePoolRecord, PodSchedulingSpec, PodVolumeRecord } from '../../core/model.js';

/**
 * Pure: the rows of one stored snapshot (cluster-snapshot-repository.ts reads them) as the Kubernetes objects the
 * scheduling engine is given (ClusterObjects), and what the snapshot lacks in words.
 *
 * A pod comes back with its real scheduling spec (node selector, affinity, tolerations, topology spread, priority,
 * host ports, PersistentVolumeClaim volumes, do-not-disrupt and pod-deletion-cost as written, status.startTime) and
 * ONE container named `requests` carrying its effective requests (every resource; init containers, pod-level
 * resources and overhead already folded in, as the Kubernetes scheduler and Karpenter compute them): the store keeps
 * effective requests, not containers. Bound pods come back Running, pods not bound by then Pending, pods finished
 * by then (and still listed) Succeeded or Failed with the container's state.terminated.finishedAt their finish time
 * (the phase between is not kept, only when a pod was bound and when it finished).
 *
 * Rows written before migration 0019 lack the new fields; they read as before (and `gaps` says so): pods as running
 * pods with cpu, memory and GPU requests and no constraints, nodes with their NodePool's taints, the NodePools as
 * last stored, and no PDBs, DaemonSets, volumes, NodeOverlays or EC2NodeClasses.
 */

export const GPU_RESOURCE = 'nvidia.com/gpu';
export const ANNOTATION_POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const LABEL_HOSTNAME = 'kubernetes.io/hostname';
const OWN_NODE_FIELD = 'metadata.name';

/** The versioned kinds a snapshot reads (kinds_json). */
export type SnapshotKinds = Readonly<Record<string, KindState>> | null;

export interface SnapshotNodeRow {
  name: string;
  nodePool: string | null;
  instanceType: string;
  capacityType: string;
  zone: string;
  instanceId: string | null;
  createdAt: number;
  allocCpuMillicores: number;
  allocMemoryBytes: number;
  allocPods: number;
  allocGpu: number;
  /** status.capacity as stored; null for nodes collected before migration 0008. */
  capacity: Record<string, string> | null;
  labels: Record<string, string>;
}

export interface SnapshotPodRow {
  uid: string;
  namespace: string;
  name: string;
  /** Its node then; null when pending then. */
  nodeName: string | null;
  ownerKind: string | null;
  ownerName: string | null;
  cpuMillicores: number;
  memoryBytes: number;
  gpu: number;
  doNotDisrupt: boolean;
  createdAt: number;
  labels: Record<string, string>;
  /** null in rows written before migration 0019 (then `doNotDisrupt` stands for "true"). */
  doNotDisruptValue: string | null;
  deletionCost: string | null;
  startedAt: number | null;
  volumes: PodVolumeRecord[] | null;
  /** null: written before migration 0019. */
  spec: PodSchedulingSpec | null;
  /** Finished by the snapshot (still listed then): its phase and when it finished (epoch ms); null while running. */
  finished: { phase: 'Succeeded' | 'Failed'; at: number } | null;
}

/** A versioned object as stored (its body already in the engine's shape). */
export interface StoredBody {
  namespace: string;
  name: string;
  body: unknown;
}

export interface ClusterSnapshotRows {
  takenAt: number;
  kinds: SnapshotKinds;
  nodes: SnapshotNodeRow[];
  /** The Node versions at the snapshot (taints, unschedulable, allocatable), by node name. */
  nodeSpecs: Map<string, unknown>;
  pods: SnapshotPodRow[];
  /** NodePools at the snapshot (versioned), or null when the snapshot did not read them. */
  nodePools: StoredBody[] | null;
  /** The NodePools table (newest spec only): what stands in when the snapshot has no versions. */
  latestNodePools: NodePoolRecord[];
  namespaces: { name: string; labels: Record<string, string> }[];
  /** Objects of the other versioned kinds at the snapshot, by kind (absent: not read then). */
  objects: Partial<Record<string, StoredBody[]>>;
}

/** The apiVersion Kubernetes gives each owner kind (the engine tells DaemonSet and StatefulSet pods by it). */
const OWNER_API_VERSIONS: Record<string, string> = {
  DaemonSet: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  Deployment: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  Node: 'v1',
  ReplicationController: 'v1',
};

const iso = (ms: number): string => new Date(ms).toISOString();
type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

/** A NodePools-table row as a karpenter.sh/v1 NodePool (the capacity-type default written out, as the ledger recorded it). */
export function nodePoolFromRecord(np: NodePoolRecord): KubeNodePool {
  const requirements = np.requirements.map((r) => ({
    key: r.key,
    operator: r.operator,
    values: [...(r.values ?? [])],
    ...(r.minValues === undefined ? {} : { minValues: r.minValues }),
  }));
  if (!requirements.some((r) => r.key === LABEL_CAPACITY_TYPE) && np.capacityTypes.length > 0)
    requirements.push({ key: LABEL_CAPACITY_TYPE, operator: 'In', values: [...np.capacityTypes] });
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: np.name },
    spec: {
      ...(np.weight === null ? {} : { weight: np.weight }),
      ...(Object.keys(np.limits).length > 0 ? { limits: { ...np.limits } } : {}),
      template: {
        spec: {
          requirements,
          ...(np.taints !== undefined && np.taints.length > 0 ? { taints: np.taints.map((t) => ({ ...t })) } : {}),
          ...(np.expireAfter ? { expireAfter: np.expireAfter } : {}),
          ...(np.nodeClass === null ? {} : { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: np.nodeClass } }),
        },
      },
      disruption: {
        ...(np.consolidationPolicy === null ? {} : { consolidationPolicy: np.consolidationPolicy }),
        ...(np.consolidateAfter === null ? {} : { consolidateAfter: np.consolidateAfter }),
        budgets: np.budgets.map((b) => ({ ...b })),
      },
    },
  };
}

/**
 * A node: labels as stored with the four the engine reads taken from the snapshot's own row; taints, cordon and
 * allocatable from its version at the snapshot, else (before 0019) its NodePool's taints and the row's allocatable.
 */
export function nodeObject(n: SnapshotNodeRow, version: unknown, poolTaints: readonly Taint[] | undefined): KubeNode {
  const labels: Record<string, string> = {
    ...n.labels,
    [LABEL_INSTANCE_TYPE]: n.instanceType,
    [LABEL_CAPACITY_TYPE]: n.capacityType,
    [LABEL_HOSTNAME]: n.labels[LABEL_HOSTNAME] ?? n.name,
  };
  if (n.zone !== '') labels[LABEL_ZONE] = n.zone;
  if (n.nodePool !== null) labels[LABEL_NODEPOOL] = n.nodePool;
  else delete labels[LABEL_NODEPOOL];
  const v = obj(version);
  const vSpec = obj(v?.spec);
  const vAlloc = obj(obj(v?.status)?.allocatable) as Record<string, string> | undefined;
  const allocatable: Record<string, string> = vAlloc
    ? { ...vAlloc }
    : { cpu: `${n.allocCpuMillicores}m`, memory: String(n.allocMemoryBytes), pods: String(n.allocPods) };
  if (!vAlloc && n.allocGpu > 0) allocatable[GPU_RESOURCE] = String(n.allocGpu);
  const taints: Taint[] = v
    ? ((vSpec?.taints as Taint[] | undefined) ?? []).map((t) => ({ ...t }))
    : (poolTaints ?? []).map((t) => ({ ...t }));
  const annotations = obj(obj(v?.metadata)?.annotations) as Record<string, string> | undefined;
  const spec: NonNullable<KubeNode['spec']> = {
    ...(taints.length > 0 ? { taints } : {}),
    ...(vSpec?.unschedulable === true ? { unschedulable: true } : {}),
    ...(n.instanceId !== null && n.zone !== '' ? { providerID: `aws:///${n.zone}/${n.instanceId}` } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: n.name,
      labels,
      creationTimestamp: iso(n.createdAt),
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
    },
    ...(Object.keys(spec).length > 0 ? { spec } : {}),
    status: { allocatable, ...(n.capacity === null ? {} : { capacity: { ...n.capacity } }) },
  };
}

/** The required node affinity of a pod whose own-node term was stored without the node (ownNodeAffinity). */
function restoreOwnNode(affinity: PodSchedulingSpec['affinity'], nodeName: string | null): PodSchedulingSpec['affinity'] {
  const required = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (affinity === undefined || required === undefined || nodeName === null) return affinity;
  const field = { key: OWN_NODE_FIELD, operator: 'In', values: [nodeName] };
  return {
    ...affinity,
    nodeAffinity: {
      ...affinity.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: {
        ...required,
        nodeSelectorTerms: required.nodeSelectorTerms.map((t) => ({ ...t, matchFields: [field] })),
      },
    },
  };
}

function volumeOf(v: PodVolumeRecord): KubeVolume {
  if (v.claimName !== undefined) return { name: v.name, persistentVolumeClaim: { claimName: v.claimName } };
  return {
    name: v.name,
    ephemeral: { volumeClaimTemplate: { spec: v.ephemeralStorageClass ? { storageClassName: v.ephemeralStorageClass } : {} } },
  };
}

/** A pod as the engine reads it: its scheduling spec, one container with its effective requests, bound or pending. */
export function podObject(p: SnapshotPodRow): KubePod {
  const spec = p.spec;
  let requests: Record<string, string>;
  if (spec !== null) requests = { ...spec.requests };
  else {
    requests = { cpu: `${p.cpuMillicores}m`, memory: String(p.memoryBytes) };
    if (p.gpu > 0) requests[GPU_RESOURCE] = String(p.gpu);
  }
  const annotations: Record<string, string> = {};
  const dnd = p.doNotDisruptValue ?? (p.doNotDisrupt ? 'true' : null);
  if (dnd !== null) annotations[ANNOTATION_DO_NOT_DISRUPT] = dnd;
  if (p.deletionCost !== null) annotations[ANNOTATION_POD_DELETION_COST] = p.deletionCost;
  const meta: KubeObjectMeta = {
    name: p.name,
    namespace: p.namespace,
    uid: p.uid,
    labels: { ...p.labels },
    creationTimestamp: iso(p.createdAt),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(p.ownerKind !== null && p.ownerName !== null
      ? {
          ownerReferences: [
            { apiVersion: OWNER_API_VERSIONS[p.ownerKind] ?? 'v1', kind: p.ownerKind, name: p.ownerName, controller: true },
          ],
        }
      : {}),
  };
  const affinity = spec?.ownNodeAffinity ? restoreOwnNode(spec.affinity, p.nodeName) : spec?.affinity;
  const startTime = p.startedAt ?? (spec === null && p.nodeName !== null ? p.createdAt : null);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta,
    spec: {
      ...(p.nodeName === null ? {} : { nodeName: p.nodeName }),
      ...(spec?.nodeSelector ? { nodeSelector: { ...spec.nodeSelector } } : {}),
      ...(affinity ? { affinity } : {}),
      ...(spec?.tolerations ? { tolerations: spec.tolerations } : {}),
      ...(spec?.topologySpreadConstraints ? { topologySpreadConstraints: spec.topologySpreadConstraints } : {}),
      ...(spec?.priority === undefined ? {} : { priority: spec.priority }),
      ...(spec?.priorityClassName === undefined ? {} : { priorityClassName: spec.priorityClassName }),
      ...(spec?.preemptionPolicy === undefined ? {} : { preemptionPolicy: spec.preemptionPolicy }),
      ...(spec?.schedulingGates ? { schedulingGates: spec.schedulingGates.map((name) => ({ name })) } : {}),
      containers: [
        {
          name: 'requests',
          resources: { requests },
          ...(spec?.hostPorts ? { ports: spec.hostPorts.map((h) => ({ containerPort: h.hostPort, ...h })) } : {}),
        },
      ],
      ...(p.volumes !== null && p.volumes.length > 0 ? { volumes: p.volumes.map(volumeOf) } : {}),
    },
    status: {
      phase: p.finished?.phase ?? (p.nodeName === null ? 'Pending' : 'Running'),
      ...(startTime === null ? {} : { startTime: iso(startTime) }),
      ...(p.finished === null
        ? {}
        : { containerStatuses: [{ name: 'requests', state: { terminated: { finishedAt: iso(p.finished.at) } } }] }),
    },
  };
}

/** A DaemonSet as the pod each of its nodes runs (its template), named after the DaemonSet. */
export function daemonSetPod(ds: KubeDaemonSet): KubePod {
  const template = ds.spec.template;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: ds.metadata.name,
      ...(ds.metadata.namespace === undefined ? {} : { namespace: ds.metadata.namespace }),
      labels: { ...(template.metadata?.labels ?? {}) },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, controller: true }],
    },
    spec: template.spec,
  };
}

const kindRead = (kinds: SnapshotKinds, kind: string): boolean => kinds?.[kind]?.state === 'ok';

const bodies = <T>(rows: ClusterSnapshotRows, kind: string): T[] => (rows.objects[kind] ?? []).map((o) => o.body as T);

/** Why a kind is missing from this snapshot, in words; null when it was read. */
function kindGap(kinds: SnapshotKinds, kind: string, what: string): string | null {
  if (kinds === null) return `${what}: not collected (the snapshot predates migration 0019)`;
  const k = kinds[kind];
  if (k === undefined) return `${what}: not collected with this snapshot`;
  return k.state === 'ok' ? null : `${what}: ${k.message}`;
}

/** The snapshot's rows as ClusterObjects, with what it lacks. */
export function clusterObjectsFromRows(rows: ClusterSnapshotRows): { objects: ClusterObjects; gaps: string[] } {
  const gaps: string[] = [];
  const { kinds } = rows;
  let nodePools: KubeNodePool[];
  if (rows.nodePools !== null && kindRead(kinds, 'NodePool')) nodePools = rows.nodePools.map((o) => o.body as KubeNodePool);
  else {
    nodePools = rows.latestNodePools.map(nodePoolFromRecord);
    gaps.push('NodePools: as last collected (this snapshot kept no version of them)');
  }
  const poolTaints = new Map(nodePools.map((np) => [np.metadata.name, np.spec.template?.spec?.taints]));
  const nodeVersions = kindRead(kinds, 'Node');
  if (!nodeVersions)
    gaps.push("Nodes: taints, cordons and allocatable beyond cpu/memory/pods/GPU not collected (each node carries its NodePool's taints)");
  const nodes = rows.nodes.map((n) =>
    nodeObject(n, nodeVersions ? rows.nodeSpecs.get(n.name) : undefined, n.nodePool === null ? undefined : poolTaints.get(n.nodePool)),
  );
  const withoutSpec = rows.pods.filter((p) => p.spec === null).length;
  if (withoutSpec > 0)
    gaps.push(
      `Pods: ${withoutSpec} of ${rows.pods.length} without their scheduling spec (collected before migration 0019: no node selector, affinity, tolerations, spread, priority or volumes; cpu, memory and GPU requests only)`,
    );
  const optional: [string, string][] = [
    ['PodDisruptionBudget', 'PodDisruptionBudgets'],
    ['DaemonSet', 'DaemonSets'],
    ['PersistentVolumeClaim', 'PersistentVolumeClaims'],
    ['PersistentVolume', 'PersistentVolumes'],
    ['StorageClass', 'StorageClasses'],
    ['CSINode', 'CSINodes'],
    ['EC2NodeClass', 'EC2NodeClasses'],
    ['NodeOverlay', 'NodeOverlays'],
  ];
  for (const [kind, what] of optional) {
    const gap = kindGap(kinds, kind, what);
    if (gap !== null) gaps.push(gap);
  }
  const read = <T>(kind: string): T[] => (kindRead(kinds, kind) ? bodies<T>(rows, kind) : []);
  return {
    objects: {
      nodePools,
      nodes,
      pods: rows.pods.map(podObject),
      podDisruptionBudgets: read<KubePodDisruptionBudget>('PodDisruptionBudget'),
      ...(kindRead(kinds, 'DaemonSet') ? { daemonSetPods: bodies<KubeDaemonSet>(rows, 'DaemonSet').map(daemonSetPod) } : {}),
      namespaces: rows.namespaces.map((ns) => ({
        metadata: { name: ns.name, ...(Object.keys(ns.labels).length > 0 ? { labels: { ...ns.labels } } : {}) },
      })),
      nodeOverlays: read<KubeNodeOverlay>('NodeOverlay'),
      nodeClasses: read<KubeEC2NodeClass>('EC2NodeClass'),
      persistentVolumeClaims: read<KubePersistentVolumeClaim>('PersistentVolumeClaim'),
      persistentVolumes: read<KubePersistentVolume>('PersistentVolume'),
      storageClasses: read<KubeStorageClass>('StorageClass'),
      csiNodes: read<KubeCSINode>('CSINode'),
    },
    gaps,
  };
}
