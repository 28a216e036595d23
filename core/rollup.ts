import type { CapacityType } from './labels.js';
import type {
  CostWeightedSums,
  KubeSnapshot,
  NamespaceRollup,
  NodePoolRollup,
  NodeRecord,
  PodRecord,
  PriceQuote,
  RelativePriceSums,
  ResourceAmounts,
  SnapshotNode,
} from './model.js';
import { addResources, zeroResources } from './model.js';
import { awsSplit } from './attribution/aws-split.js';
import { instanceTypeCapacity, nodeStatusCapacity } from './attribution/capacity.js';
import { openCost } from './attribution/opencost.js';
import { requestShareCost, shareOf } from './attribution/request-share.js';
import type { Currency } from './partitions.js';
import { relativePriceWeights, takenUsd } from './cost-weights.js';

export type PriceLookup = (node: NodeRecord, at: number) => PriceQuote;
/** On-demand price per hour (in the snapshot's currency) of a node's instance type at a time; null when unknown. */
export type OnDemandLookup = (node: NodeRecord, at: number) => number | null;

/** requested ÷ allocatable, 0 with nothing allocatable (such a node contributes nothing to the cost-weighted sums). */
const ratio = shareOf;

type PoolSums = NodePoolRollup & { costWeighted: CostWeightedSums; onDemandUsdPerHour: number | null; relativePrice: RelativePriceSums };
type NamespaceSums = NamespaceRollup &
  Required<
    Pick<
      NamespaceRollup,
      | 'cpuShareUsdPerHour'
      | 'memoryShareUsdPerHour'
      | 'awsSplitCostUsdPerHour'
      | 'awsUnusedCostUsdPerHour'
      | 'openCostUsdPerHour'
      | 'usagePods'
    >
  >;

/** Pods that occupy node capacity: bound to a node and not finished. */
export const podCounts = (p: { nodeName: string | null; phase?: string }): boolean =>
  p.nodeName !== null && p.phase !== 'Succeeded' && p.phase !== 'Failed';

/**
 * From one Kubernetes snapshot: per node allocatable vs summed requests and price, then the rollups per
 * NodePool x capacity type (with the cost-weighted efficiency sums and the on-demand price of the same
 * instances) and per namespace x NodePool under the three attribution methods (core/attribution/): request share
 * and its cpu and memory parts, AWS split cost allocation (split and unused cost), OpenCost; the dashboard reads them.
 * Pods carrying `usage` feed max(request, usage) to AWS split and OpenCost; without it, their requests do. `onDemand` prices spot nodes at the on-demand rate (spot savings); without it
 * a NodePool with spot nodes has no on-demand equivalent (null). Every amount is in the snapshot's one currency
 * (`currency`: a cluster is in one region, so one partition): prices in two currencies are refused rather than
 * added up.
 */
