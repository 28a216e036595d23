import { parseAllDocuments } from 'yaml';
import { EngineInputError } from './errors.js';
import type {
  ClusterObjects,
  KubeCSINode,
  KubeEC2NodeClass,
  KubeNode,
  KubeNodeOverlay,
  KubeNodePool,
  KubeObjectMeta,
  KubePersistentVolume,
  KubePersistentVolumeClaim,
  KubePod,
  KubePodDisruptionBudget,
  KubePodSpec,
  KubeStorageClass,
} from './kube-types.js';

/**
 * What `kubectl get -o yaml` (or `-o json`) prints, turned into the engine's input groups (a ClusterObjects):
 * multi-document YAML, `kind: List` / `<Kind>List` with `items`, or a JSON array. Workloads (Deployment, StatefulSet,
 * ReplicaSet, Job) become the pending pods their controller would create; DaemonSets become the pod each would run on
 * a new node; NodeOverlays, EC2NodeClasses and the volume kinds are passed on as they are. Pure: the caller reads the
 * file.
 */

export interface StreamNamespace {
  metadata: { name: string; labels?: Record<string, string> };
}

/** An object of the stream the engine has no use for (EC2NodeClass, Service, ConfigMap…). */
export interface IgnoredObject {
  /** 1-based document number; for a List, the item number within it too ("3, item 2"). */
  at: string;
  kind: string;
  name: string;
}

/** Pending pods made from one workload, for telling the user where they came from. */
export interface ExpandedWorkload {
  /** "Deployment shop/web" */
  workload: string;
  /** Copies its spec asks for. */
  replicas: number;
  /** Of those, already among the stream's pods (not made again). */
  existing: number;
  /** "ns/name" of the pending pods made. */
  pods: string[];
}

/** The stream as the engine's input groups (a ClusterObjects), plus what was left out and what workloads added. */
export interface ObjectStream extends ClusterObjects {
  nodePools: KubeNodePool[];
  /** The stream's Pods, then the pending pods made from workloads. */
  pods: KubePod[];
  nodes: KubeNode[];
  podDisruptionBudgets: KubePodDisruptionBudget[];
  /**
   * Set only when the stream holds DaemonSets: their pod templates, plus one running pod for each DaemonSet seen
   * only through its pods. Left undefined otherwise, so the engine picks one running pod per DaemonSet itself.
   */
  daemonSetPods?: KubePod[];
  namespaces: StreamNamespace[];
  /** karpenter.sh/v1alpha1 NodeOverlays (no status needed). */
  nodeOverlays: KubeNodeOverlay[];
  /** karpenter.k8s.aws/v1 EC2NodeClasses: status.capacityReservations give reserved offerings. */
  nodeClasses: KubeEC2NodeClass[];
  persistentVolumeClaims: KubePersistentVolumeClaim[];
  persistentVolumes: KubePersistentVolume[];
  storageClasses: KubeStorageClass[];
  csiNodes: KubeCSINode[];
  ignored: IgnoredObject[];
  expanded: ExpandedWorkload[];
}

/** A stream that cannot be read: the source, the document (and List item) and the object are named first. */
export class ObjectStreamError extends EngineInputError {}

/** The apiVersion each kind the engine reads must have; any other apiVersion of these kinds is an error. */
const NEEDED = new Map<string, string>(
  Object.entries({
    NodePool: 'karpenter.sh/v1',
    Pod: 'v1',
    Node: 'v1',
    Namespace: 'v1',
    PodDisruptionBudget: 'policy/v1',
    Deployment: 'apps/v1',
    StatefulSet: 'apps/v1',
    ReplicaSet: 'apps/v1',
    DaemonSet: 'apps/v1',
    Job: 'batch/v1',
    NodeOverlay: 'karpenter.sh/v1alpha1',
    EC2NodeClass: 'karpenter.k8s.aws/v1',
    PersistentVolumeClaim: 'v1',
    PersistentVolume: 'v1',
    StorageClass: 'storage.k8s.io/v1',
    CSINode: 'storage.k8s.io/v1',
  }),
);

