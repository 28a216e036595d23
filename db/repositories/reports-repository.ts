import { requirementsFromJson, type NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import { quantitiesFromJson } from '../../core/quantity.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import type { Db } from '../open-db.js';
import { INTERVAL_CAP_MS } from './analytics-intervals.js';
import { createRangeRollupReader } from './range-rollups.js';
import { CLUSTER_REGION_SETTING, toRunStatus, type RunStatus } from './runs-repository.js';
import { createRetentionStoreRepository, type StoreFacts } from './retention-store-repository.js';
import { clusterSetting, METRICS_STATUS_SETTING, PROMETHEUS_STATUS_SETTING } from './usage-repository.js';

/**
 * All read SQL behind the dashboard's overview: daily cost per NodePool (Cost Explorer bill and our
 * snapshot estimate), efficiency per NodePool over time, the NodePool list and the data range.
 * Times are epoch ms UTC; money is USD; cpu in millicores; memory in bytes.
 */

/** An interval between snapshots longer than this counts only this long: a collector gap is not cost. */
export const ESTIMATE_INTERVAL_CAP_MS = INTERVAL_CAP_MS;

export interface TimeRange {
  /** Inclusive start, epoch ms UTC. */
  fromMs: number;
  /** Exclusive end, epoch ms UTC. */
  toMs: number;
  /** Only this NodePool; undefined = all (including '' = untagged / not launched by Karpenter). */
  nodePool?: string;
  /** One cluster's rows (clusters.id); absent or null: every cluster's, summed (docs/clusters.md). */
  clusterId?: number | null;
}

/** Cost Explorer lines (group_by PURCHASE_TYPE) summed per UTC day, NodePool tag value and purchase type. */
export interface BillDayRow {
  /** UTC day start, epoch ms. */
  dayMs: number;
  /** Tag value of karpenter.sh/nodepool; '' = untagged. */
  nodePool: string;
  /** Cost Explorer PURCHASE_TYPE value as given, e.g. "On Demand Instances", "Spot Instances". */
  purchaseType: string;
  /** Σ UnblendedCost, USD. */
  unblendedUsd: number;
  /** Σ AmortizedCost, USD; null when no line carried it. */
  amortizedUsd: number | null;
  /** Σ NetUnblendedCost / NetAmortizedCost, USD; null unless every line carried it (lines synced before migration 0014 did not). */
  netUnblendedUsd?: number | null;
  netAmortizedUsd?: number | null;
  /** True when any line of the day is still marked Estimated by Cost Explorer (not final). */
  estimated: boolean;
}

/** The purchase type billByDay gives the NodePool's "EC2 - Other" lines (volumes, data transfer): their service's name. */
export const EC2_OTHER_PURCHASE_TYPE = 'EC2 - Other';

/** Our estimate: Σ usd_per_hour × hours until the next snapshot (capped), per UTC day, NodePool and capacity type. */
export interface EstimateDayRow {
  dayMs: number;
  /** '' = nodes without a NodePool. */
  nodePool: string;
  capacityType: string;
  usd: number;
}

/** Sums per time bucket per NodePool over capacity types and over the snapshots of the bucket. */
export interface EfficiencyBucketRow {
  bucketStartMs: number;
  nodePool: string;
  requestedCpuMillicores: number;
  allocatableCpuMillicores: number;
  requestedMemoryBytes: number;
  allocatableMemoryBytes: number;
  /** Σ nodes over the bucket's snapshots where the NodePool had nodes. */
  nodeSnapshots: number;
  /** Σ USD per hour over the same rows. */
  usdPerHourSum: number;
  /** Every snapshot taken in the bucket (with or without this NodePool). */
  snapshotsInBucket: number;
}

/** What a NodePool's pods used per time bucket, beside the allocatable of the same snapshots (those with usage). */
export interface UsageBucketRow {
  bucketStartMs: number;
  nodePool: string;
  usageCpuMillicores: number;
  usageMemoryBytes: number;
  allocatableCpuMillicores: number;
  allocatableMemoryBytes: number;
}

export interface NodePoolRow {
  name: string;
  weight: number | null;
  consolidationPolicy: string | null;
  consolidateAfter: string | null;
  capacityTypes: string[];
  nodeClass: string | null;
  updatedAtMs: number;
  requirements: NodeSelectorRequirement[];
  /** spec.limits as written: resource name -> Kubernetes quantity (numbers in their string form). */
  limits: Record<string, string>;
  budgets: BudgetRow[];
  /** spec.template.spec.expireAfter; null when unset or collected before it was recorded. */
  expireAfter: string | null;
}

/** A disruption budget; reasons [] = every reason. */
export interface BudgetRow {
  nodes: string;
  reasons: string[];
  schedule: string | null;
  duration: string | null;
}

/** Nodes of one NodePool at the newest snapshot that share one recorded status.capacity. */
export interface CapacityGroupRow {
  nodePool: string;
  /** status.capacity (quantity strings); null when not recorded (nodes collected before migration 0008). */
  capacity: Record<string, string> | null;
  nodes: number;
  /** Σ allocatable of these nodes (the stand-in where capacity is missing). */
  allocatable: { cpuMillicores: number; memoryBytes: number; pods: number; gpu: number };
}

export interface NodePoolCapacityRows {
  /** The newest snapshot, epoch ms UTC; null without snapshots. */
  snapshotMs: number | null;
  groups: CapacityGroupRow[];
}

export type DataSource = 'sandbox' | 'aws' | 'unknown';

export interface CollectionRunRow {
  id: number;
  kind: string;
  source: DataSource;
  status: RunStatus;
  startedAtMs: number;
  finishedAtMs: number | null;
  rowsWritten: number;
  message: string | null;
}

export interface DataRangeRow {
  snapshotCount: number;
  firstSnapshotMs: number | null;
  lastSnapshotMs: number | null;
  costLineCount: number;
  /** First and last Cost Explorer day (UTC day start, epoch ms). */
  firstCostDayMs: number | null;
  lastCostDayMs: number | null;
  nodePoolCount: number;
}

interface RawBill {
  day_ms: number;
  nodepool: string;
  purchase_type: string;
  unblended: number;
  amortized: number | null;
  net_unblended: number | null;
  net_amortized: number | null;
  estimated: number;
}
interface RawNodePool {
  name: string;
  weight: number | null;
  consolidation_policy: string | null;
  consolidate_after: string | null;
  capacity_types_json: string;
  nodeclass: string | null;
  updated_at: number;
  requirements_json: string;
  limits_json: string;
  budgets_json: string;
  expire_after: string | null;
}
interface RawCapacityGroup {
  nodepool: string;
  capacity_json: string | null;
  nodes: number;
  alloc_cpu: number;
  alloc_mem: number;
  alloc_pods: number;
  alloc_gpu: number;
}
interface RawRun {
  id: number;
  kind: string;
  source: string;
  status: string;
  started_at: number;
  finished_at: number | null;
  rows_written: number;
  message: string | null;
}
interface RawRange {
  snapshots: number;
  first_snapshot: number | null;
  last_snapshot: number | null;
  cost_lines: number;
  first_cost: number | null;
  last_cost: number | null;
  nodepools: number;
}

const toSource = (s: string): DataSource => (s === 'sandbox' || s === 'aws' ? s : 'unknown');

const parseStringArray = (json: string): string[] => {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

const parseJson = (json: string | null): unknown => {
  if (json === null) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
};
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A JSON object of string values (limits, capacity); null when the text is not one. */
const parseStringMap = (json: string | null): Record<string, string> | null => {
  const v = parseJson(json);
  if (!isRecord(v)) return null;
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
};
/** An empty capacity says nothing: treat it as not recorded. */
const nonEmpty = (m: Record<string, string> | null): Record<string, string> | null =>
  m === null || Object.keys(m).length === 0 ? null : m;
const parseBudgets = (json: string): BudgetRow[] => {
  const v = parseJson(json);
  return (Array.isArray(v) ? v : []).filter(isRecord).map((b) => ({
    nodes: stringOrNull(b.nodes) ?? '10%',
    reasons: strings(b.reasons),
    schedule: stringOrNull(b.schedule),
    duration: stringOrNull(b.duration),
  }));
};

const mapRun = (r: RawRun): CollectionRunRow => ({
  id: r.id,
  kind: r.kind,
  source: toSource(r.source),
  status: toRunStatus(r.status),
  startedAtMs: r.started_at,
  finishedAtMs: r.finished_at,
  rowsWritten: r.rows_written,
  message: r.message,
});

export function createReportsRepository(db: Db) {
  // better-sqlite3 binds JS numbers as REAL, and REAL / INTEGER does not floor: every time parameter
  // is CAST to INTEGER in the SQL so day and bucket arithmetic stays integral.
  // Prefer DAILY lines; a day with none falls back to the sum of its HOURLY lines (never both: no double count).
  // The NodePool's EC2 - Other lines (group_by USAGE_TYPE, DAILY only) join as one purchase kind of their own.
  const billDaily = db.prepare(`
    WITH lines AS (
      SELECT granularity, group_by, (period_start_ms / ${DAY_MS}) * ${DAY_MS} AS day_ms, nodepool,
             CASE WHEN group_by = 'USAGE_TYPE' THEN '${EC2_OTHER_PURCHASE_TYPE}' ELSE dimension_value END AS dimension_value,
             unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd, estimated
      FROM cost_lines
      WHERE source = 'cost-explorer' AND (group_by = 'PURCHASE_TYPE' OR (group_by = 'USAGE_TYPE' AND granularity = 'DAILY'))
        AND period_start_ms >= CAST(@fromMs AS INTEGER) AND period_start_ms < CAST(@toMs AS INTEGER)
        AND (@nodePool IS NULL OR nodepool = @nodePool) AND (@clusterId IS NULL OR cluster_id = @clusterId)
    ),
    daily_days AS (SELECT DISTINCT day_ms FROM lines WHERE granularity = 'DAILY' AND group_by = 'PURCHASE_TYPE')
    SELECT day_ms, nodepool, dimension_value AS purchase_type, TOTAL(unblended_usd) AS unblended,
           SUM(amortized_usd) AS amortized,
           CASE WHEN COUNT(net_unblended_usd) = COUNT(*) THEN SUM(net_unblended_usd) END AS net_unblended,
           CASE WHEN COUNT(net_amortized_usd) = COUNT(*) THEN SUM(net_amortized_usd) END AS net_amortized,
           MAX(estimated) AS estimated
    FROM lines
    WHERE granularity = 'DAILY' OR (granularity = 'HOURLY' AND day_ms NOT IN daily_days)
    GROUP BY day_ms, nodepool, dimension_value
    ORDER BY day_ms, nodepool, dimension_value`);

  // Each snapshot stands for the time until the next one (capped), split at UTC midnight; the efficiency chart
  // sums the snapshots taken per bucket. Both read the hour and day rollups (range-rollups.ts) plus the snapshots
  // of partial edge hours, so a month costs about what a day does.
  const rollups = createRangeRollupReader(db);

  // Pods' usage (metrics.k8s.io, per snapshot) over the allocatable of the same snapshot and NodePool, both summed
  // per bucket: only snapshots that read usage count, so a gap in metrics-server lowers neither side. Buckets of whole
  // hours read the hour sums (usage_nodepool_hours, migration 0022) and the snapshots of the partial hours at the ends
  // only; shorter buckets read the snapshots. A snapshot's allocatable is looked up by its key (snapshot_nodepools), so
  // a range without usage reads nothing. An hourly
  // snapshot (folded past the raw retention) holds both sums over its hour's snapshots (the alloc_* of its own row). The bucket is an integer: better-sqlite3 binds a JS number as REAL, and
  // taken_at / 3600000.0 is no bucket at all (every snapshot was its own).
  const usageOfSnapshots = (where: string) => `
    SELECT u.taken_at AS t, u.nodepool, u.pod_usage_cpu_m AS use_cpu, u.pod_usage_memory_b AS use_mem,
           COALESCE(u.alloc_cpu_m, (SELECT TOTAL(a.alloc_cpu_m) FROM snapshot_nodepools a WHERE a.snapshot_id = u.snapshot_id AND a.nodepool = u.nodepool)) AS alloc_cpu,
           COALESCE(u.alloc_memory_b, (SELECT TOTAL(a.alloc_memory_b) FROM snapshot_nodepools a WHERE a.snapshot_id = u.snapshot_id AND a.nodepool = u.nodepool)) AS alloc_mem
    FROM usage_nodepools u WHERE (${where}) AND (@nodePool IS NULL OR u.nodepool = @nodePool) AND (@clusterId IS NULL OR u.cluster_id = @clusterId)`;
  const usageByBucket = (pieces: string) =>
    db.prepare(`
      SELECT (t / CAST(@bucketMs AS INTEGER)) * CAST(@bucketMs AS INTEGER) AS bucket_ms, nodepool, TOTAL(use_cpu) AS use_cpu,
             TOTAL(use_mem) AS use_mem, TOTAL(alloc_cpu) AS alloc_cpu, TOTAL(alloc_mem) AS alloc_mem
      FROM (${pieces}) GROUP BY bucket_ms, nodepool ORDER BY nodepool, bucket_ms`);
  const usageBucketsOfSnapshots = usageByBucket(usageOfSnapshots('u.taken_at >= @fromMs AND u.taken_at < @toMs'));
  const usageBucketsOfHours = usageByBucket(`
    SELECT hour_ms AS t, nodepool, pod_usage_cpu_m AS use_cpu, pod_usage_memory_b AS use_mem, alloc_cpu_m AS alloc_cpu,
           alloc_memory_b AS alloc_mem
    FROM usage_nodepool_hours WHERE hour_ms >= @hoursFrom AND hour_ms < @hoursTo AND (@nodePool IS NULL OR nodepool = @nodePool)
      AND (@clusterId IS NULL OR cluster_id = @clusterId)
    UNION ALL
    ${usageOfSnapshots('u.taken_at >= @fromMs AND u.taken_at < @toMs AND (u.taken_at < @hoursFrom OR u.taken_at >= @hoursTo)')}`);
  const nodePools = db.prepare(`
    SELECT name, weight, consolidation_policy, consolidate_after, capacity_types_json, nodeclass, updated_at,
           requirements_json, limits_json, budgets_json, expire_after
    FROM nodepools WHERE @clusterId IS NULL OR cluster_id = @clusterId ORDER BY name, cluster_id`);

  // Karpenter counts the capacity of the NodeClaims a NodePool launched against its limits: the newest snapshot's
  // nodes, grouped by their recorded capacity (nodes of one instance type share it), so a big cluster reads few rows.
  const latestSnapshot = db.prepare('SELECT id, taken_at FROM snapshots ORDER BY taken_at DESC LIMIT 1');
  const latestSnapshotOf = db.prepare('SELECT id, taken_at FROM snapshots WHERE cluster_id = ? ORDER BY taken_at DESC LIMIT 1');
  const capacityGroups = db.prepare(`
    SELECT sn.nodepool, n.capacity_json, COUNT(*) AS nodes, SUM(sn.alloc_cpu_m) AS alloc_cpu, SUM(sn.alloc_memory_b) AS alloc_mem,
           SUM(sn.alloc_pods) AS alloc_pods, SUM(sn.alloc_gpu) AS alloc_gpu
    FROM snapshot_nodes sn LEFT JOIN nodes n ON n.name = sn.node_name
    WHERE sn.snapshot_id = ? AND sn.nodepool IS NOT NULL AND sn.nodepool <> ''
    GROUP BY sn.nodepool, n.capacity_json
    ORDER BY sn.nodepool, n.capacity_json`);

  const newestSnapshotCurrency = db.prepare('SELECT currency FROM snapshots ORDER BY taken_at DESC LIMIT 1').pluck();
  const clusterRegion = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const dataRange = db.prepare(`
    SELECT s.snapshots, s.first_snapshot, s.last_snapshot, c.cost_lines, c.first_cost, c.last_cost,
           (SELECT COUNT(*) FROM nodepools) AS nodepools
    FROM (SELECT CAST(TOTAL(COALESCE(fold_snapshots, 1)) AS INTEGER) AS snapshots, MIN(taken_at) AS first_snapshot, MAX(taken_at) AS last_snapshot FROM snapshots) s,
         (SELECT COUNT(*) AS cost_lines, (MIN(period_start_ms) / ${DAY_MS}) * ${DAY_MS} AS first_cost,
                 (MAX(period_start_ms) / ${DAY_MS}) * ${DAY_MS} AS last_cost
          FROM cost_lines WHERE source = 'cost-explorer') c`);

  const lastRun = db.prepare(`
    SELECT id, kind, source, status, started_at, finished_at, rows_written, message
    FROM collection_runs ORDER BY started_at DESC, id DESC LIMIT 1`);

  const setting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const usageCoverage = db.prepare(`
    SELECT CAST(TOTAL(COALESCE(fold_snapshots, 1)) AS INTEGER) AS snapshots,
      CAST(TOTAL(COALESCE(fold_available, state = 'available')) AS INTEGER) AS withUsage,
      MAX(CASE WHEN state = 'available' THEN taken_at END) AS lastUsageAt
    FROM usage_snapshots`);
  const clusterUsageCoverage = db.prepare(`
    SELECT CAST(TOTAL(COALESCE(fold_snapshots, 1)) AS INTEGER) AS snapshots,
      CAST(TOTAL(COALESCE(fold_available, state = 'available')) AS INTEGER) AS withUsage,
      MAX(CASE WHEN state = 'available' THEN taken_at END) AS lastUsageAt
    FROM usage_snapshots WHERE cluster_id = ?`);
  const lastRunPerKind = db.prepare(`
    SELECT id, kind, source, status, started_at, finished_at, rows_written, message FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY started_at DESC, id DESC) AS rn FROM collection_runs
    ) WHERE rn = 1 ORDER BY kind`);

  // A one-cluster ledger's region is what its price collector recorded (the setting migration 0029 copies into a
  // migrated ledger's clusters row; a ledger made since keeps it only there), so a fresh file and a migrated one agree.
  const clusters = db.prepare(`
    SELECT id, name, account,
      COALESCE(region, CASE WHEN id = 1 THEN (SELECT value FROM settings WHERE key = '${CLUSTER_REGION_SETTING}') END) AS region
    FROM clusters ORDER BY id`);
  const newestOfCluster = db.prepare('SELECT taken_at FROM snapshots WHERE cluster_id = ? ORDER BY taken_at DESC LIMIT ?').pluck();
  const lastKubeRunOfCluster = db.prepare(`
    SELECT id, kind, source, status, started_at, finished_at, rows_written, message FROM collection_runs
    WHERE cluster_id = ? AND kind = 'kubernetes' ORDER BY started_at DESC, id DESC LIMIT 1`);

  const rangeParams = (r: TimeRange) => ({ fromMs: r.fromMs, toMs: r.toMs, nodePool: r.nodePool ?? null, clusterId: r.clusterId ?? null });
  const store = createRetentionStoreRepository(db);

  return {
    /** Cost Explorer bill per UTC day whose start lies in [fromMs, toMs). */
    billByDay(range: TimeRange): BillDayRow[] {
      return (billDaily.all(rangeParams(range)) as RawBill[]).map((r) => ({
        dayMs: r.day_ms,
        nodePool: r.nodepool,
        purchaseType: r.purchase_type,
        unblendedUsd: r.unblended,
        amortizedUsd: r.amortized,
        netUnblendedUsd: r.net_unblended,
        netAmortizedUsd: r.net_amortized,
        estimated: r.estimated === 1,
      }));
    },

    /** Snapshot-based estimate of the time in [fromMs, toMs), per UTC day. */
    estimateByDay(range: TimeRange): EstimateDayRow[] {
      return rollups.estimateByDay(range).map((r) => ({
        dayMs: r.day_ms,
        nodePool: r.nodepool,
        capacityType: r.capacity_type,
        usd: r.usd,
      }));
    },

    /** Efficiency sums per bucket (aligned on the epoch, UTC) per NodePool, ordered by NodePool then time. */
    efficiencyBuckets(range: TimeRange & { bucketMs: number }): EfficiencyBucketRow[] {
      return rollups.efficiencyBuckets(range).map((r) => ({
        bucketStartMs: r.bucket_ms,
        nodePool: r.nodepool,
        requestedCpuMillicores: r.req_cpu,
        allocatableCpuMillicores: r.alloc_cpu,
        requestedMemoryBytes: r.req_mem,
        allocatableMemoryBytes: r.alloc_mem,
        nodeSnapshots: r.nodes,
        usdPerHourSum: r.usd,
        snapshotsInBucket: r.snapshots,
      }));
    },

    /** Pods' usage and allocatable per bucket (aligned on the epoch, UTC) per NodePool, snapshots with usage only. */
    usageBuckets(range: TimeRange & { bucketMs: number }): UsageBucketRow[] {
      const params = { ...rangeParams(range), bucketMs: range.bucketMs };
      // Whole-hour buckets (aligned on the epoch, so an hour never straddles two) from the hour sums in between.
      const hoursFrom = Math.ceil(range.fromMs / HOUR_MS) * HOUR_MS;
      const hoursTo = Math.max(hoursFrom, Math.floor(range.toMs / HOUR_MS) * HOUR_MS);
      const rows = (
        range.bucketMs % HOUR_MS === 0 ? usageBucketsOfHours.all({ ...params, hoursFrom, hoursTo }) : usageBucketsOfSnapshots.all(params)
      ) as {
        bucket_ms: number;
        nodepool: string;
        use_cpu: number;
        use_mem: number;
        alloc_cpu: number;
        alloc_mem: number;
      }[];
      return rows.map((r) => ({
        bucketStartMs: r.bucket_ms,
        nodePool: r.nodepool,
        usageCpuMillicores: r.use_cpu,
        usageMemoryBytes: r.use_mem,
        allocatableCpuMillicores: r.alloc_cpu,
        allocatableMemoryBytes: r.alloc_mem,
      }));
    },

    /** The NodePools of one cluster, or of every cluster (null: a name held by two clusters is two rows). */
    nodePools(clusterId: number | null = null): NodePoolRow[] {
      return (nodePools.all({ clusterId }) as RawNodePool[]).map((r) => ({
        name: r.name,
        weight: r.weight,
        consolidationPolicy: r.consolidation_policy,
        consolidateAfter: r.consolidate_after,
        capacityTypes: parseStringArray(r.capacity_types_json),
        nodeClass: r.nodeclass,
        updatedAtMs: r.updated_at,
        requirements: requirementsFromJson(parseJson(r.requirements_json)),
        limits: quantitiesFromJson(parseJson(r.limits_json)),
        budgets: parseBudgets(r.budgets_json),
        expireAfter: r.expire_after,
      }));
    },

    /** What each NodePool's nodes offer at the newest snapshot, grouped by recorded capacity. */
    nodePoolCapacity(clusterId: number | null = null): NodePoolCapacityRows {
      const snap = (clusterId === null ? latestSnapshot.get() : latestSnapshotOf.get(clusterId)) as
        { id: number; taken_at: number } | undefined;
      if (snap === undefined) return { snapshotMs: null, groups: [] };
      return {
        snapshotMs: snap.taken_at,
        groups: (capacityGroups.all(snap.id) as RawCapacityGroup[]).map((r) => ({
          nodePool: r.nodepool,
          capacity: nonEmpty(parseStringMap(r.capacity_json)),
          nodes: r.nodes,
          allocatable: { cpuMillicores: r.alloc_cpu, memoryBytes: r.alloc_mem, pods: r.alloc_pods, gpu: r.alloc_gpu },
        })),
      };
    },

    /** The currency of the newest snapshot (every amount of a file is in one), or null without snapshots. */
    newestSnapshotCurrency(): string | null {
      return (newestSnapshotCurrency.get() as string | undefined) ?? null;
    },
    /** The cluster region the collector priced, or null before any pricing. */
    clusterRegion(): string | null {
      return (clusterRegion.get(CLUSTER_REGION_SETTING) as string | undefined) ?? null;
    },

    dataRange(): DataRangeRow {
      const r = dataRange.get() as RawRange;
      return {
        snapshotCount: r.snapshots,
        firstSnapshotMs: r.first_snapshot,
        lastSnapshotMs: r.last_snapshot,
        costLineCount: r.cost_lines,
        firstCostDayMs: r.first_cost,
        lastCostDayMs: r.last_cost,
        nodePoolCount: r.nodepools,
      };
    },

    /**
     * Each cluster of the ledger with its newest snapshots (newest first, at most `recent`) and its latest Kubernetes
     * collection run: what its freshness is worked from.
     */
    clusterSnapshots(recent: number): ClusterSnapshotsRow[] {
      return (clusters.all() as { id: number; name: string; account: string | null; region: string | null }[]).map((c) => {
        const run = lastKubeRunOfCluster.get(c.id) as RawRun | undefined;
        return { ...c, takenAtMs: newestOfCluster.all(c.id, recent) as number[], lastRun: run === undefined ? null : mapRun(run) };
      });
    },

    /** The file's size, its vacuum mode, the retention settings and how far snapshots are folded (migration 0021). */
    storeFacts: (): StoreFacts => store.facts(),

    /** The most recently started collection run of any kind, or null before the first. */
    lastRun(): CollectionRunRow | null {
      const r = lastRun.get() as RawRun | undefined;
      return r === undefined ? null : mapRun(r);
    },

    /** The most recently started run of each kind (kubernetes, cost-explorer, ...), by kind. */
    lastRunPerKind(): CollectionRunRow[] {
      return (lastRunPerKind.all() as RawRun[]).map(mapRun);
    },

    /**
     * Where usage comes from (migration 0013): the last metrics-server status and Prometheus backfill a collector
     * recorded (JSON settings), and how many snapshots carried usage, the last of them.
     */
    usageStatus(): UsageStatusRow {
      const text = (key: string): string | null => (setting.get(key) as string | undefined) ?? null;
      const c = usageCoverage.get() as { snapshots: number; withUsage: number; lastUsageAt: number | null };
      return { metricsServer: text(METRICS_STATUS_SETTING), prometheus: text(PROMETHEUS_STATUS_SETTING), ...c };
    },

    /** The same for one cluster: its own metrics-server status and Prometheus backfill (`…@<id>`), its snapshots. */
    clusterUsageStatus(clusterId: number): UsageStatusRow {
      const text = (key: string): string | null => (setting.get(clusterSetting(key, clusterId)) as string | undefined) ?? null;
      const c = clusterUsageCoverage.get(clusterId) as { snapshots: number; withUsage: number; lastUsageAt: number | null };
      return { metricsServer: text(METRICS_STATUS_SETTING), prometheus: text(PROMETHEUS_STATUS_SETTING), ...c };
    },
  };
}

export interface ClusterSnapshotsRow {
  id: number;
  name: string;
  account: string | null;
  region: string | null;
  /** Its newest snapshots' times, newest first. */
  takenAtMs: number[];
  lastRun: CollectionRunRow | null;
}

export interface UsageStatusRow {
  /** MetricsStatus JSON as the collector stored it; null before any snapshot recorded one. */
  metricsServer: string | null;
  /** PrometheusBackfillStatus JSON; null before any backfill. */
  prometheus: string | null;
  /** Snapshots with a usage status, those where metrics-server answered, and the last of those (epoch ms). */
  snapshots: number;
  withUsage: number;
  lastUsageAt: number | null;
}

export type ReportsRepository = ReturnType<typeof createReportsRepository>;
