import type { Statement } from 'better-sqlite3';
import type { CurCostCategory } from '../../core/cur/columns.js';
import type { Db } from '../open-db.js';
import { createResourceLinesWriter } from './cur-resource-lines.js';

/**
 * All SQL for the CUR 2.0 tables (migration 0017): typed writes that replace one billing period of one source whole,
 * in one transaction, and the reads the views need. Money in USD (the export's currency).
 *
 * When several sources hold the same billing period (a folder and later the same export from S3), reads take, per
 * billing period, the source imported last, so a period is never counted twice.
 */

export type CurAttributedBy = 'tag' | 'nodeclaim' | 'none';
export type CurFileFormat = 'parquet' | 'csv.gz';

export interface CurFileRecord {
  /** Path under the export root, `data/BILLING_PERIOD=YYYY-MM/<name>` ('/' separated). */
  fileKey: string;
  format: CurFileFormat;
  sizeBytes: number;
  /** S3 ETag, or sha256 hex of a local file. */
  etag: string;
  curRows: number;
}

export interface CurPeriodSummary {
  source: string;
  /** YYYY-MM */
  billingPeriod: string;
  periodStartMs: number;
  importedAt: number;
  curRows: number;
  unblendedUsd: number;
  amortizedUsd: number;
  unattributedLines: number;
  unattributedUsd: number;
  nodeClaimFilledLines: number;
  splitLines: number;
  manifestExecutionId: string | null;
}

export interface CurPeriodRecord extends CurPeriodSummary {
  files: number;
}

/** The four cost metrics, summed. */
export interface CurMetrics {
  unblendedUsd: number;
  amortizedUsd: number;
  netUnblendedUsd: number;
  netAmortizedUsd: number;
}

export interface CurNodePoolDay extends CurMetrics {
  /** YYYY-MM-DD, UTC */
  day: string;
  dayMs: number;
  cluster: string;
  /** '' = no NodePool found. */
  nodePool: string;
  category: CurCostCategory;
  attributedBy: CurAttributedBy;
  usageAmount: number;
  publicOnDemandUsd: number;
  lineCount: number;
}

export interface CurNamespaceDay {
  day: string;
  dayMs: number;
  cluster: string;
  /** The parent instance's NodePool; '' = none found. */
  nodePool: string;
  namespace: string;
  splitCostUsd: number;
  unusedCostUsd: number;
  netSplitCostUsd: number;
  netUnusedCostUsd: number;
  publicOnDemandSplitCostUsd: number;
  publicOnDemandUnusedCostUsd: number;
  vcpuHours: number;
  memoryGbHours: number;
  podCount: number;
  lineCount: number;
}

export interface CurResourceDay extends CurMetrics {
  day: string;
  dayMs: number;
  resourceId: string;
  lineItemType: string;
  usageType: string;
  productCode: string;
  operation: string;
  category: CurCostCategory;
  cluster: string;
  nodePool: string;
  nodeClaim: string;
  attributedBy: CurAttributedBy;
  /** The Savings Plan or reservation that covered the line; '' none. */
  commitmentArn: string;
  usageAmount: number;
  publicOnDemandUsd: number;
  lineCount: number;
}

/** Everything one billing period of one source holds; written whole by replacePeriod. */
export interface CurPeriodData {
  summary: CurPeriodSummary;
  files: readonly CurFileRecord[];
  nodePoolDays: readonly CurNodePoolDay[];
  namespaceDays: readonly CurNamespaceDay[];
  resourceDays: readonly CurResourceDay[];
}

/** A period being replaced (beginPeriodReplace): rows in, then commit or rollback. */
export interface CurPeriodReplace {
  addResourceDays(rows: readonly CurResourceDay[]): void;
  /** Writes the summary, files and day rows, and commits. */
  commit(data: Omit<CurPeriodData, 'resourceDays'>): void;
  /** Leaves the period as it was before; safe after commit (does nothing). */
  rollback(): void;
}