/** Kinds whose objects carry no spec (or may leave it out): Namespace and Node, StorageClass (top-level fields). */
const NO_SPEC = new Set(['Namespace', 'Node', 'StorageClass', 'EC2NodeClass', 'PersistentVolumeClaim']);

/** Kinds that mean the input is for a Karpenter the engine does not model, not something to skip quietly. */
const PRE_V1 = new Map<string, string>(
  Object.entries({
    Provisioner: 'is the pre-v1 Karpenter API (karpenter.sh/v1alpha5); convert it to a karpenter.sh/v1 NodePool',
    Machine: 'is the pre-v1 Karpenter API (karpenter.sh/v1alpha5); give the Nodes instead',
  }),
);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Located {
  at: string;
  obj: Json;
}

/** The documents of the text, each a located object (List items and JSON arrays flattened). */
function documents(text: string, source: string): Located[] {
  const out: Located[] = [];
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  // an empty or comment-only text gives an EmptyStream (no documents)
  if (!Array.isArray(docs)) return out;
  docs.forEach((doc, i) => {
    const where = `${source} document ${i + 1}`;
    const err = doc.errors[0];
    if (err) {
      const line = err.linePos?.[0];
      const pos = line ? ` at line ${line.line}, column ${line.col}` : '';
      const first = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new ObjectStreamError(where, `not valid YAML or JSON${pos}: ${first}`);
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      throw new ObjectStreamError(where, e instanceof Error ? e.message : String(e));
    }
    if (value === null || value === undefined) return; // an empty document (`---` twice, a trailing `---`)
    if (Array.isArray(value)) {
      value.forEach((item, j) => out.push(located(`${where}, item ${j + 1}`, item)));
      return;
    }
    if (!isObject(value)) throw new ObjectStreamError(where, `is a ${typeof value}, not a Kubernetes object`);
    const kind = value.kind;
    if (typeof kind === 'string' && (kind === 'List' || kind.endsWith('List')) && 'items' in value) {
      if (!Array.isArray(value.items)) throw new ObjectStreamError(where, `${kind}.items is not a list`);
      // The API's typed lists (PodList…) leave kind and apiVersion off their items; kubectl fills them in.
      const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
      value.items.forEach((item, j) => {
        const at = `${where}, item ${j + 1}`;
        if (itemKind !== undefined && isObject(item)) out.push({ at, obj: { kind: itemKind, apiVersion: value.apiVersion, ...item } });
        else out.push(located(at, item));
      });
      return;
    }
    out.push({ at: where, obj: value });
  });
  return out;
}

function located(at: string, item: unknown): Located {
  if (!isObject(item)) throw new ObjectStreamError(at, 'is not a Kubernetes object (a mapping with kind and metadata)');
  return { at, obj: item };
}

interface Identified extends Located {
  kind: string;
  apiVersion: string;
  meta: KubeObjectMeta;
  /** "Kind ns/name" or "Kind name" */
  label: string;
}

const NAMESPACED = new Set([
  'Pod',
  'PodDisruptionBudget',
  'Deployment',
  'StatefulSet',
  'ReplicaSet',
  'DaemonSet',
  'Job',
  'PersistentVolumeClaim',
]);

function identify(l: Located): Identified {
  const { obj, at } = l;
  const kind = obj.kind;
  const meta = obj.metadata;
  const name = isObject(meta) ? meta.name : undefined;
  if (typeof kind !== 'string' || kind === '') {
    throw new ObjectStreamError(`${at}${typeof name === 'string' ? ` (${name})` : ''}`, 'has no kind');
  }
  if (!isObject(meta) || typeof name !== 'string' || name === '') throw new ObjectStreamError(`${at} (${kind})`, 'has no metadata.name');
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const ns = NAMESPACED.has(kind) ? `${typeof meta.namespace === 'string' ? meta.namespace : 'default'}/` : '';
  return { ...l, kind, apiVersion, meta: meta as unknown as KubeObjectMeta, label: `${kind} ${ns}${name}` };
}

