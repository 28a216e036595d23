import type { Disruption } from '../core/disruption.js';
import { DAY_MS, HOUR_MS } from '../core/time.js';
import type { ParquetColumn } from '../collectors/org/parquet-table.js';
import type { Db } from '../db/open-db.js';
import {
  type BucketPoolSumsRow,
  createAnalyticsPackingRepository,
  type NodeWindowRow,
} from '../db/repositories/analytics-packing-repository.js';
import { type BucketNamespaceSumsRow, createAnalyticsTeamsRepository } from '../db/repositories/analytics-teams-repository.js';
import { createDisruptionsRepository } from '../db/repositories/disruptions-repository.js';
import { createUsageRepository } from '../db/repositories/usage-repository.js';
import { zeroSums } from '../server/analytics/packing.js';
import { isoInstant } from '../server/analytics/range.js';
import type { RecommendationsResponse } from '../server/schemas/workloads.js';
import { createWorkloadsService } from '../server/services/workloads-service.js';

/**
 * The ledger's rollups of one UTC day as the tables `export` writes, read through the same repositories (and, for the
 * right-sizing recommendations, the same service) the API answers from, so Athena's sums over them are the API's sums:
 *
 * - nodepool_hour: per hour x NodePool x capacity type, the hours-weighted sums behind cost and packing
 *   (Σ price × hours is the estimate, Σ requested ÷ Σ allocatable the packing; server/analytics/packing.ts);
 * - namespace_hour: per hour x namespace x NodePool, the cost each attribution method charges it (request share and its
 *   CPU and memory parts, AWS split and AWS's unused cost, OpenCost) and its pod-hours;
 * - node_day: per node the day's hours, mean requests and allocatable, and price;
 * - disruptions: the disruptions of the day as the Consolidation page lists them;
 * - rightsizing: the Workloads recommendations at the end of the day (by request share: the engine's re-pack is left to
 *   the dashboard), one row per workload container.
 *
 * Columns carry their units; the cluster and the day are the partition, not columns.
 */

export const EXPORT_TABLES = ['nodepool_hour', 'namespace_hour', 'node_day', 'disruptions', 'rightsizing'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];

export interface TableRows<Row = unknown> {
  table: ExportTable;
  columns: readonly ParquetColumn<Row>[];
  rows: readonly Row[];
}

const snake = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const POOL_SUM_KEYS = Object.keys(zeroSums()) as (keyof ReturnType<typeof zeroSums>)[];

export const NODEPOOL_HOUR_COLUMNS: readonly ParquetColumn<BucketPoolSumsRow>[] = [
  { name: 'hour_start', type: 'timestamp', value: (r) => r.bucketStartMs },
  { name: 'nodepool', type: 'varchar', value: (r) => r.nodePool },
  { name: 'capacity_type', type: 'varchar', value: (r) => r.capacityType },
  ...POOL_SUM_KEYS.map((k): ParquetColumn<BucketPoolSumsRow> => ({ name: snake(k), type: 'double', value: (r) => r[k] })),
];

const NAMESPACE_SUM_KEYS = [
  'requestShareUsd',
  'cpuShareUsd',
  'memoryShareUsd',
  'legacyRequestShareUsd',
  'awsSplitCostUsd',
  'awsUnusedCostUsd',
  'openCostUsd',
  'legacyMethodsUsd',
  'podHours',
  'usagePodHours',
] as const satisfies readonly (keyof BucketNamespaceSumsRow)[];

export const NAMESPACE_HOUR_COLUMNS: readonly ParquetColumn<BucketNamespaceSumsRow>[] = [
  { name: 'hour_start', type: 'timestamp', value: (r) => r.bucketStartMs },
  { name: 'namespace', type: 'varchar', value: (r) => r.namespace },
  { name: 'nodepool', type: 'varchar', value: (r) => r.nodePool },
  { name: 'team', type: 'varchar', value: (r) => r.team },
  ...NAMESPACE_SUM_KEYS.map((k): ParquetColumn<BucketNamespaceSumsRow> => ({ name: snake(k), type: 'double', value: (r) => r[k] })),
];

export const NODE_DAY_COLUMNS: readonly ParquetColumn<NodeWindowRow>[] = [
  { name: 'node_name', type: 'varchar', value: (r) => r.name },
  { name: 'nodeclaim', type: 'varchar', value: (r) => r.nodeClaim },
  { name: 'nodepool', type: 'varchar', value: (r) => r.nodePool },
  { name: 'instance_type', type: 'varchar', value: (r) => r.instanceType },
  { name: 'capacity_type', type: 'varchar', value: (r) => r.capacityType },
  { name: 'zone', type: 'varchar', value: (r) => r.zone },
  { name: 'created_at', type: 'timestamp', value: (r) => r.createdAtMs },
  { name: 'hours', type: 'double', value: (r) => r.hours },
  { name: 'alloc_cpu_millicores', type: 'double', value: (r) => r.allocCpuMillicores },
  { name: 'req_cpu_millicores', type: 'double', value: (r) => r.reqCpuMillicores },
  { name: 'alloc_memory_bytes', type: 'double', value: (r) => r.allocMemoryBytes },
  { name: 'req_memory_bytes', type: 'double', value: (r) => r.reqMemoryBytes },
  { name: 'alloc_pods', type: 'double', value: (r) => r.allocPods },
  { name: 'req_pods', type: 'double', value: (r) => r.reqPods },
  { name: 'usd_per_hour', type: 'double', value: (r) => r.usdPerHour },
  { name: 'cost_usd', type: 'double', value: (r) => (r.usdPerHour === null ? null : r.usdPerHour * r.hours) },
  { name: 'price_source', type: 'varchar', value: (r) => r.priceSource },
];