/** Which pair of a namespace-day's split figures to read: gross, net (after discounts), or of the public on-demand cost. */
export type CurSplitFigure = 'split' | 'net-split' | 'public-on-demand';

/** One namespace-day's split and unused cost in one figure (splitDays): what the team comparison reads, nothing more. */
export interface CurNamespaceSplit {
  day: string;
  cluster: string;
  nodePool: string;
  namespace: string;
  splitUsd: number;
  unusedUsd: number;
}

const SPLIT_FIGURE_COLUMNS: Readonly<Record<CurSplitFigure, readonly [string, string]>> = {
  split: ['split_cost_usd', 'unused_cost_usd'],
  'net-split': ['net_split_cost_usd', 'net_unused_cost_usd'],
  'public-on-demand': ['public_on_demand_split_cost_usd', 'public_on_demand_unused_cost_usd'],
};

export interface CurDayRange {
  /** UTC day start, inclusive / exclusive (epoch ms). */
  fromMs: number;
  toMs: number;
  /** Only this source; default: per billing period, the source imported last. */
  source?: string;
}

/** A NodeClaim we know by its EC2 instance id, for lines whose tag is missing. */
export interface KnownNodeClaim {
  instanceId: string;
  nodeClaim: string;
  nodePool: string;
}

interface RawNodePoolDay {
  day: string;
  day_ms: number;
  cluster: string;
  nodepool: string;
  category: CurCostCategory;
  attributed_by: CurAttributedBy;
  unblended_usd: number;
  amortized_usd: number;
  net_unblended_usd: number;
  net_amortized_usd: number;
  usage_amount: number;
  public_on_demand_usd: number;
  line_count: number;
}
interface RawNamespaceDay {
  day: string;
  day_ms: number;
  cluster: string;
  nodepool: string;
  namespace: string;
  split_cost_usd: number;
  unused_cost_usd: number;
  net_split_cost_usd: number;
  net_unused_cost_usd: number;
  public_on_demand_split_cost_usd: number;
  public_on_demand_unused_cost_usd: number;
  vcpu_hours: number;
  memory_gb_hours: number;
  pod_count: number;
  line_count: number;
}
interface RawResourceDay extends RawNodePoolDay {
  resource_id: string;
  line_item_type: string;
  usage_type: string;
  product_code: string;
  operation: string;
  nodeclaim: string;
  commitment_arn: string;
}
interface RawPeriod {
  source: string;
  billing_period: string;
  period_start_ms: number;
  imported_at: number;
  files: number;
  cur_rows: number;
  unblended_usd: number;
  amortized_usd: number;
  unattributed_lines: number;
  unattributed_usd: number;
  nodeclaim_filled_lines: number;
  split_lines: number;
  manifest_execution_id: string | null;
}
interface RawFile {
  file_key: string;
  format: CurFileFormat;
  size_bytes: number;
  etag: string;
  cur_rows: number;
}