const fail = (o: Identified, detail: string): never => {
  throw new ObjectStreamError(`${o.at} (${o.label})`, detail);
};

/** The namespace of a namespaced object, as the API server defaults it. */
const namespaceOf = (o: Identified): string => o.meta.namespace ?? 'default';

interface Workload {
  o: Identified;
  replicas: number;
  template: { metadata?: Partial<KubeObjectMeta>; spec: KubePodSpec };
}

function workload(o: Identified): Workload {
  const spec = o.obj.spec;
  if (!isObject(spec)) return fail(o, 'spec is missing');
  const template = spec.template;
  if (!isObject(template) || !isObject(template.spec)) return fail(o, 'spec.template.spec is missing');
  if (!Array.isArray(template.spec.containers)) return fail(o, 'spec.template.spec.containers is missing');
  const count = (field: string, dflt: number): number => {
    const v = spec[field];
    if (v === undefined || v === null) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      return fail(o, `spec.${field} ${JSON.stringify(v)} is not a whole number ≥ 0`);
    return v;
  };
  let replicas: number;
  if (o.kind === 'Job') {
    // a Job runs `parallelism` pods at once, never more than the completions still to go
    const status = isObject(o.obj.status) ? o.obj.status : {};
    const done = typeof status.succeeded === 'number' ? status.succeeded : 0;
    const completions = count('completions', Number.POSITIVE_INFINITY);
    replicas = Math.max(0, Math.min(count('parallelism', 1), completions - done));
    if (spec.suspend === true || finished(status)) replicas = 0;
  } else {
    replicas = count('replicas', 1);
  }
  return { o, replicas, template: template as unknown as Workload['template'] };
}

const finished = (status: Json): boolean =>
  Array.isArray(status.conditions) &&
  status.conditions.some((c) => isObject(c) && (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

const controllerOf = (meta: KubeObjectMeta) => meta.ownerReferences?.find((r) => r.controller) ?? meta.ownerReferences?.[0];

const podActive = (p: KubePod): boolean => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** The pods a workload's controller would create for the replicas not already among the stream's pods. */
function expand(w: Workload, existing: KubePod[], takenNames: Set<string>): { summary: ExpandedWorkload; made: KubePod[] } {
  const ns = namespaceOf(w.o);
  const name = w.o.meta.name;
  const live = existing.filter(podActive);
  const missing = Math.max(0, w.replicas - live.length);
  const pods: KubePod[] = [];
  // StatefulSet pods are <name>-<ordinal>; the others get a random suffix, here the lowest free <name>-<n>.
  for (let n = 0; pods.length < missing; n++) {
    const podName = `${name}-${n}`;
    if (takenNames.has(`${ns}/${podName}`)) continue;
    takenNames.add(`${ns}/${podName}`);
    const meta = w.template.metadata ?? {};
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...(meta.labels ? { labels: { ...meta.labels } } : {}),
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        name: podName,
        namespace: ns,
        uid: `${ns}/${podName}`,
        ...(w.o.meta.creationTimestamp ? { creationTimestamp: w.o.meta.creationTimestamp } : {}),
        ownerReferences: [{ apiVersion: w.o.apiVersion, kind: w.o.kind, name, controller: true }],
      },
      spec: { ...w.template.spec, nodeName: undefined },
      status: { phase: 'Pending' },
    });
  }
  const summary = {
    workload: w.o.label,
    replicas: w.replicas,
    existing: Math.min(live.length, w.replicas),
    pods: pods.map((p) => `${ns}/${p.metadata.name}`),
  };
  return { summary, made: pods };
}

