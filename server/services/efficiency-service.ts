import type { AnalyticsPackingRepository, NodeWindowRow } from '../../db/repositories/analytics-packing-repository.js';
import { nodePacking, packingStats, sumAll, sumByNodePool, BYTES_PER_GIB, type PackingStats } from '../analytics/packing.js';
import { parseWindow } from '../analytics/query-params.js';
import { isoInstant } from '../analytics/range.js';
import type {
  EfficiencyNodesQuery,
  EfficiencySummaryResponse,
  EfficiencySummaryRow,
  NodeRow,
  NodeSort,
  NodesQuery,
  NodesResponse,
} from '../schemas/efficiency.js';
import { optionalInstant, rangeOf, type RangeContext } from './analytics-range.js';
import { HOUR_MS } from '../../core/time.js';
import { RELATIVE_PRICE_WEIGHTING } from '../../core/cost-weights.js';

const DEFAULT_NODE_PAGE = 500;

const summaryRow = (scope: EfficiencySummaryRow['scope'], nodePool: string | null, p: PackingStats): EfficiencySummaryRow => ({
  scope,
  nodePool,
  nodesAvg: p.nodesAvg,
  nodeHours: p.nodeHours,
  costUsd: p.costUsd,
  usdPerHourAvg: p.usdPerHourAvg,
  cpu: p.cpu,
  memory: p.memory,
  pods: p.pods,
  gpu: p.gpu,
  costWeightedCpu: p.costWeightedCpu,
  costWeightedMemory: p.costWeightedMemory,
  costWeightedPods: p.costWeightedPods,
  costWeightedGpu: p.costWeightedGpu,
  idleVcpuAvg: p.idleVcpuAvg,
  idleMemoryGiBAvg: p.idleMemoryGiBAvg,
  idleUsdPerHourAvg: p.idleUsdPerHourAvg,
  idleRates: p.rates,
});

function nodeRow(r: NodeWindowRow, snapshotAtMs: number): NodeRow {
  const p = nodePacking(r);
  return {
    name: r.name,
    nodeClaim: r.nodeClaim,
    nodePool: r.nodePool,
    instanceType: r.instanceType,
    capacityType: r.capacityType,
    zone: r.zone,
    createdAt: isoInstant(r.createdAtMs),
    ageHours: Math.max(0, (snapshotAtMs - r.createdAtMs) / HOUR_MS),
    usdPerHour: r.usdPerHour,
    priceSource: r.priceSource,
    currency: r.currency,
    allocatableVcpu: r.allocCpuMillicores / 1000,
    allocatableMemoryGiB: r.allocMemoryBytes / BYTES_PER_GIB,
    allocatablePods: r.allocPods,
    allocatableGpu: r.allocGpu,
    requestedVcpu: r.reqCpuMillicores / 1000,
    requestedMemoryGiB: r.reqMemoryBytes / BYTES_PER_GIB,
    requestedPods: r.reqPods,
    requestedGpu: r.reqGpu,
    cpu: p.cpu,
    memory: p.memory,
    pods: p.pods,
    gpu: p.gpu,
    idleVcpu: p.idleVcpu,
    idleMemoryGiB: p.idleMemoryGiB,
    idleUsdPerHour: p.idleUsdPerHour,
    idleRates: p.rates,
    snapshots: r.snapshots,
  };
}

/** Nulls sort last whichever the order; ties by name. */
function sortNodes(rows: NodeRow[], sort: NodeSort, order: 'asc' | 'desc'): NodeRow[] {
  const dir = order === 'asc' ? 1 : -1;
  return rows.sort((a, b) => {
    const x = a[sort];
    const y = b[sort];
    if (x === null || y === null) return x === y ? a.name.localeCompare(b.name) : x === null ? 1 : -1;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return c !== 0 ? c * dir : a.name.localeCompare(b.name);
  });
}