const periodFrom = (r: RawPeriod): CurPeriodRecord => ({
  source: r.source,
  billingPeriod: r.billing_period,
  periodStartMs: r.period_start_ms,
  importedAt: r.imported_at,
  files: r.files,
  curRows: r.cur_rows,
  unblendedUsd: r.unblended_usd,
  amortizedUsd: r.amortized_usd,
  unattributedLines: r.unattributed_lines,
  unattributedUsd: r.unattributed_usd,
  nodeClaimFilledLines: r.nodeclaim_filled_lines,
  splitLines: r.split_lines,
  manifestExecutionId: r.manifest_execution_id,
});
const nodePoolDayFrom = (r: RawNodePoolDay): CurNodePoolDay => ({
  day: r.day,
  dayMs: r.day_ms,
  cluster: r.cluster,
  nodePool: r.nodepool,
  category: r.category,
  attributedBy: r.attributed_by,
  unblendedUsd: r.unblended_usd,
  amortizedUsd: r.amortized_usd,
  netUnblendedUsd: r.net_unblended_usd,
  netAmortizedUsd: r.net_amortized_usd,
  usageAmount: r.usage_amount,
  publicOnDemandUsd: r.public_on_demand_usd,
  lineCount: r.line_count,
});
const namespaceDayFrom = (r: RawNamespaceDay): CurNamespaceDay => ({
  day: r.day,
  dayMs: r.day_ms,
  cluster: r.cluster,
  nodePool: r.nodepool,
  namespace: r.namespace,
  splitCostUsd: r.split_cost_usd,
  unusedCostUsd: r.unused_cost_usd,
  netSplitCostUsd: r.net_split_cost_usd,
  netUnusedCostUsd: r.net_unused_cost_usd,
  publicOnDemandSplitCostUsd: r.public_on_demand_split_cost_usd,
  publicOnDemandUnusedCostUsd: r.public_on_demand_unused_cost_usd,
  vcpuHours: r.vcpu_hours,
  memoryGbHours: r.memory_gb_hours,
  podCount: r.pod_count,
  lineCount: r.line_count,
});
const resourceDayFrom = (r: RawResourceDay): CurResourceDay => ({
  ...nodePoolDayFrom(r),
  resourceId: r.resource_id,
  lineItemType: r.line_item_type,
  usageType: r.usage_type,
  productCode: r.product_code,
  operation: r.operation,
  nodeClaim: r.nodeclaim,
  commitmentArn: r.commitment_arn,
});

/** Per billing period, the source imported last (ties: the greater source name, so the choice is stable). */
const LATEST_SOURCE = `SELECT p.source, p.billing_period FROM cur_periods p
  WHERE NOT EXISTS (SELECT 1 FROM cur_periods q WHERE q.billing_period = p.billing_period
    AND (q.imported_at > p.imported_at OR (q.imported_at = p.imported_at AND q.source > p.source)))`;

/**
 * `t` restricted to the chosen source of each billing period, or to one named source. The chosen pairs are listed once
 * per statement (an uncorrelated IN; source and billing_period are never NULL, so it is the EXISTS it replaces): the
 * EXISTS was run again for every row, each time scanning cur_periods (a 90-day /api/teams/cur reads 4,140 namespace-days
 * at the envelope; docs/benchmarks.md). The unary + keeps the IN a filter: as an index term it turned the day range
 * into a walk over every row of each chosen period.
 */
const sourceFilter = (alias: string): string =>
  `((@source IS NULL AND (+${alias}.source, +${alias}.billing_period) IN (${LATEST_SOURCE})) OR ${alias}.source = @source)`;

/**
 * A period's resource days in migration 0031's tables, in the order they go: lines, resource keys, the period's key
 * (each a DELETE with a LIMIT, for the retention prune's batches; `@limit` -1 is every row).
 */
export const CUR_RESOURCE_DELETES = [
  `DELETE FROM cur_resource_lines WHERE resource_key IN (SELECT r.id FROM cur_resource_keys r JOIN cur_period_keys p ON p.id = r.period_id
     WHERE p.source = @source AND p.billing_period = @period) LIMIT @limit`,
  `DELETE FROM cur_resource_keys WHERE period_id IN (SELECT id FROM cur_period_keys WHERE source = @source AND billing_period = @period)
     LIMIT @limit`,
  'DELETE FROM cur_period_keys WHERE source = @source AND billing_period = @period LIMIT @limit',
] as const;

/**
 * Migration 0031's day index of the resource lines, as it creates it (the same text, so the schema reads the same after
 * an import rebuilt it).
 */
export const CUR_RESOURCE_LINES_DAY_INDEX = 'CREATE INDEX cur_resource_lines_day ON cur_resource_lines (day_ms)';

