import type { Db } from '../open-db.js';
import { INTERVAL_CAP_MS } from './analytics-intervals.js';
import { createRangeRollupReader, POOL_WEIGHTED, withBucketStart } from './range-rollups.js';

/**
 * Read SQL behind bin-packing efficiency, consolidation windows, the timeline and the NodePool
 * comparison: hours-weighted sums over the hour and day rollups (range-rollups.ts; never snapshot_nodes for ranges),
 * and per-node rows over at most a day of snapshot_nodes for the node table.
 * Times are epoch ms UTC; cpu in millicores; memory in bytes; money in USD.
 */

export interface AnalyticsRange {
  /** Inclusive start, epoch ms UTC. */
  fromMs: number;
  /** Exclusive end, epoch ms UTC. */
  toMs: number;
  /** Only this NodePool ('' = nodes without one); undefined = all. */
  nodePool?: string;
  /** One cluster's rows (clusters.id); absent or null: every cluster's. Range rollups filter by it so far. */
  clusterId?: number | null;
}

/** Σ quantity × hours over the rollup rows of one NodePool x capacity type (see server/analytics/packing.ts). */
export interface PoolSumsRow {
  nodePool: string;
  capacityType: string;
  nodeHours: number;
  costUsd: number;
  allocCpuMillicoreHours: number;
  reqCpuMillicoreHours: number;
  allocMemoryByteHours: number;
  reqMemoryByteHours: number;
  allocPodHours: number;
  reqPodHours: number;
  allocGpuHours: number;
  reqGpuHours: number;
  costWeightedCpuUsd: number;
  costWeightedMemoryUsd: number;
  costWeightedPodsUsd: number;
  costWeightedGpuUsd: number;
  gpuNodesUsd: number;
  onDemandUsd: number;
  onDemandUnknownUsd: number;
  /** Relative-price weighting (core/cost-weights.ts): the part of the cost requests cover, and the CPU and GPU parts. */
  rpRequestedUsd: number;
  rpCpuUsd: number;
  rpGpuUsd: number;
}

export interface BucketPoolSumsRow extends PoolSumsRow {
  bucketStartMs: number;
}

export interface Coverage {
  /** Hours of the range the snapshots stand for. */
  hours: number;
  snapshots: number;
}

export interface NodeWindowRow {
  name: string;
  nodeClaim: string | null;
  nodePool: string;
  instanceType: string;
  capacityType: string;
  zone: string;
  createdAtMs: number;
  snapshots: number;
  /** Hours the averaged snapshots stand for. */
  hours: number;
  /** Hours-weighted means over the window. */
  allocCpuMillicores: number;
  reqCpuMillicores: number;
  allocMemoryBytes: number;
  reqMemoryBytes: number;
  allocPods: number;
  reqPods: number;
  allocGpu: number;
  reqGpu: number;
  /** Mean over the snapshots that had a price; null when none had. */
  usdPerHour: number | null;
  /** The price source at the newest snapshot of the window where the node was present. */
  priceSource: string | null;
  /** The currency of usdPerHour (USD, or CNY in China). */
  currency: string;
}

interface RawSums {
  nodepool: string;
  capacity_type: string;
  node_hours: number;
  cost_usd: number;
  alloc_cpu_m_hours: number;
  req_cpu_m_hours: number;
  alloc_memory_b_hours: number;
  req_memory_b_hours: number;
  alloc_pods_hours: number;
  req_pods_hours: number;
  alloc_gpu_hours: number;
  req_gpu_hours: number;
  cw_cpu_usd: number;
  cw_memory_usd: number;
  cw_pods_usd: number;
  cw_gpu_usd: number;
  gpu_nodes_usd: number;
  on_demand_usd: number;
  on_demand_unknown_usd: number;
  rp_requested_usd: number;
  rp_cpu_usd: number;
  rp_gpu_usd: number;
}
interface RawNode {
  name: string;
  nodeclaim: string | null;
  nodepool: string;
  instance_type: string;
  capacity_type: string;
  zone: string;
  created_at: number;
  snapshots: number;
  hours: number;
  alloc_cpu: number;
  req_cpu: number;
  alloc_mem: number;
  req_mem: number;
  alloc_pods: number;
  req_pods: number;
  alloc_gpu: number;
  req_gpu: number;
  usd_hours: number;
  priced_hours: number;
  price_source: string | null;
  price_currency: string;
}

