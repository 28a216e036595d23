import type { CapacityType } from './labels';
import type { KubeSnapshot, NamespaceRollup, NodePoolRollup, NodeRecord, PriceQuote, ResourceAmounts, SnapshotNode } from './model';
import { addResources, zeroResources } from './model';

export type PriceLookup = (node: NodeRecord, at: number) => PriceQuote;

/** Share of a node's cost charged by request: cpu and memory weighted equally against allocatable. */
export const DEFAULT_WEIGHTS = { cpu: 0.5, memory: 0.5 } as const;

/** Pods that occupy node capacity: bound to a node and not finished. */
export const podCounts = (p: { nodeName: string | null; phase?: string }): boolean =>
  p.nodeName !== null && p.phase !== 'Succeeded' && p.phase !== 'Failed';

/**
 * From one Kubernetes snapshot: per node allocatable vs summed requests and price, then the rollups per
 * NodePool x capacity type and per namespace x NodePool (request-share cost), which the dashboard reads.
 */
export function buildSnapshotRows(s: KubeSnapshot, price: PriceLookup) {
  const requested = new Map<string, ResourceAmounts>();
  for (const p of s.pods) {
    if (!podCounts(p)) continue;
    const key = p.nodeName ?? '';
    requested.set(key, addResources(requested.get(key) ?? zeroResources(), p.requests));
  }
  const nodes: SnapshotNode[] = s.nodes.map((n) => {
    const q = price(n, s.takenAt);
    return {
      nodeName: n.name,
      nodePool: n.nodePool,
      capacityType: n.capacityType,
      instanceType: n.instanceType,
      allocatable: n.allocatable,
      requested: requested.get(n.name) ?? zeroResources(),
      usdPerHour: q.source === 'unknown' ? null : q.usdPerHour,
      priceSource: q.source,
    };
  });

  const pools = new Map<string, NodePoolRollup>();
  for (const n of nodes) {
    const key = `${n.nodePool ?? ''}|${n.capacityType}`;
    const r = pools.get(key) ?? { nodePool: n.nodePool ?? '', capacityType: n.capacityType as CapacityType, nodes: 0, allocatable: zeroResources(), requested: zeroResources(), usdPerHour: 0 };
    r.nodes += 1;
    r.allocatable = addResources(r.allocatable, n.allocatable);
    r.requested = addResources(r.requested, n.requested);
    r.usdPerHour += n.usdPerHour ?? 0;
    pools.set(key, r);
  }

  const nodeByName = new Map(nodes.map((n) => [n.nodeName, n]));
  const teamOf = new Map(s.namespaces.map((ns) => [ns.name, ns.team]));
  const spaces = new Map<string, NamespaceRollup>();
  for (const p of s.pods) {
    if (!podCounts(p)) continue;
    const node = nodeByName.get(p.nodeName ?? '');
    if (!node) continue;
    const pool = node.nodePool ?? '';
    const key = `${p.namespace}|${pool}`;
    const r = spaces.get(key) ?? { namespace: p.namespace, nodePool: pool, team: p.team ?? teamOf.get(p.namespace) ?? null, pods: 0, cpuMillicores: 0, memoryBytes: 0, usdPerHour: 0 };
    r.pods += 1;
    r.cpuMillicores += p.requests.cpuMillicores;
    r.memoryBytes += p.requests.memoryBytes;
    r.usdPerHour += requestShareCost(node.usdPerHour ?? 0, p.requests, node.allocatable);
    spaces.set(key, r);
  }
  return {
    nodes,
    nodePoolRollups: [...pools.values()].sort((a, b) => a.nodePool.localeCompare(b.nodePool) || a.capacityType.localeCompare(b.capacityType)),
    namespaceRollups: [...spaces.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.nodePool.localeCompare(b.nodePool)),
  };
}

/** USD/hour of a node charged to one pod: its weighted share of cpu and memory allocatable (capped at 1). */
export function requestShareCost(nodeUsdPerHour: number, req: ResourceAmounts, alloc: ResourceAmounts, w = DEFAULT_WEIGHTS): number {
  const cpuShare = alloc.cpuMillicores > 0 ? req.cpuMillicores / alloc.cpuMillicores : 0;
  const memShare = alloc.memoryBytes > 0 ? req.memoryBytes / alloc.memoryBytes : 0;
  return nodeUsdPerHour * Math.min(1, w.cpu * cpuShare + w.memory * memShare);
}