export function buildSnapshotRows(s: KubeSnapshot, price: PriceLookup, onDemand?: OnDemandLookup) {
  const requested = new Map<string, ResourceAmounts>();
  for (const p of s.pods) {
    if (!podCounts(p)) continue;
    const key = p.nodeName ?? '';
    requested.set(key, addResources(requested.get(key) ?? zeroResources(), p.requests));
  }
  const onDemandByNode = new Map<string, number | null>();
  let currency: Currency | null = null;
  const nodes: SnapshotNode[] = s.nodes.map((n) => {
    const q = price(n, s.takenAt);
    if (currency !== null && q.currency !== currency) {
      throw new Error(`node ${n.name} is priced in ${q.currency} and another node in ${currency}: amounts in two currencies are not added`);
    }
    currency = q.currency;
    const usdPerHour = q.source === 'unknown' ? null : q.pricePerHour;
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
      currency: q.currency,
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
      relativePrice: { requestedUsdPerHour: 0, cpuUsdPerHour: 0, gpuUsdPerHour: 0 },
    };
    const p = n.usdPerHour ?? 0;
    // The one weighting of idle (core/cost-weights.ts): the node's price split by relative price over its allocatable.
    const w = relativePriceWeights(n.allocatable);
    r.relativePrice.requestedUsdPerHour += takenUsd(p, w, n.allocatable, n.requested);
    r.relativePrice.cpuUsdPerHour += p * w.cpu;
    r.relativePrice.gpuUsdPerHour += p * w.gpu;
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

  // Per namespace x NodePool, created in pod order (a namespace's team is the one of its first pod): request share
  // pod by pod, then AWS split and OpenCost, which divide a node's price over all its pods at once, node by node.
  const nodeByName = new Map(nodes.map((n) => [n.nodeName, n]));
  const teamOf = new Map(s.namespaces.map((ns) => [ns.name, ns.team]));
  const spaces = new Map<string, NamespaceSums>();
  const podsByNode = new Map<string, { pods: PodRecord[]; sums: NamespaceSums[] }>();
  for (const p of s.pods) {
    if (!podCounts(p)) continue;
    const node = nodeByName.get(p.nodeName ?? '');
    if (!node) continue;
    const pool = node.nodePool ?? '';
    const key = `${p.namespace}|${pool}`;
    let r = spaces.get(key);
    if (r === undefined) {
      r = {
        namespace: p.namespace,
        nodePool: pool,
        team: p.team ?? teamOf.get(p.namespace) ?? null,
        pods: 0,
        cpuMillicores: 0,
        memoryBytes: 0,
        usdPerHour: 0,
        cpuShareUsdPerHour: 0,
        memoryShareUsdPerHour: 0,
        awsSplitCostUsdPerHour: 0,
        awsUnusedCostUsdPerHour: 0,
        openCostUsdPerHour: 0,
        usagePods: 0,
      };
      spaces.set(key, r);
    }
    const nodeUsd = node.usdPerHour ?? 0;
    r.pods += 1;
    r.cpuMillicores += p.requests.cpuMillicores;
    r.memoryBytes += p.requests.memoryBytes;
    r.usdPerHour += requestShareCost(nodeUsd, p.requests, node.allocatable);
    r.cpuShareUsdPerHour += nodeUsd * ratio(p.requests.cpuMillicores, node.allocatable.cpuMillicores);
    r.memoryShareUsdPerHour += nodeUsd * ratio(p.requests.memoryBytes, node.allocatable.memoryBytes);
    const on = podsByNode.get(node.nodeName);
    if (on === undefined) podsByNode.set(node.nodeName, { pods: [p], sums: [r] });
    else {
      on.pods.push(p);
      on.sums.push(r);
    }
  }
  for (const n of s.nodes) {
    const on = podsByNode.get(n.name);
    if (on === undefined) continue;
    const nodeUsd = nodeByName.get(n.name)?.usdPerHour ?? 0;
    const aws = awsSplit({ costUsd: nodeUsd, capacity: instanceTypeCapacity(n), pods: on.pods });
    const oc = openCost({ costUsd: nodeUsd, capacity: nodeStatusCapacity(n), pods: on.pods });
    on.sums.forEach((r, i) => {
      r.awsSplitCostUsdPerHour += aws.pods[i].splitCostUsd;
      r.awsUnusedCostUsdPerHour += aws.pods[i].unusedCostUsd;
      r.openCostUsdPerHour += oc.pods[i].totalUsd;
      if (aws.pods[i].usageFed) r.usagePods += 1;
    });
  }
  return {
    /** The currency of every amount below; USD for a snapshot without nodes. */
    currency: (currency ?? 'USD') as Currency,
    nodes,
    nodePoolRollups: [...pools.values()].sort(
      (a, b) => a.nodePool.localeCompare(b.nodePool) || a.capacityType.localeCompare(b.capacityType),
    ),
    namespaceRollups: [...spaces.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.nodePool.localeCompare(b.nodePool)),
  };
}