const mapSums = (r: RawSums): PoolSumsRow => ({
  nodePool: r.nodepool,
  capacityType: r.capacity_type,
  nodeHours: r.node_hours,
  costUsd: r.cost_usd,
  allocCpuMillicoreHours: r.alloc_cpu_m_hours,
  reqCpuMillicoreHours: r.req_cpu_m_hours,
  allocMemoryByteHours: r.alloc_memory_b_hours,
  reqMemoryByteHours: r.req_memory_b_hours,
  allocPodHours: r.alloc_pods_hours,
  reqPodHours: r.req_pods_hours,
  allocGpuHours: r.alloc_gpu_hours,
  reqGpuHours: r.req_gpu_hours,
  costWeightedCpuUsd: r.cw_cpu_usd,
  costWeightedMemoryUsd: r.cw_memory_usd,
  costWeightedPodsUsd: r.cw_pods_usd,
  costWeightedGpuUsd: r.cw_gpu_usd,
  gpuNodesUsd: r.gpu_nodes_usd,
  onDemandUsd: r.on_demand_usd,
  onDemandUnknownUsd: r.on_demand_unknown_usd,
  rpRequestedUsd: r.rp_requested_usd,
  rpCpuUsd: r.rp_cpu_usd,
  rpGpuUsd: r.rp_gpu_usd,
});

