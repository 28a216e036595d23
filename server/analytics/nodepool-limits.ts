import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';

/**
 * A NodePool's spec.limits against what its nodes offer. Karpenter counts the capacity (not the allocatable) of
 * the NodeClaims a NodePool launched against its limits and launches nothing more once one is reached (the
 * nodepool counter controller fills NodePool status.resources the same way). Pure: rows in, figures out.
 */

export type LimitUnit = 'millicores' | 'bytes' | 'count';

/** Nodes sharing one recorded status.capacity (quantity strings); capacity null = not recorded. */
export interface CapacityGroup {
  capacity: Readonly<Record<string, string>> | null;
  nodes: number;
  /** Σ allocatable of these nodes: counted where capacity is missing (it understates capacity a little). */
  allocatable: { cpuMillicores: number; memoryBytes: number; pods: number; gpu: number };
}

export interface ResourceLimitUsage {
  resource: string;
  /** The limit as written. */
  quantity: string;
  unit: LimitUnit;
  /** The limit in `unit`; null when it does not parse. */
  limit: number | null;
  /** Σ capacity of the nodes in `unit`. */
  used: number;
  /** used ÷ limit; null when the limit is null or 0. */
  usedFraction: number | null;
}

export interface NodePoolLimitUsage {
  cpu: string | null;
  cpuMillicores: number | null;
  memory: string | null;
  memoryBytes: number | null;
  /** Every resource of spec.limits: cpu, memory, then the others by name. */
  resources: ResourceLimitUsage[];
  usage: { nodes: number; cpuMillicores: number; memoryBytes: number; nodesWithoutCapacity: number };
}

const BYTE_RESOURCES = new Set(['memory', 'ephemeral-storage', 'storage']);

/** cpu in millicores; memory, storage and huge pages in bytes; everything else (pods, GPUs, ...) is a count. */
export function unitOf(resource: string): LimitUnit {
  if (resource === 'cpu') return 'millicores';
  if (BYTE_RESOURCES.has(resource) || resource.startsWith('hugepages-')) return 'bytes';
  return 'count';
}

/** A quantity in the unit of its resource; null when it does not parse. */
export function parseResourceQuantity(resource: string, quantity: string): number | null {
  try {
    return resource === 'cpu' ? parseCpuMillicores(quantity) : parseBaseUnits(quantity);
  } catch {
    return null;
  }
}

/** What a node without recorded capacity is counted as, per resource (0 for resources allocatable does not carry). */
function allocatableOf(resource: string, a: CapacityGroup['allocatable']): number {
  if (resource === 'cpu') return a.cpuMillicores;
  if (resource === 'memory') return a.memoryBytes;
  if (resource === 'pods') return a.pods;
  if (resource === 'nvidia.com/gpu') return a.gpu;
  return 0;
}

/**
 * The `nodes` limit (Karpenter v1.4+, pkg/utils/resources Node = "nodes") counts nodes, not a resource a node
 * reports: Karpenter's nodepool counter adds 1 per node of the NodePool to status.resources.nodes.
 */
export const NODES_LIMIT = 'nodes';

/** Σ over the groups of `resource` in its unit; a capacity quantity that does not parse counts 0. */
export function sumCapacity(resource: string, groups: readonly CapacityGroup[]): number {
  if (resource === NODES_LIMIT) return groups.reduce((n, g) => n + g.nodes, 0);
  let total = 0;
  for (const g of groups) {
    if (g.capacity === null) total += allocatableOf(resource, g.allocatable);
    else {
      const q = g.capacity[resource];
      total += q === undefined ? 0 : (parseResourceQuantity(resource, q) ?? 0) * g.nodes;
    }
  }
  return total;
}

const resourceOrder = (a: string, b: string): number => {
  const rank = (r: string) => (r === 'cpu' ? 0 : r === 'memory' ? 1 : 2);
  return rank(a) - rank(b) || a.localeCompare(b);
};

export function nodePoolLimitUsage(limits: Readonly<Record<string, string>>, groups: readonly CapacityGroup[]): NodePoolLimitUsage {
  const resources = Object.keys(limits)
    .sort(resourceOrder)
    .map((resource): ResourceLimitUsage => {
      const quantity = limits[resource];
      const limit = parseResourceQuantity(resource, quantity);
      const used = sumCapacity(resource, groups);
      return { resource, quantity, unit: unitOf(resource), limit, used, usedFraction: limit === null || limit === 0 ? null : used / limit };
    });
  const cpu = limits.cpu ?? null;
  const memory = limits.memory ?? null;
  return {
    cpu,
    cpuMillicores: cpu === null ? null : parseResourceQuantity('cpu', cpu),
    memory,
    memoryBytes: memory === null ? null : parseResourceQuantity('memory', memory),
    resources,
    usage: {
      nodes: groups.reduce((n, g) => n + g.nodes, 0),
      cpuMillicores: sumCapacity('cpu', groups),
      memoryBytes: sumCapacity('memory', groups),
      nodesWithoutCapacity: groups.reduce((n, g) => n + (g.capacity === null ? g.nodes : 0), 0),
    },
  };
}