/** Parses a stream of Kubernetes objects into the engine's input groups; `source` names it in errors. */
export function parseObjectStream(text: string, source: string): ObjectStream {
  const out: ObjectStream = {
    nodePools: [],
    pods: [],
    nodes: [],
    podDisruptionBudgets: [],
    namespaces: [],
    nodeOverlays: [],
    nodeClasses: [],
    persistentVolumeClaims: [],
    persistentVolumes: [],
    storageClasses: [],
    csiNodes: [],
    ignored: [],
    expanded: [],
  };
  const workloads: Workload[] = [];
  const daemonSets: Identified[] = [];
  const replicaSets: Identified[] = [];
  for (const l of documents(text, source)) {
    const o = identify(l);
    const preV1 = PRE_V1.get(o.kind);
    if (preV1 !== undefined) fail(o, preV1);
    const wanted = NEEDED.get(o.kind);
    if (wanted === undefined) {
      out.ignored.push({ at: o.at, kind: o.kind, name: o.label.slice(o.kind.length + 1) });
      continue;
    }
    if (o.apiVersion !== wanted) {
      fail(o, `apiVersion "${o.apiVersion || '(none)'}" is not one the simulator reads for a ${o.kind} (it reads ${wanted})`);
    }
    if (!NO_SPEC.has(o.kind) && !isObject(o.obj.spec)) fail(o, 'spec is missing');
    switch (o.kind) {
      case 'NodePool':
        out.nodePools.push(o.obj as unknown as KubeNodePool);
        break;
      case 'Pod':
        out.pods.push(o.obj as unknown as KubePod);
        break;
      case 'Node':
        out.nodes.push(o.obj as unknown as KubeNode);
        break;
      case 'Namespace':
        out.namespaces.push({ metadata: { name: o.meta.name, ...(o.meta.labels ? { labels: o.meta.labels } : {}) } });
        break;
      case 'PodDisruptionBudget':
        out.podDisruptionBudgets.push(o.obj as unknown as KubePodDisruptionBudget);
        break;
      case 'NodeOverlay':
        if (!Array.isArray((o.obj.spec as Json).requirements))
          fail(o, 'spec.requirements is missing (it is required; [] matches every type)');
        out.nodeOverlays.push(o.obj as unknown as KubeNodeOverlay);
        break;
      case 'EC2NodeClass':
        checkReservations(o);
        out.nodeClasses.push(o.obj as unknown as KubeEC2NodeClass);
        break;
      case 'PersistentVolumeClaim':
        out.persistentVolumeClaims.push({
          ...(o.obj as unknown as KubePersistentVolumeClaim),
          metadata: { ...o.meta, namespace: namespaceOf(o) },
        });
        break;
      case 'PersistentVolume':
        out.persistentVolumes.push(o.obj as unknown as KubePersistentVolume);
        break;
      case 'StorageClass':
        if (typeof o.obj.provisioner !== 'string') fail(o, 'provisioner is missing');
        out.storageClasses.push(o.obj as unknown as KubeStorageClass);
        break;
      case 'CSINode':
        out.csiNodes.push(o.obj as unknown as KubeCSINode);
        break;
      case 'DaemonSet':
        workload(o); // checks its template
        daemonSets.push(o);
        break;
      case 'ReplicaSet':
        replicaSets.push(o);
        break;
      default: {
        workloads.push(workload(o));
      }
    }
  }
  addWorkloadPods(out, workloads, replicaSets);
  if (daemonSets.length > 0) out.daemonSetPods = daemonSetTemplates(daemonSets, out.pods);
  return out;
}

/** An EC2NodeClass's status.capacityReservations as the simulator reads them: each with an id, type, zone and a valid endTime. */
function checkReservations(o: Identified): void {
  const status = o.obj.status;
  if (status === undefined) return;
  const list = isObject(status) ? status.capacityReservations : undefined;
  if (list === undefined) return;
  if (!Array.isArray(list)) fail(o, 'status.capacityReservations is not a list');
  (list as unknown[]).forEach((r, i) => {
    const at = `status.capacityReservations[${i}]`;
    if (!isObject(r)) return fail(o, `${at} is not an object`);
    for (const field of ['id', 'instanceType', 'availabilityZone'])
      if (typeof r[field] !== 'string' || r[field] === '') fail(o, `${at}.${field} is missing`);
    if (r.endTime !== undefined && (typeof r.endTime !== 'string' || Number.isNaN(Date.parse(r.endTime))))
      fail(o, `${at}.endTime ${JSON.stringify(r.endTime)} is not an RFC 3339 time`);
    if (r.reservationType !== undefined && r.reservationType !== 'default' && r.reservationType !== 'capacity-block')
      fail(o, `${at}.reservationType ${JSON.stringify(r.reservationType)} is not default or capacity-block`);
  });
}