/** Bin-packing efficiency per NodePool and cluster over a range, and per node at (or up to) a snapshot. */
export function createEfficiencyService(repo: AnalyticsPackingRepository, ctx: RangeContext) {
  const nodesAt = (q: { at?: string; window?: string; nodepool?: string; capacityType?: string; q?: string }) => {
    const snapshotAtMs = repo.snapshotAtOrBefore(optionalInstant('at', q.at));
    const windowMs = q.window === undefined ? null : parseWindow('window', q.window);
    if (snapshotAtMs === null) return { snapshotAtMs: null, windowFromMs: null, rows: [] as NodeRow[] };
    // (snapshot − window, snapshot]; without a window, just the snapshot.
    const fromMs = windowMs === null ? snapshotAtMs - 1 : snapshotAtMs - windowMs;
    const rows = repo
      .nodeWindow({ fromMs, toMs: snapshotAtMs, nodePool: q.nodepool, capacityType: q.capacityType, search: q.q })
      .map((r) => nodeRow(r, snapshotAtMs));
    return { snapshotAtMs, windowFromMs: windowMs === null ? snapshotAtMs : fromMs, rows };
  };
  const nodesResponse = (n: ReturnType<typeof nodesAt>, rows: NodeRow[], offset: number): NodesResponse => ({
    snapshotAt: n.snapshotAtMs === null ? null : isoInstant(n.snapshotAtMs),
    windowFrom: n.windowFromMs === null ? null : isoInstant(n.windowFromMs),
    total: n.rows.length,
    offset,
    rows,
  });
  const page = (
    n: ReturnType<typeof nodesAt>,
    sorted: NodeRow[],
    q: { limit?: number; offset?: number },
    opts: { allRows?: boolean },
  ): NodesResponse => {
    if (opts.allRows === true) return nodesResponse(n, sorted, 0);
    const offset = q.offset ?? 0;
    return nodesResponse(n, sorted.slice(offset, offset + (q.limit ?? DEFAULT_NODE_PAGE)), offset);
  };

  return {
    summary(q: { from?: string; to?: string; nodepool?: string }, clusterId: number | null = null): EfficiencySummaryResponse {
      const range = rangeOf(ctx, q, clusterId);
      const rows = repo.poolSums(range);
      const { hours, snapshots } = repo.coverage(range);
      const pools = [...sumByNodePool(rows).entries()].sort(([a], [b]) => a.localeCompare(b));
      return {
        from: isoInstant(range.fromMs),
        to: isoInstant(range.toMs),
        hours,
        snapshots,
        idleWeighting: RELATIVE_PRICE_WEIGHTING,
        rows: [
          summaryRow('cluster', null, packingStats(sumAll(rows), hours)),
          ...pools.map(([p, s]) => summaryRow('nodepool', p, packingStats(s, hours))),
        ],
      };
    },

    /**
     * The summary at one snapshot, per hour (usdPerHourAvg, idleUsdPerHourAvg: that snapshot's USD/h; nodesAvg: its
     * nodes): the NodePool x capacity type rows of that snapshot as one hour's sums, through the same packing
     * analytics as the summary. A few rows whatever the cluster's size: the exposition's "now" (server/metrics/).
     */
    atSnapshot(takenAtMs: number): EfficiencySummaryRow[] {
      const rows = repo.poolRowsAt(takenAtMs);
      const pools = [...sumByNodePool(rows).entries()].sort(([a], [b]) => a.localeCompare(b));
      return [
        summaryRow('cluster', null, packingStats(sumAll(rows), 1)),
        ...pools.map(([p, s]) => summaryRow('nodepool', p, packingStats(s, 1))),
      ];
    },

    /**
     * Per node at a snapshot or over a window, by name, paged (default: 500 rows; `total` counts them all); every
     * row with `allRows` (the CSV download).
     */
    nodeEfficiency(q: EfficiencyNodesQuery, opts: { allRows?: boolean } = {}): NodesResponse {
      const n = nodesAt(q);
      return page(n, sortNodes(n.rows, 'name', 'asc'), q, opts);
    },

    /** The node table at one snapshot, searched (`q`), sorted (default: by name) and paged as nodeEfficiency. */
    nodes(q: NodesQuery, opts: { allRows?: boolean } = {}): NodesResponse {
      const n = nodesAt(q);
      return page(n, sortNodes(n.rows, q.sort ?? 'name', q.order ?? 'asc'), q, opts);
    },
  };
}

export type EfficiencyService = ReturnType<typeof createEfficiencyService>;
