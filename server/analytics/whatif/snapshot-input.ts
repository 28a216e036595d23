import type { WhatIfNodeRow, WhatIfPodRow } from '../../../db/repositories/whatif-repository.js';
import type { NodePoolRecord, NodePoolTaint } from '../../../core/model.js';
import type { TaintEffect } from '../../../core/karpenter/scheduling/taints.js';
import type { KubeNode, KubeNodePool, KubePod } from '../../../core/karpenter/scheduling/index.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
  LABEL_ZONE,
} from '../../../core/karpenter/scheduling/well-known.js';

/**
 * A stored snapshot as the scheduling engine's input, in one place: NodePools, nodes and pods rebuilt as the
 * Kubernetes objects the engine reads (core/karpenter/scheduling/kube-types.ts). Pure.
 *
 * What the store keeps, and so what a what-if knows: per node its labels, allocatable and capacity; per pod its
 * effective requests (cpu, memory, nvidia.com/gpu), owner, labels and karpenter.sh/do-not-disrupt; per NodePool its
 * requirements, taints, weight, limits and disruption settings (a Karpenter node carries its NodePool's taints, as
 * Karpenter puts them there). Not stored: pod nodeSelectors, affinities, tolerations and topology spread,
 * PodDisruptionBudgets. The what-ifs stand for the missing pod constraints with the placement they produced (a pod
 * stays in its NodePool and tolerates what it runs on: see repack.ts).
 */

/** A node and a pod of the snapshot as the what-if repository reads them (the price is the catalogue's business). */
export type SnapshotNodeRow = Omit<WhatIfNodeRow, 'storedPricePerHour'>;
export type SnapshotPodRow = WhatIfPodRow;

export interface SnapshotObjects {
  nodePools: KubeNodePool[];
  nodes: KubeNode[];
  pods: KubePod[];
}

const GPU = 'nvidia.com/gpu';
const iso = (ms: number): string => new Date(ms).toISOString();

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

/**
 * A stored NodePool as a karpenter.sh/v1 NodePool. Without a capacity-type requirement the ledger records
 * on-demand (Karpenter's AWS default), so the requirement is written out for the engine.
 */
export function nodePoolObject(np: NodePoolRecord): KubeNodePool {
  const requirements = np.requirements.map((r) => ({
    key: r.key,
    operator: r.operator,
    values: [...r.values],
    ...(r.minValues === undefined ? {} : { minValues: r.minValues }),
  }));
  if (!requirements.some((r) => r.key === LABEL_CAPACITY_TYPE) && np.capacityTypes.length > 0) {
    requirements.push({ key: LABEL_CAPACITY_TYPE, operator: 'In', values: [...np.capacityTypes] });
  }
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
          ...(np.taints !== undefined && np.taints.length > 0
            ? { taints: np.taints.map((t) => ({ ...t, effect: taintEffect(t.effect) })) }
            : {}),
          ...(np.nodeClass === null ? {} : { nodeClassRef: { name: np.nodeClass } }),
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

const taintEffect = (effect: string): TaintEffect => (effect === 'PreferNoSchedule' || effect === 'NoExecute' ? effect : 'NoSchedule');

/**
 * A stored node as a v1 Node: its labels, with the four the engine reads taken from the snapshot's own row, and its
 * NodePool's taints.
 */
export function nodeObject(n: SnapshotNodeRow, taints: readonly NodePoolTaint[] = []): KubeNode {
  const labels: Record<string, string> = {
    ...n.labels,
    [LABEL_INSTANCE_TYPE]: n.instanceType,
    [LABEL_CAPACITY_TYPE]: n.capacityType,
    [LABEL_HOSTNAME]: n.labels[LABEL_HOSTNAME] ?? n.name,
  };
  if (n.zone !== '') labels[LABEL_ZONE] = n.zone;
  if (n.nodePool !== null) labels[LABEL_NODEPOOL] = n.nodePool;
  else delete labels[LABEL_NODEPOOL];
  const allocatable: Record<string, string> = {
    cpu: `${n.allocCpuMillicores}m`,
    memory: String(n.allocMemoryBytes),
    pods: String(n.allocPods),
  };
  if (n.allocGpu > 0) allocatable[GPU] = String(n.allocGpu);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: n.name, labels, creationTimestamp: iso(n.createdAt) },
    ...(taints.length > 0 ? { spec: { taints: taints.map((t) => ({ ...t, effect: taintEffect(t.effect) })) } } : {}),
    status: { allocatable, ...(n.capacity === null ? {} : { capacity: { ...n.capacity } }) },
  };
}

/** A stored pod as a v1 Pod bound to its node, one container carrying its effective requests. */
export function podObject(p: SnapshotPodRow): KubePod {
  const requests: Record<string, string> = { cpu: `${p.cpuMillicores}m`, memory: String(p.memoryBytes) };
  if (p.gpu > 0) requests[GPU] = String(p.gpu);
  const owner =
    p.ownerKind === null || p.ownerName === null
      ? undefined
      : [{ apiVersion: OWNER_API_VERSIONS[p.ownerKind] ?? 'v1', kind: p.ownerKind, name: p.ownerName, controller: true }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      labels: { ...p.labels },
      creationTimestamp: iso(p.createdAt),
      ...(p.doNotDisrupt ? { annotations: { [ANNOTATION_DO_NOT_DISRUPT]: 'true' } } : {}),
      ...(owner === undefined ? {} : { ownerReferences: owner }),
    },
    spec: { nodeName: p.nodeName, containers: [{ name: 'requests', resources: { requests } }] },
    status: { phase: 'Running', startTime: iso(p.createdAt) },
  };
}

export function snapshotObjects(rows: { nodePools: NodePoolRecord[]; nodes: SnapshotNodeRow[]; pods: SnapshotPodRow[] }): SnapshotObjects {
  const taints = new Map(rows.nodePools.map((np) => [np.name, np.taints ?? []]));
  return {
    nodePools: rows.nodePools.map(nodePoolObject),
    nodes: rows.nodes.map((n) => nodeObject(n, n.nodePool === null ? [] : (taints.get(n.nodePool) ?? []))),
    pods: rows.pods.map(podObject),
  };
}
