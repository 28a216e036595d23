import type { CapacityType } from './labels.js';
import type {
  CostWeightedSums,
  KubeSnapshot,
  NamespaceRollup,
  NodePoolRollup,
  NodeRecord,
  PriceQuote,
  ResourceAmounts,
  SnapshotNode,
} from './model.js';
import { addResources, zeroResources } from './model.js';

export type PriceLookup = (node: NodeRecord, at: number) => PriceQuote;
/** On-demand USD/hour of a node's instance type at a time; null when unknown. */
export type OnDemandLookup = (node: NodeRecord, at: number) => number | null;

/** Share of a node's cost charged by request: cpu and memory weighted equally against allocatable. */
export const DEFAULT_WEIGHTS = { cpu: 0.5, memory: 0.5 } as const;

/** AWS split cost allocation data weighs a vCPU 9 times a GB of memory (derived from Fargate prices). */
export const AWS_SPLIT_CPU_TO_MEMORY_WEIGHT = 9;
const GiB = 1024 ** 3;

/** requested ÷ allocatable, 0 with nothing allocatable (such a node contributes nothing to the cost-weighted sums). */
const ratio = (requested: number, allocatable: number): number => (allocatable > 0 ? requested / allocatable : 0);

type PoolSums = NodePoolRollup & { costWeighted: CostWeightedSums; onDemandUsdPerHour: number | null };
type NamespaceSums = NamespaceRollup & { cpuShareUsdPerHour: number; memoryShareUsdPerHour: number; awsSplitUsdPerHour: number };

/** Pods that occupy node capacity: bound to a node and not finished. */
export const podCounts = (p: { nodeName: string | null; phase?: string }): boolean =>
  p.nodeName !== null && p.phase !== 'Succeeded' && p.phase !== 'Failed';

/**
 * From one Kubernetes snapshot: per node allocatable vs summed requests and price, then the rollups per
 * NodePool x capacity type (with the cost-weighted efficiency sums and the on-demand price of the same
 * instances) and per namespace x NodePool (request-share cost, its cpu and memory parts, AWS split cost),
 * which the dashboard reads. `onDemand` prices spot nodes at the on-demand rate (spot savings); without it
 * a NodePool with spot nodes has no on-demand equivalent (null).
 */
export function buildSnapshotRows(s: KubeSnapshot, price: PriceLookup, onDemand?: OnDemandLookup) {
  const requested = new Map<string, ResourceAmounts>();
  for (const p of s.pods) {
    if (!podCounts(p)) continue;
    const key = p.nodeName ?? '';
    requested.set(key, addResources(requested.get(key) ?? zeroResources(), p.requests));
  }
  const onDemandByNode = new Map<string, number | null>();
  const nodes: SnapshotNode[] = s.nodes.map((n) => {
    const q = price(n, s.takenAt);
    const usdPerHour = q.source === 'unknown' ? null : q.usdPerHour;
    // On-demand and reserved capacity is billed at (or discounted from) the on-demand rate: its own price.
    onDemandByNode.set(n.name, n.capacityType === 'spot' ? (onDemand?.(n, s.takenAt) ?? null) : usdPerHour);
    return {
      nodeName: n.name,
      nodePool: n.nodePool,
      capacityType: n.capacityType,
      instanceType: n.instanceType,
      allocatable: n.allocatable,
      requested: requested.get(n.name) ?? zeroResources(),
      usdPerHour,
      priceSource: q.source,
    };
  });

  const pools = new Map<string, PoolSums>();
  for (const n of nodes) {
    const key = `${n.nodePool ?? ''}|${n.capacityType}`;
    const r: PoolSums = pools.get(key) ?? {
      nodePool: n.nodePool ?? '',
      capacityType: n.capacityType as CapacityType,
      nodes: 0,
      allocatable: zeroResources(),
      requested: zeroResources(),
      usdPerHour: 0,
      costWeighted: { cpuUsdPerHour: 0, memoryUsdPerHour: 0, podsUsdPerHour: 0, gpuUsdPerHour: 0, gpuNodesUsdPerHour: 0 },
      onDemandUsdPerHour: 0,
    };
    const p = n.usdPerHour ?? 0;
    r.nodes += 1;
    r.allocatable = addResources(r.allocatable, n.allocatable);
    r.requested = addResources(r.requested, n.requested);
    r.usdPerHour += p;
    const cw = r.costWeighted;
    cw.cpuUsdPerHour += p * ratio(n.requested.cpuMillicores, n.allocatable.cpuMillicores);
    cw.memoryUsdPerHour += p * ratio(n.requested.memoryBytes, n.allocatable.memoryBytes);
    cw.podsUsdPerHour += p * ratio(n.requested.pods, n.allocatable.pods);
    if (n.allocatable.gpu > 0) {
      cw.gpuUsdPerHour += p * ratio(n.requested.gpu, n.allocatable.gpu);
      cw.gpuNodesUsdPerHour += p;
    }
    const od = onDemandByNode.get(n.nodeName) ?? null;
    r.onDemandUsdPerHour = r.onDemandUsdPerHour === null || od === null ? null : r.onDemandUsdPerHour + od;
    pools.set(key, r);
  }

  const nodeByName = new Map(nodes.map((n) => [n.nodeName, n]));
  const teamOf = new Map(s.namespaces.map((ns) => [ns.name, ns.team]));
  const spaces = new Map<string, NamespaceSums>();
  for (const p of s.pods) {
    if (!podCounts(p)) continue;
    const node = nodeByName.get(p.nodeName ?? '');
    if (!node) continue;
    const pool = node.nodePool ?? '';
    const key = `${p.namespace}|${pool}`;
    const r: NamespaceSums = spaces.get(key) ?? {
      namespace: p.namespace,
      nodePool: pool,
      team: p.team ?? teamOf.get(p.namespace) ?? null,
      pods: 0,
      cpuMillicores: 0,
      memoryBytes: 0,
      usdPerHour: 0,
      cpuShareUsdPerHour: 0,
      memoryShareUsdPerHour: 0,
      awsSplitUsdPerHour: 0,
    };
    const nodeUsd = node.usdPerHour ?? 0;
    r.pods += 1;
    r.cpuMillicores += p.requests.cpuMillicores;
    r.memoryBytes += p.requests.memoryBytes;
    r.usdPerHour += requestShareCost(nodeUsd, p.requests, node.allocatable);
    r.cpuShareUsdPerHour += nodeUsd * ratio(p.requests.cpuMillicores, node.allocatable.cpuMillicores);
    r.memoryShareUsdPerHour += nodeUsd * ratio(p.requests.memoryBytes, node.allocatable.memoryBytes);
    r.awsSplitUsdPerHour += awsSplitPodCost(nodeUsd, p.requests, node.requested, node.allocatable);
    spaces.set(key, r);
  }
  return {
    nodes,
    nodePoolRollups: [...pools.values()].sort(
      (a, b) => a.nodePool.localeCompare(b.nodePool) || a.capacityType.localeCompare(b.capacityType),
    ),
    namespaceRollups: [...spaces.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.nodePool.localeCompare(b.nodePool)),
  };
}