export function createCurRepository(db: Db) {
  const deletePeriod = db.prepare('DELETE FROM cur_periods WHERE source = ? AND billing_period = ?');
  // Resource days (migration 0031: cur_resource_daily is a view) from their tables: lines, resource keys, the period's key.
  const deleteRows = [
    ...['cur_files', 'cur_nodepool_daily', 'cur_namespace_daily'].map(
      (t) => `DELETE FROM ${t} WHERE source = @source AND billing_period = @period`,
    ),
    ...CUR_RESOURCE_DELETES.map((d) => d.replace('LIMIT @limit', '')),
  ].map((sql) => db.prepare(sql));
  const insertPeriod = db.prepare(`INSERT INTO cur_periods (source, billing_period, period_start_ms, imported_at, files,
      cur_rows, unblended_usd, amortized_usd, unattributed_lines, unattributed_usd, nodeclaim_filled_lines, split_lines,
      manifest_execution_id)
    VALUES (@source, @billingPeriod, @periodStartMs, @importedAt, @files, @curRows, @unblendedUsd, @amortizedUsd,
      @unattributedLines, @unattributedUsd, @nodeClaimFilledLines, @splitLines, @manifestExecutionId)`);
  // The period's row while its rows are written (their foreign keys need it; deferring the checks to COMMIT made each
  // insert three times dearer), its figures set at commit. No other connection sees it before then.
  const updatePeriod = db.prepare(`UPDATE cur_periods SET period_start_ms = @periodStartMs, imported_at = @importedAt,
      files = @files, cur_rows = @curRows, unblended_usd = @unblendedUsd, amortized_usd = @amortizedUsd,
      unattributed_lines = @unattributedLines, unattributed_usd = @unattributedUsd,
      nodeclaim_filled_lines = @nodeClaimFilledLines, split_lines = @splitLines, manifest_execution_id = @manifestExecutionId
    WHERE source = @source AND billing_period = @billingPeriod`);
  const insertFile = db.prepare(`INSERT INTO cur_files (source, billing_period, file_key, format, size_bytes, etag, cur_rows)
    VALUES (@source, @billingPeriod, @fileKey, @format, @sizeBytes, @etag, @curRows)`);
  const insertNodePoolDay = db.prepare(`INSERT INTO cur_nodepool_daily (source, billing_period, day, day_ms, cluster,
      nodepool, category, attributed_by, unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd,
      usage_amount, public_on_demand_usd, line_count)
    VALUES (@source, @billingPeriod, @day, @dayMs, @cluster, @nodePool, @category, @attributedBy, @unblendedUsd,
      @amortizedUsd, @netUnblendedUsd, @netAmortizedUsd, @usageAmount, @publicOnDemandUsd, @lineCount)`);
  const insertNamespaceDay = db.prepare(`INSERT INTO cur_namespace_daily (source, billing_period, day, day_ms, cluster,
      nodepool, namespace, split_cost_usd, unused_cost_usd, net_split_cost_usd, net_unused_cost_usd,
      public_on_demand_split_cost_usd, public_on_demand_unused_cost_usd, vcpu_hours, memory_gb_hours, pod_count, line_count)
    VALUES (@source, @billingPeriod, @day, @dayMs, @cluster, @nodePool, @namespace, @splitCostUsd, @unusedCostUsd,
      @netSplitCostUsd, @netUnusedCostUsd, @publicOnDemandSplitCostUsd, @publicOnDemandUnusedCostUsd, @vcpuHours,
      @memoryGbHours, @podCount, @lineCount)`);
  const anyLine = db.prepare('SELECT 1 FROM cur_resource_lines LIMIT 1').pluck();
  const listPeriods = db.prepare<[], RawPeriod>('SELECT * FROM cur_periods ORDER BY billing_period, source');
  const filesOf = db.prepare<[string, string], RawFile>(
    'SELECT file_key, format, size_bytes, etag, cur_rows FROM cur_files WHERE source = ? AND billing_period = ? ORDER BY file_key',
  );
  const nodePoolDays = db.prepare<{ fromMs: number; toMs: number; source: string | null }, RawNodePoolDay>(
    `SELECT day, day_ms, cluster, nodepool, category, attributed_by, unblended_usd, amortized_usd, net_unblended_usd,
       net_amortized_usd, usage_amount, public_on_demand_usd, line_count
     FROM cur_nodepool_daily t WHERE day_ms >= @fromMs AND day_ms < @toMs AND ${sourceFilter('t')}
     ORDER BY day_ms, cluster, nodepool, category, attributed_by`,
  );
  const namespaceDays = db.prepare<{ fromMs: number; toMs: number; source: string | null }, RawNamespaceDay>(
    `SELECT day, day_ms, cluster, nodepool, namespace, split_cost_usd, unused_cost_usd, net_split_cost_usd,
       net_unused_cost_usd, public_on_demand_split_cost_usd, public_on_demand_unused_cost_usd, vcpu_hours,
       memory_gb_hours, pod_count, line_count
     FROM cur_namespace_daily t WHERE day_ms >= @fromMs AND day_ms < @toMs AND ${sourceFilter('t')}
     ORDER BY day_ms, cluster, nodepool, namespace`,
  );
  // The comparison's narrow read, as arrays: a 90-day range is ~4,000 rows, and a row object of fifteen columns per row,
  // mapped to another, cost three times the query (GET /api/teams/cur at the 5,000-node envelope).
  const splitDays = Object.fromEntries(
    Object.entries(SPLIT_FIGURE_COLUMNS).map(([figure, [split, unused]]) => [
      figure,
      db
        .prepare<{ fromMs: number; toMs: number; source: string | null }, [string, string, string, string, number, number]>(
          `SELECT day, cluster, nodepool, namespace, ${split}, ${unused}
           FROM cur_namespace_daily t WHERE day_ms >= @fromMs AND day_ms < @toMs AND ${sourceFilter('t')}
           ORDER BY day_ms, cluster, nodepool, namespace`,
        )
        .raw(true),
    ]),
  ) as Record<
    CurSplitFigure,
    Statement<{ fromMs: number; toMs: number; source: string | null }, [string, string, string, string, number, number]>
  >;
  const resourceDaysSql = (where: string) =>
    db.prepare<{ fromMs: number; toMs: number; source: string | null; key: string | null }, RawResourceDay>(
      `SELECT day, day_ms, resource_id, line_item_type, usage_type, product_code, operation, category, cluster, nodepool,
         nodeclaim, attributed_by, commitment_arn, unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd,
         usage_amount, public_on_demand_usd, line_count
       FROM cur_resource_daily t WHERE day_ms >= @fromMs AND day_ms < @toMs AND ${sourceFilter('t')} AND ${where}
       ORDER BY day_ms, resource_id, line_item_type, usage_type, operation, commitment_arn`,
    );
  const resourceDaysAll = resourceDaysSql('@key IS NULL');
  const resourceDaysOfResource = resourceDaysSql('resource_id = @key');
  const resourceDaysOfNodePool = resourceDaysSql('nodepool = @key');
  const knownNodeClaims = db.prepare<[], { instance_id: string; name: string; nodepool: string | null }>(
    `SELECT instance_id, name, nodepool FROM nodeclaims WHERE instance_id IS NOT NULL AND instance_id <> ''
     ORDER BY instance_id, created_at`,
  );
  const nodeClaimClusters = db.prepare<[string], { instance_id: string; cluster: string }>(
    `SELECT c.instance_id, k.name AS cluster FROM nodeclaims c JOIN clusters k ON k.id = c.cluster_id
     WHERE c.instance_id IN (SELECT value FROM json_each(?)) ORDER BY c.instance_id, c.created_at`,
  );
  const tableCounts = db.prepare<[], { periods: number; files: number; nodepool: number; namespace: number; resource: number }>(
    `SELECT (SELECT COUNT(*) FROM cur_periods) AS periods, (SELECT COUNT(*) FROM cur_files) AS files,
       (SELECT COUNT(*) FROM cur_nodepool_daily) AS nodepool, (SELECT COUNT(*) FROM cur_namespace_daily) AS namespace,
       (SELECT COUNT(*) FROM cur_resource_daily) AS resource`,
  );

  // (cur-views) the days with CUR lines, for a day picker: read from the NodePool-day table (a few rows per day, the
  // same lines as the resource-days) rather than scanning the resource table's million rows.
  const dayList = db.prepare<{ fromMs: number; toMs: number; source: string | null }, { day: string }>(
    `SELECT DISTINCT day FROM cur_nodepool_daily t WHERE day_ms >= @fromMs AND day_ms < @toMs AND ${sourceFilter('t')} ORDER BY day`,
  );

  const rangeParams = (r: CurDayRange) => ({ fromMs: r.fromMs, toMs: r.toMs, source: r.source ?? null });

  /**
   * Replaces one billing period of one source as its rows arrive (an import streams them): BEGIN IMMEDIATE takes the
   * write lock and the period's old rows are deleted, resource days are written as they come, and the summary, files
   * and day rows at commit. No other connection sees any of it before the commit; rollback (or the process dying)
   * leaves the period as it was.
   */
  const beginPeriodReplace = (key: { source: string; billingPeriod: string }): CurPeriodReplace => {
    if (db.inTransaction) throw new Error('a CUR period is replaced in a transaction of its own');
    db.exec('BEGIN IMMEDIATE');
    let open = true;
    let dayIndexDropped = false;
    const inside = <T>(what: string, f: () => T): T => {
      if (!open) throw new Error(`CUR period ${key.billingPeriod} of ${key.source}: ${what} after the transaction ended`);
      return f();
    };
    try {
      for (const stmt of deleteRows) stmt.run({ source: key.source, period: key.billingPeriod });
      deletePeriod.run(key.source, key.billingPeriod);
      insertPeriod.run({
        ...key,
        periodStartMs: 0,
        importedAt: 0,
        files: 0,
        curRows: 0,
        unblendedUsd: 0,
        amortizedUsd: 0,
        unattributedLines: 0,
        unattributedUsd: 0,
        nodeClaimFilledLines: 0,
        splitLines: 0,
        manifestExecutionId: null,
      });
      // When no other period holds a resource line (the first import of a CUR), the day index is dropped here and built
      // again at the commit, in this transaction: built once over the sorted lines it cost a tenth of keeping it up to
      // date line by line as they come by resource, each day's entries elsewhere in it (at the envelope's 460,050
      // lines, about 2 CPU s and the page cache's spills; docs/benchmarks.md). A rollback or a crash restores it with
      // the rest. With other periods' lines stored it is kept, as rebuilding it would read all of theirs.
      if (anyLine.get() === undefined) {
        db.exec('DROP INDEX cur_resource_lines_day');
        dayIndexDropped = true;
      }
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    // Straight into 0031's narrow rows, the keys kept in maps for the import (the view's trigger did four lookups a row).
    const writeResourceDays = createResourceLinesWriter(db, key);
    return {
      addResourceDays: (rows) => inside('rows added', () => writeResourceDays(rows)),
      commit: (data) =>
        inside('commit', () => {
          if (data.summary.source !== key.source || data.summary.billingPeriod !== key.billingPeriod)
            throw new Error(
              `CUR period ${key.billingPeriod} of ${key.source}: committed as ${data.summary.billingPeriod} of ${data.summary.source}`,
            );
          updatePeriod.run({ ...data.summary, files: data.files.length });
          for (const f of data.files) insertFile.run({ ...key, ...f });
          for (const r of data.nodePoolDays) insertNodePoolDay.run({ ...key, ...r });
          for (const r of data.namespaceDays) insertNamespaceDay.run({ ...key, ...r });
          if (dayIndexDropped) db.exec(CUR_RESOURCE_LINES_DAY_INDEX);
          db.exec('COMMIT');
          open = false;
        }),
      rollback: () => {
        if (!open) return;
        open = false;
        if (db.inTransaction) db.exec('ROLLBACK');
      },
    };
  };

  return {
    beginPeriodReplace,
    /** Replaces one billing period of one source whole, in one transaction: a failure leaves the period as it was. */
    replacePeriod(data: CurPeriodData): void {
      const write = beginPeriodReplace({ source: data.summary.source, billingPeriod: data.summary.billingPeriod });
      try {
        write.addResourceDays(data.resourceDays);
        write.commit(data);
      } catch (err) {
        write.rollback();
        throw err;
      }
    },
    /** Every imported billing period of every source, by period then source. */
    periods(): CurPeriodRecord[] {
      return listPeriods.all().map(periodFrom);
    },
    /** The files a period of a source was last imported from (empty when never imported). */
    filesOf(source: string, billingPeriod: string): CurFileRecord[] {
      return filesOf.all(source, billingPeriod).map((r) => ({
        fileKey: r.file_key,
        format: r.format,
        sizeBytes: r.size_bytes,
        etag: r.etag,
        curRows: r.cur_rows,
      }));
    },
    nodePoolDays(range: CurDayRange): CurNodePoolDay[] {
      return nodePoolDays.all(rangeParams(range)).map(nodePoolDayFrom);
    },
    namespaceDays(range: CurDayRange): CurNamespaceDay[] {
      return namespaceDays.all(rangeParams(range)).map(namespaceDayFrom);
    },
    /** Per namespace x NodePool x day, one figure's split and unused cost, in the order of namespaceDays. */
    splitDays(range: CurDayRange, figure: CurSplitFigure): CurNamespaceSplit[] {
      return splitDays[figure]
        .all(rangeParams(range))
        .map(([day, cluster, nodePool, namespace, splitUsd, unusedUsd]) => ({ day, cluster, nodePool, namespace, splitUsd, unusedUsd }));
    },
    /** Per resource per day lines for Explain: all of them, of one resource id, or of one NodePool. */
    resourceDays(range: CurDayRange, filter: { resourceId?: string; nodePool?: string } = {}): CurResourceDay[] {
      const params = rangeParams(range);
      if (filter.resourceId !== undefined) return resourceDaysOfResource.all({ ...params, key: filter.resourceId }).map(resourceDayFrom);
      if (filter.nodePool !== undefined) return resourceDaysOfNodePool.all({ ...params, key: filter.nodePool }).map(resourceDayFrom);
      return resourceDaysAll.all({ ...params, key: null }).map(resourceDayFrom);
    },
    /** The UTC days (YYYY-MM-DD) with CUR lines in the range, oldest first. */
    dayList(range: CurDayRange): string[] {
      return dayList.all(rangeParams(range)).map((r) => r.day);
    },
    /** NodeClaims with an instance id (the last launched wins when an id was seen twice). */
    knownNodeClaims(): Map<string, KnownNodeClaim> {
      const byInstance = new Map<string, KnownNodeClaim>();
      for (const r of knownNodeClaims.all()) {
        byInstance.set(r.instance_id, { instanceId: r.instance_id, nodeClaim: r.name, nodePool: r.nodepool ?? '' });
      }
      return byInstance;
    },
    /** The cluster (name) of the NodeClaim we collected with each of these instance ids (the last launched wins). */
    nodeClaimClusters(instanceIds: readonly string[]): Map<string, string> {
      const out = new Map<string, string>();
      if (instanceIds.length === 0) return out;
      for (const r of nodeClaimClusters.all(JSON.stringify(instanceIds))) out.set(r.instance_id, r.cluster);
      return out;
    },
    /** Row counts of the CUR tables (the import's report and its tests). */
    counts() {
      const c = tableCounts.get();
      return c ?? { periods: 0, files: 0, nodepool: 0, namespace: 0, resource: 0 };
    },
  };
}

export type CurRepository = ReturnType<typeof createCurRepository>;
