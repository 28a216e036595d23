import type { EngineInput, KubeNode, KubeNodePool, KubePod } from '../../core/karpenter/scheduling/index.js';
import type { CatalogueEntry } from '../../core/karpenter/scheduling/catalogue.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE } from '../../core/labels.js';
import type { StoredSnapshot, StoredSnapshotPod } from '../../db/repositories/stored-snapshot-repository.js';

/**
 * A stored snapshot (db/repositories/stored-snapshot-repository.ts) as input to the scheduling engine
 * (core/karpenter/scheduling): Kubernetes-shaped NodePools, Nodes and Pods built from the rows the collector kept.
 * Pure. The database keeps each pod's effective requests, not its containers, so a pod becomes one container asking
 * for them; affinity, tolerations, topology spread and taints are not stored and so are not modelled.
 */

/** A pod's requests to use instead of the stored ones (right-sized, say). */
export type RequestsOf = (pod: StoredSnapshotPod) => { cpuMillicores: number; memoryBytes: number };

export interface SnapshotToEngineOptions {
  /** Only this NodePool, its nodes and the pods on them. Default: every NodePool. */
  nodePool?: string;
  /** Requests per pod; default the stored ones. */
  requestsOf?: RequestsOf;
  /**
   * Re-pack from scratch: every pod given without a node and no nodes given, so `provision(prepare(input))` places
   * them all on new NodeClaims (and existing capacity does not count against NodePool limits). Default false: pods
   * bound to the snapshot's nodes.
   */
  unbound?: boolean;
}

/** What `builtInCatalogue` needs for this snapshot: its region, its nodes' zones, the spot prices its nodes had. */
export interface SnapshotCatalogueOptions {
  region: string;
  zones: string[];
  /** USD/hour keyed `${instanceType}/${zone}`, from the snapshot's spot nodes. */
  spotUsdPerHour: Map<string, number>;
}

const ZONE_TO_REGION = /^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$/;

/** The region (the recorded one, else read off a node's zone: us-west-2b -> us-west-2), zones and spot prices; null when no region can be told. */
export function snapshotCatalogueOptions(s: StoredSnapshot): SnapshotCatalogueOptions | null {
  const fromZone = s.nodes.map((n) => ZONE_TO_REGION.exec(n.zone)?.[1]).find((r) => r !== undefined);
  const region = s.region ?? fromZone ?? null;
  if (region === null) return null;
  const zones = [...new Set(s.nodes.map((n) => n.zone).filter((z) => z.startsWith(region)))].sort();
  const spotUsdPerHour = new Map<string, number>();
  for (const n of s.nodes)
    if (n.capacityType === 'spot' && n.usdPerHour !== null) spotUsdPerHour.set(`${n.instanceType}/${n.zone}`, n.usdPerHour);
  return { region, zones: zones.length > 0 ? zones : ['a', 'b', 'c'].map((z) => `${region}${z}`), spotUsdPerHour };
}

function nodePoolOf(np: StoredSnapshot['nodePools'][number]): KubeNodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: np.name },
    spec: {
      ...(np.weight === null ? {} : { weight: np.weight }),
      limits: np.limits,
      template: {
        spec: {
          requirements: np.requirements.map((r) => ({ ...r, values: r.values ?? [] })),
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        },
      },
    },
  };
}

function nodeOf(n: StoredSnapshot['nodes'][number]): KubeNode {
  const labels: Record<string, string> = {
    [LABEL_INSTANCE_TYPE]: n.instanceType,
    [LABEL_CAPACITY_TYPE]: n.capacityType,
    [LABEL_ZONE]: n.zone,
    'kubernetes.io/hostname': n.name,
    'karpenter.sh/initialized': 'true',
    'karpenter.sh/registered': 'true',
  };
  if (n.nodePool !== null) labels[LABEL_NODEPOOL] = n.nodePool;
  return {
    metadata: { name: n.name, labels },
    status: {
      allocatable: { cpu: `${n.allocCpuMillicores}m`, memory: `${n.allocMemoryBytes}`, pods: `${n.allocPods}` },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function podOf(p: StoredSnapshotPod, nodeName: string | null, requestsOf: RequestsOf | undefined): KubePod {
  const r = requestsOf ? requestsOf(p) : { cpuMillicores: p.reqCpuMillicores, memoryBytes: p.reqMemoryBytes };
  const requests: Record<string, string> = {
    cpu: `${Math.max(0, Math.ceil(r.cpuMillicores))}m`,
    memory: `${Math.max(0, Math.ceil(r.memoryBytes))}`,
  };
  if (p.reqGpu > 0) requests['nvidia.com/gpu'] = `${p.reqGpu}`;
  return {
    metadata: {
      name: p.name,
      namespace: p.namespace,
      labels: p.labels,
      ...(p.ownerKind !== null && p.ownerName !== null
        ? { ownerReferences: [{ kind: p.ownerKind, name: p.ownerName, controller: true }] }
        : {}),
    },
    spec: { ...(nodeName === null ? {} : { nodeName }), containers: [{ name: 'requests', resources: { requests } }] },
    status: { phase: 'Running' },
  };
}

/** The snapshot as EngineInput over `catalogue`, at the snapshot's time. */
export function snapshotToEngineInput(
  s: StoredSnapshot,
  catalogue: readonly CatalogueEntry[],
  opts: SnapshotToEngineOptions = {},
): EngineInput {
  const pools = opts.nodePool === undefined ? s.nodePools : s.nodePools.filter((np) => np.name === opts.nodePool);
  const nodes = opts.nodePool === undefined ? s.nodes : s.nodes.filter((n) => n.nodePool === opts.nodePool);
  const nodeNames = new Set(nodes.map((n) => n.name));
  const pods = s.pods.filter((p) => nodeNames.has(p.nodeName));
  const unbound = opts.unbound === true;
  return {
    nodePools: pools.map(nodePoolOf),
    nodes: unbound ? [] : nodes.map(nodeOf),
    pods: pods.map((p) => podOf(p, unbound ? null : p.nodeName, opts.requestsOf)),
    catalogue,
    now: s.takenAt,
  };
}