/**
 * Pending pods for every workload. A stream taken from a live cluster holds a Deployment, its ReplicaSets and
 * their pods: a ReplicaSet a Deployment of the stream controls is not expanded on its own, and pods already there
 * (owned by the workload, or by a ReplicaSet it controls) count against its replicas.
 */
function addWorkloadPods(out: ObjectStream, workloads: Workload[], replicaSets: Identified[]): void {
  const key = (kind: string, ns: string, name: string) => `${kind} ${ns}/${name}`;
  const deployments = new Set(
    workloads.filter((w) => w.o.kind === 'Deployment').map((w) => key('Deployment', namespaceOf(w.o), w.o.meta.name)),
  );
  /** ReplicaSet key → the workload key that counts its pods. */
  const rsOwner = new Map<string, string>();
  for (const rs of replicaSets) {
    const owner = controllerOf(rs.meta);
    const deployment = owner?.kind === 'Deployment' ? key('Deployment', namespaceOf(rs), owner.name) : null;
    if (deployment !== null && deployments.has(deployment)) {
      rsOwner.set(key('ReplicaSet', namespaceOf(rs), rs.meta.name), deployment);
      continue;
    }
    workloads.push(workload(rs));
  }
  const podsOf = new Map<string, KubePod[]>();
  for (const p of out.pods) {
    const ns = p.metadata.namespace ?? 'default';
    const owner = controllerOf(p.metadata);
    if (!owner) continue;
    let k = key(owner.kind, ns, owner.name);
    if (owner.kind === 'ReplicaSet') {
      // without the ReplicaSet in the stream, its name is still <deployment>-<pod-template-hash>
      const hash = p.metadata.labels?.['pod-template-hash'];
      const viaName = hash && owner.name.endsWith(`-${hash}`) ? key('Deployment', ns, owner.name.slice(0, -hash.length - 1)) : null;
      k = rsOwner.get(k) ?? (viaName !== null && deployments.has(viaName) ? viaName : k);
    }
    const list = podsOf.get(k) ?? [];
    list.push(p);
    podsOf.set(k, list);
  }
  const taken = new Set(out.pods.map((p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`));
  for (const w of workloads) {
    const { summary, made } = expand(w, podsOf.get(key(w.o.kind, namespaceOf(w.o), w.o.meta.name)) ?? [], taken);
    out.pods.push(...made);
    out.expanded.push(summary);
  }
}

/** One pod per DaemonSet: its template for those in the stream, one running pod for those seen only through pods. */
function daemonSetTemplates(daemonSets: Identified[], pods: KubePod[]): KubePod[] {
  const out: KubePod[] = [];
  const covered = new Set<string>();
  for (const ds of daemonSets) {
    const ns = namespaceOf(ds);
    const w = workload(ds);
    covered.add(`${ns}/${ds.meta.name}`);
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...(w.template.metadata?.labels ? { labels: { ...w.template.metadata.labels } } : {}),
        name: `${ds.meta.name}-template`,
        namespace: ns,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.meta.name, controller: true }],
      },
      spec: { ...w.template.spec, nodeName: undefined },
      status: { phase: 'Pending' },
    });
  }
  const sorted = [...pods].sort((a, b) => {
    const ka = `${a.metadata.namespace ?? 'default'}/${a.metadata.name}`;
    const kb = `${b.metadata.namespace ?? 'default'}/${b.metadata.name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  for (const p of sorted) {
    const owner = controllerOf(p.metadata);
    if (owner?.kind !== 'DaemonSet') continue;
    const k = `${p.metadata.namespace ?? 'default'}/${owner.name}`;
    if (covered.has(k)) continue;
    covered.add(k);
    out.push(p);
  }
  return out;
}