export const DISRUPTION_COLUMNS: readonly ParquetColumn<Disruption>[] = [
  { name: 'disrupted_at', type: 'timestamp', value: (r) => r.atMs },
  { name: 'node_name', type: 'varchar', value: (r) => r.nodeName },
  { name: 'nodeclaim', type: 'varchar', value: (r) => r.nodeClaim },
  { name: 'nodepool', type: 'varchar', value: (r) => r.nodePool },
  { name: 'reason', type: 'varchar', value: (r) => r.reason },
  { name: 'action', type: 'varchar', value: (r) => r.action },
  { name: 'source', type: 'varchar', value: (r) => r.source },
  { name: 'spot_interrupted', type: 'boolean', value: (r) => r.spotInterrupted },
  { name: 'instance_type', type: 'varchar', value: (r) => r.instanceType },
  { name: 'capacity_type', type: 'varchar', value: (r) => r.capacityType },
  { name: 'node_deleted_at', type: 'timestamp', value: (r) => r.nodeDeletedAtMs },
  { name: 'replacements', type: 'varchar', value: (r) => r.replacements.join(',') },
  { name: 'blocked', type: 'boolean', value: (r) => r.blocked },
  { name: 'message', type: 'varchar', value: (r) => r.message },
];

type RecommendationRow = RecommendationsResponse['rows'][number];

export const RIGHTSIZING_COLUMNS: readonly ParquetColumn<RecommendationRow>[] = [
  { name: 'namespace', type: 'varchar', value: (r) => r.namespace },
  { name: 'workload_kind', type: 'varchar', value: (r) => r.workloadKind },
  { name: 'workload_name', type: 'varchar', value: (r) => r.workloadName },
  { name: 'container', type: 'varchar', value: (r) => r.container },
  { name: 'nodepool', type: 'varchar', value: (r) => r.nodePool },
  { name: 'replicas', type: 'bigint', value: (r) => r.replicas },
  { name: 'current_cpu_millicores', type: 'double', value: (r) => r.currentCpuMillicores },
  { name: 'current_memory_bytes', type: 'double', value: (r) => r.currentMemoryBytes },
  { name: 'recommended_cpu_millicores', type: 'double', value: (r) => r.recommendedCpuMillicores },
  { name: 'recommended_memory_bytes', type: 'double', value: (r) => r.recommendedMemoryBytes },
  { name: 'history_hours', type: 'double', value: (r) => r.historyHours },
  { name: 'flags', type: 'varchar', value: (r) => r.flags.join(',') },
  { name: 'idle_usd_per_month', type: 'double', value: (r) => r.idleUsdPerMonth },
  { name: 'monthly_effect_usd', type: 'double', value: (r) => r.monthlyEffectUsd },
  { name: 'dollar_method', type: 'varchar', value: (r) => r.dollarMethod },
];

/** Reads a day's tables from one ledger. */
export function createExportReader(db: Db) {
  const packing = createAnalyticsPackingRepository(db);
  const teams = createAnalyticsTeamsRepository(db);
  const disruptions = createDisruptionsRepository(db);
  const workloads = createWorkloadsService(createUsageRepository(db), packing);
  const table = <Row>(name: ExportTable, columns: readonly ParquetColumn<Row>[], rows: readonly Row[]): TableRows =>
    ({ table: name, columns, rows }) as TableRows;

  return {
    /**
     * The day's tables: [dayMs, dayMs + 1 day), cut at the day's edges as the API cuts a range. `clusterId` null: the
     * ledger's one cluster (every row); a cluster of a ledger of several: that cluster's rows of every table, read
     * as the API reads `?cluster=` (docs/clusters.md).
     */
    day(dayMs: number, clusterId: number | null = null): TableRows[] {
      const range = { fromMs: dayMs, toMs: dayMs + DAY_MS, clusterId };
      const hourly = { ...range, bucketMs: HOUR_MS, originMs: dayMs };
      const recommendations = workloads.recommendations({ at: isoInstant(range.toMs) }, clusterId).rows;
      return [
        table('nodepool_hour', NODEPOOL_HOUR_COLUMNS, packing.bucketSums(hourly)),
        table('namespace_hour', NAMESPACE_HOUR_COLUMNS, teams.bucketNamespaceSums(hourly)),
        table('node_day', NODE_DAY_COLUMNS, packing.nodeWindow(range)),
        table('disruptions', DISRUPTION_COLUMNS, disruptions.inRange(range)),
        table('rightsizing', RIGHTSIZING_COLUMNS, recommendations),
      ];
    },
  };
}
