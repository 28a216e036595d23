import { naming } from './errors.js';
import type { KubeNode } from './kube-types.js';
import { isOwnedByDaemonSet, type SchedPod } from './pods.js';
import { parseResourceList, type ResourceMap } from './resources.js';
import { DISRUPTED_TAINT, type Taint } from './taints.js';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_TYPE,
  LABEL_NODE_INITIALIZED,
  LABEL_NODEPOOL,
  LABEL_ZONE,
} from './well-known.js';

/** A node that exists, with the pods bound to it. Times are epoch ms. */
export interface ExistingNodeSpec {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  taints: Taint[];
  allocatable: ResourceMap;
  /** status.capacity (allocatable when not given): what counts against NodePool limits. */
  capacity: ResourceMap;
  createdAt: number;
  /** The NodePool it belongs to, when its karpenter.sh/nodepool label names one of the NodePools given. */
  nodePool: string | null;
  initialized: boolean;
  markedForDeletion: boolean;
  ready: boolean;
  /** The last time a pod was bound to it or finished on it (or it was created): where consolidateAfter counts from. */
  lastPodEventAt: number;
  pods: SchedPod[];
  instanceType: string | null;
  capacityType: string | null;
  zone: string | null;
  hostname: string;
}

export function normalizeNode(node: KubeNode, pods: SchedPod[], nodePoolNames: ReadonlySet<string>): ExistingNodeSpec {
  const name = node.metadata?.name;
  return naming(`Node ${name ?? '(unnamed)'}`, () => {
    if (!name) throw new Error('metadata.name is missing');
    if (!node.status?.allocatable) throw new Error("status.allocatable is missing (the node's room for pods comes from it)");
    const labels = node.metadata.labels ?? {};
    const taints = node.spec?.taints ?? [];
    const allocatable = parseResourceList(node.status.allocatable);
    const capacity = node.status.capacity ? parseResourceList(node.status.capacity) : { ...allocatable };
    const createdAt = node.metadata.creationTimestamp ? Date.parse(node.metadata.creationTimestamp) : 0;
    if (Number.isNaN(createdAt)) throw new Error(`metadata.creationTimestamp "${node.metadata.creationTimestamp}" is not an RFC 3339 time`);
    const pool = labels[LABEL_NODEPOOL];
    const ready = (node.status.conditions ?? []).find((c) => c.type === 'Ready');
    // A pod's events as nodeclaim.podevents records them: bound (its start stands in), and turned terminal (when its
    // containers finished: a Job pod that ended restarts the node's consolidateAfter clock).
    const lastPodEventAt = Math.max(createdAt, ...pods.map((p) => Math.max(p.startTime ?? p.createdAt, p.finishedAt ?? 0)));
    return {
      name,
      labels,
      annotations: node.metadata.annotations ?? {},
      taints,
      allocatable,
      capacity,
      createdAt,
      nodePool: pool !== undefined && nodePoolNames.has(pool) ? pool : null,
      initialized: labels[LABEL_NODE_INITIALIZED] === undefined || labels[LABEL_NODE_INITIALIZED] === 'true',
      markedForDeletion: Boolean(node.metadata.deletionTimestamp) || taints.some((t) => t.key === DISRUPTED_TAINT.key),
      ready: ready === undefined || ready.status === 'True',
      lastPodEventAt,
      pods,
      instanceType: labels[LABEL_INSTANCE_TYPE] ?? null,
      capacityType: labels[LABEL_CAPACITY_TYPE] ?? null,
      zone: labels[LABEL_ZONE] ?? null,
      hostname: labels[LABEL_HOSTNAME] ?? name,
    };
  });
}

/** Requests of a node's pods, and of its DaemonSet pods alone. */
export function nodeRequests(node: ExistingNodeSpec): { all: ResourceMap; daemons: ResourceMap } {
  const all: ResourceMap = {};
  const daemons: ResourceMap = {};
  for (const p of node.pods) {
    if (p.phase === 'Succeeded' || p.phase === 'Failed') continue;
    for (const [k, v] of Object.entries(p.requests)) {
      all[k] = (all[k] ?? 0) + v;
      if (isOwnedByDaemonSet(p)) daemons[k] = (daemons[k] ?? 0) + v;
    }
  }
  return { all, daemons };
}