/** A LIKE pattern matching values that contain `text` literally: its %, _ and the escape character \ stand for themselves. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createAnalyticsPackingRepository(db: Db) {
  // Range sums come from the hour and day rollups (plus the snapshots of partial edge hours): a 30-day range
  // reads about as much as a 1-day one.
  const rollups = createRangeRollupReader(db);

  const atOrBefore = db
    .prepare(
      `SELECT taken_at FROM snapshots WHERE taken_at <= CAST(@at AS INTEGER) AND (@clusterId IS NULL OR cluster_id = @clusterId)
       ORDER BY taken_at DESC LIMIT 1`,
    )
    .pluck();

  // Snapshots in (fromMs, toMs], each weighted by the time to the next (the newest by the time since the one
  // before), capped like the range sums. Reads one day of snapshot_nodes at most (the service bounds the window).
  // An hourly snapshot (folded past the raw retention, migration 0021) weighs each node by the time it stood for in
  // its hour and counts the snapshots it folds: a window of whole hours reads what the 5-minute snapshots gave.
  // With a single MAX() aggregate SQLite takes the bare price_source and price_currency from the node's newest row.
  const nodeWindow = db.prepare(`
    WITH s AS (
      SELECT id, taken_at, cluster_id,
             LEAD(taken_at) OVER (PARTITION BY cluster_id ORDER BY taken_at) AS next_at,
             LAG(taken_at) OVER (PARTITION BY cluster_id ORDER BY taken_at) AS prev_at
      FROM snapshots WHERE taken_at > CAST(@fromMs AS INTEGER) AND taken_at <= CAST(@toMs AS INTEGER) + ${INTERVAL_CAP_MS}
        AND (@clusterId IS NULL OR cluster_id = @clusterId)
    ),
    w AS (
      SELECT id, taken_at, cluster_id, MIN(COALESCE(next_at - taken_at, taken_at - prev_at, ${INTERVAL_CAP_MS}), ${INTERVAL_CAP_MS}) / 3600000.0 AS hours
      FROM s WHERE taken_at <= CAST(@toMs AS INTEGER)
    ),
    wn AS (
      SELECT w.taken_at, w.cluster_id AS snap_cluster, COALESCE(sn.fold_ms / 3600000.0, w.hours) AS hours, COALESCE(sn.fold_snapshots, 1) AS snapshots, sn.*
      FROM w JOIN snapshot_nodes sn ON sn.snapshot_id = w.id
    )
    SELECT sn.node_name AS name, n.nodeclaim, COALESCE(sn.nodepool, '') AS nodepool, sn.instance_type, sn.capacity_type,
           COALESCE(n.zone, '') AS zone, COALESCE(n.created_at, 0) AS created_at, CAST(TOTAL(sn.snapshots) AS INTEGER) AS snapshots,
           TOTAL(sn.hours) AS hours,
           TOTAL(sn.hours * sn.alloc_cpu_m) AS alloc_cpu, TOTAL(sn.hours * sn.req_cpu_m) AS req_cpu,
           TOTAL(sn.hours * sn.alloc_memory_b) AS alloc_mem, TOTAL(sn.hours * sn.req_memory_b) AS req_mem,
           TOTAL(sn.hours * sn.alloc_pods) AS alloc_pods, TOTAL(sn.hours * sn.req_pods) AS req_pods,
           TOTAL(sn.hours * sn.alloc_gpu) AS alloc_gpu, TOTAL(sn.hours * sn.req_gpu) AS req_gpu,
           TOTAL(sn.hours * sn.usd_per_hour) AS usd_hours, TOTAL(CASE WHEN sn.usd_per_hour IS NOT NULL THEN sn.hours ELSE 0 END) AS priced_hours,
           sn.price_source, sn.price_currency, MAX(sn.taken_at) AS newest
    FROM wn sn LEFT JOIN nodes n ON n.name = sn.node_name AND n.cluster_id = sn.snap_cluster
    WHERE (@nodePool IS NULL OR COALESCE(sn.nodepool, '') = @nodePool) AND (@capacityType IS NULL OR sn.capacity_type = @capacityType)
      AND (@like IS NULL OR sn.node_name LIKE @like ESCAPE '\\' OR COALESCE(n.nodeclaim, '') LIKE @like ESCAPE '\\'
           OR sn.instance_type LIKE @like ESCAPE '\\' OR COALESCE(sn.nodepool, '') LIKE @like ESCAPE '\\' OR COALESCE(n.zone, '') LIKE @like ESCAPE '\\')
    GROUP BY sn.node_name, sn.snap_cluster
    ORDER BY sn.node_name, sn.snap_cluster`);
  // Read as arrays: at 5,000 nodes making a 22-key object per row took twice as long as the query itself.
  nodeWindow.raw(true);
  const nodeCol = Object.fromEntries(nodeWindow.columns().map((c, i) => [c.name, i])) as Record<keyof RawNode, number>;

  // One snapshot's NodePool x capacity type rows (the collector writes them as the sums of its nodes), as sums over one
  // hour: the rollups' own column expressions (range-rollups.ts) with h = 1, so a column they gain is read here too.
  // A few rows by the taken_at index.
  const poolRowsAt = db.prepare(`
    SELECT p.nodepool, p.capacity_type, ${POOL_WEIGHTED.map(([c, e]) => `${e('1')} AS ${c}`).join(', ')}
    FROM snapshot_nodepools p WHERE p.taken_at = CAST(@takenAtMs AS INTEGER) AND (@clusterId IS NULL OR p.cluster_id = @clusterId)
    ORDER BY p.nodepool, p.capacity_type`);

  return {
    /**
     * The NodePool x capacity type rows of the snapshot taken at `takenAtMs`, as sums over one hour: each figure is the
     * snapshot's per-hour amount (nodes, USD/h, millicores, bytes, ...), for the exposition's "now".
     */
    poolRowsAt(takenAtMs: number, clusterId: number | null = null): PoolSumsRow[] {
      return (poolRowsAt.all({ takenAtMs, clusterId }) as RawSums[]).map(mapSums);
    },

    /** Hours-weighted sums per NodePool x capacity type over [fromMs, toMs). */
    poolSums(range: AnalyticsRange): PoolSumsRow[] {
      return rollups.poolSums(range).map(mapSums);
    },

    /** Hours of [fromMs, toMs) the snapshots stand for, and how many snapshots that is. */
    coverage(range: AnalyticsRange): Coverage {
      return rollups.coverage(range);
    },

    /**
     * Sums per bucket (aligned on the epoch, UTC, or starting at originMs) per NodePool x capacity type. With buckets of whole hours a
     * snapshot's time is split at bucket boundaries; finer buckets take each snapshot whole in the bucket of its start.
     */
    bucketSums(range: AnalyticsRange & { bucketMs: number; originMs?: number }): BucketPoolSumsRow[] {
      return rollups.bucketPoolSums(range).map((r) => withBucketStart(mapSums(r), r.bucket_ms));
    },

    /** Hours covered per bucket. */
    bucketCoverage(range: AnalyticsRange & { bucketMs: number }): (Coverage & { bucketStartMs: number })[] {
      return rollups.bucketCoverage(range).map((r) => ({ bucketStartMs: r.bucket_ms, hours: r.hours, snapshots: r.snapshots }));
    },

    /** Time of the newest snapshot at or before `atMs` (default: the newest), or null. */
    snapshotAtOrBefore(atMs: number = Number.MAX_SAFE_INTEGER, clusterId: number | null = null): number | null {
      return (atOrBefore.get({ at: atMs, clusterId }) as number | undefined) ?? null;
    },

    /**
     * Each node present in a snapshot taken in (fromMs, toMs], averaged over those snapshots (hours-weighted); with
     * `search`, only nodes whose name, NodeClaim, instance type, NodePool or zone contains it (SQLite LIKE: ASCII
     * case-insensitive). `clusterId`: that cluster's snapshots (null or absent: every cluster's, a node per cluster).
     */
    nodeWindow(q: {
      fromMs: number;
      toMs: number;
      nodePool?: string;
      capacityType?: string;
      search?: string;
      clusterId?: number | null;
    }): NodeWindowRow[] {
      const like = q.search === undefined || q.search === '' ? null : containsPattern(q.search);
      const rows = nodeWindow.all({
        fromMs: q.fromMs,
        toMs: q.toMs,
        nodePool: q.nodePool ?? null,
        capacityType: q.capacityType ?? null,
        like,
        clusterId: q.clusterId ?? null,
      }) as unknown[][];
      const c = nodeCol;
      return rows.map((a) => {
        const hours = a[c.hours] as number;
        const mean = (i: number): number => (hours > 0 ? (a[i] as number) / hours : 0);
        const pricedHours = a[c.priced_hours] as number;
        return {
          name: a[c.name] as string,
          nodeClaim: a[c.nodeclaim] as string | null,
          nodePool: a[c.nodepool] as string,
          instanceType: a[c.instance_type] as string,
          capacityType: a[c.capacity_type] as string,
          zone: a[c.zone] as string,
          createdAtMs: a[c.created_at] as number,
          snapshots: a[c.snapshots] as number,
          hours,
          allocCpuMillicores: mean(c.alloc_cpu),
          reqCpuMillicores: mean(c.req_cpu),
          allocMemoryBytes: mean(c.alloc_mem),
          reqMemoryBytes: mean(c.req_mem),
          allocPods: mean(c.alloc_pods),
          reqPods: mean(c.req_pods),
          allocGpu: mean(c.alloc_gpu),
          reqGpu: mean(c.req_gpu),
          usdPerHour: pricedHours > 0 ? (a[c.usd_hours] as number) / pricedHours : null,
          priceSource: a[c.price_source] as string | null,
          currency: a[c.price_currency] as string,
        };
      });
    },
  };
}

export type AnalyticsPackingRepository = ReturnType<typeof createAnalyticsPackingRepository>;