/** USD/hour of a node charged to one pod: its weighted share of cpu and memory allocatable (capped at 1). */
export function requestShareCost(nodeUsdPerHour: number, req: ResourceAmounts, alloc: ResourceAmounts, w = DEFAULT_WEIGHTS): number {
  const cpuShare = alloc.cpuMillicores > 0 ? req.cpuMillicores / alloc.cpuMillicores : 0;
  const memShare = alloc.memoryBytes > 0 ? req.memoryBytes / alloc.memoryBytes : 0;
  return nodeUsdPerHour * Math.min(1, w.cpu * cpuShare + w.memory * memShare);
}

/** A node's hourly price divided between cpu and memory as AWS split cost allocation does: 9:1 per vCPU:GiB of allocatable. */
export function awsSplitParts(nodeUsdPerHour: number, alloc: ResourceAmounts): { cpuUsdPerHour: number; memoryUsdPerHour: number } {
  const cpuUnits = AWS_SPLIT_CPU_TO_MEMORY_WEIGHT * (alloc.cpuMillicores / 1000);
  const memoryUnits = alloc.memoryBytes / GiB;
  const units = cpuUnits + memoryUnits;
  if (units <= 0) return { cpuUsdPerHour: 0, memoryUsdPerHour: 0 };
  return { cpuUsdPerHour: (nodeUsdPerHour * cpuUnits) / units, memoryUsdPerHour: (nodeUsdPerHour * memoryUnits) / units };
}

/**
 * A pod's cost under AWS split cost allocation data for EKS, fed with requests only. AWS charges a pod
 * max(request, usage) ÷ allocatable of each resource's part of the price, then hands the instance's unused
 * part to the pods in proportion to their allocation. With requests only that sums to: each part × the
 * pod's share of the pods' total request (pod ÷ Σ pods), so a node's whole price is charged as long as its
 * pods request something of both resources; a part no pod requests stays idle. GPU weighting is not applied.
 */
export function awsSplitPodCost(
  nodeUsdPerHour: number,
  pod: ResourceAmounts,
  nodeRequested: ResourceAmounts,
  alloc: ResourceAmounts,
): number {
  const parts = awsSplitParts(nodeUsdPerHour, alloc);
  return (
    parts.cpuUsdPerHour * ratio(pod.cpuMillicores, nodeRequested.cpuMillicores) +
    parts.memoryUsdPerHour * ratio(pod.memoryBytes, nodeRequested.memoryBytes)
  );
}
