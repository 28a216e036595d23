import type { Db } from '../open-db.js';
import type { CostGranularity, CostGroupBy, CostLine } from './cost-lines-repository.js';

/**
 * All SQL for the bill explainer's lines: cost_lines of any source read with their ids (synced Cost Explorer
 * lines and imported CSV lines alike), the sources present, and whole-import writes. Coverage rows (source
 * `<source>:coverage`, see cost-lines-repository) are never returned as lines.
 */

export type BillLineGroupBy = CostGroupBy | 'NONE';
export type BillLineGranularity = CostGranularity;

/** A cost line read back with its id; an imported bill may have no second grouping ('NONE'). */
export interface BillLineRow extends Omit<CostLine, 'groupBy'> {
  id: number;
  groupBy: BillLineGroupBy;
  /** The cluster the line is of (cost_lines.cluster_id, the cluster tag's cluster) and its name. */
  clusterId: number;
  cluster: string;
}

export interface BillSourceRow {
  source: string;
  lines: number;
  groupBys: BillLineGroupBy[];
  firstPeriodMs: number;
  lastPeriodMs: number;
  importedAt: number | null;
  fileName: string | null;
}

export interface BillImportMeta {
  source: string;
  fileName: string | null;
  layout: string;
  granularity: BillLineGranularity;
  sha256: string;
  bytes: number;
  periods: number;
  totalUsd: number;
  fileTotalUsd: number | null;
  importedAt: number;
}

export interface ImportedLineWrite {
  periodStart: string;
  periodStartMs: number;
  nodePool: string;
  unblendedUsd: number;
}

interface RawLine {
  id: number;
  source: string;
  granularity: BillLineGranularity;
  period_start: string;
  period_start_ms: number;
  group_by: BillLineGroupBy;
  nodepool: string;
  dimension_value: string;
  unblended_usd: number;
  amortized_usd: number | null;
  usage_quantity: number | null;
  usage_unit: string | null;
  estimated: number;
  fetched_at: number;
  currency: string;
  cluster_id: number;
  cluster_name: string;
}

const fromRaw = (r: RawLine): BillLineRow => ({
  id: r.id,
  source: r.source,
  granularity: r.granularity,
  periodStart: r.period_start,
  periodStartMs: r.period_start_ms,
  groupBy: r.group_by,
  nodePool: r.nodepool,
  dimensionValue: r.dimension_value,
  unblendedUsd: r.unblended_usd,
  amortizedUsd: r.amortized_usd,
  usageQuantity: r.usage_quantity,
  usageUnit: r.usage_unit,
  estimated: r.estimated === 1,
  fetchedAt: r.fetched_at,
  currency: r.currency === 'CNY' ? 'CNY' : 'USD',
  clusterId: r.cluster_id,
  cluster: r.cluster_name,
});

/** `@clusterId` NULL: every cluster's lines. */
const CLUSTER = '(@clusterId IS NULL OR cluster_id = @clusterId)';
/** A line with its cluster's name. */
const LINES = 'SELECT cost_lines.*, (SELECT name FROM clusters WHERE id = cost_lines.cluster_id) AS cluster_name FROM cost_lines';

export function createBillLinesRepository(db: Db) {
  const inRange = db.prepare(`
    ${LINES}
    WHERE source = @source AND group_by = @groupBy AND granularity = @granularity AND period_start_ms >= @fromMs AND period_start_ms < @toMs
      AND (@nodePool IS NULL OR nodepool = @nodePool) AND ${CLUSTER}
    ORDER BY period_start_ms, nodepool, dimension_value, cluster_id`);
  const byId = db.prepare(`${LINES} WHERE id = @id AND source NOT LIKE '%:coverage' AND ${CLUSTER}`);
  // Per cluster, the finest granularity's line of the key (one line per cluster).
  const byKey = db.prepare(`
    ${LINES}
    WHERE source = @source AND period_start_ms = @periodStartMs AND nodepool = @nodePool AND group_by = @groupBy AND dimension_value = @dimensionValue
      AND ${CLUSTER}
    ORDER BY cluster_id, granularity`);
  const samePeriod = db.prepare(`
    ${LINES}
    WHERE source = @source AND granularity = @granularity AND group_by = @groupBy AND period_start = @periodStart AND cluster_id = @clusterId
    ORDER BY nodepool, dimension_value`);
  const sources = db.prepare(`
    SELECT c.source, COUNT(*) AS lines, GROUP_CONCAT(DISTINCT c.group_by) AS group_bys, MIN(c.period_start_ms) AS first_ms,
      MAX(c.period_start_ms) AS last_ms, i.imported_at, i.file_name
    FROM cost_lines c LEFT JOIN bill_imports i ON i.source = c.source
    WHERE c.source NOT LIKE '%:coverage' AND (@clusterId IS NULL OR c.cluster_id = @clusterId)
    GROUP BY c.source ORDER BY c.source`);
  const groupBysOf = db.prepare(`SELECT DISTINCT group_by FROM cost_lines WHERE source = @source AND ${CLUSTER} ORDER BY group_by`).pluck();
  const granularitiesOf = db
    .prepare(
      `SELECT DISTINCT granularity FROM cost_lines WHERE source = @source AND group_by = @groupBy AND ${CLUSTER} ORDER BY granularity`,
    )
    .pluck();
  const lastPeriodOf = db.prepare(`SELECT MAX(period_start_ms) FROM cost_lines WHERE source = ?`).pluck();
  const lastPeriodIn = db.prepare(`SELECT MAX(period_start_ms) FROM cost_lines WHERE source = @source AND ${CLUSTER}`).pluck();
  const clusterCount = db.prepare(`SELECT COUNT(*) FROM clusters`).pluck();
  const importExists = db.prepare(`SELECT 1 FROM bill_imports WHERE source = ?`).pluck();
  const deleteLines = db.prepare(`DELETE FROM cost_lines WHERE source = ?`);
  const deleteImport = db.prepare(`DELETE FROM bill_imports WHERE source = ?`);
  const insertImport = db.prepare(`
    INSERT INTO bill_imports (source, file_name, layout, granularity, sha256, bytes, lines, periods, total_usd, file_total_usd, imported_at)
    VALUES (@source, @fileName, @layout, @granularity, @sha256, @bytes, @lines, @periods, @totalUsd, @fileTotalUsd, @importedAt)`);
  const insertLine = db.prepare(`
    INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value,
      unblended_usd, amortized_usd, usage_quantity, usage_unit, estimated, fetched_at, cluster_id)
    VALUES (@source, @granularity, @periodStart, @periodStartMs, 'NONE', @nodePool, '', @unblendedUsd, NULL, NULL, NULL, 0, @fetchedAt,
      @clusterId)`);

  /** One transaction: the earlier import of that name goes, the new one lands whole, or nothing changes. */
  const replaceImportTx = db.transaction((meta: BillImportMeta, lines: readonly ImportedLineWrite[], clusterId: number): boolean => {
    const replaced = importExists.get(meta.source) !== undefined || (lastPeriodOf.get(meta.source) ?? null) !== null;
    deleteLines.run(meta.source);
    deleteImport.run(meta.source);
    insertImport.run({ ...meta, lines: lines.length });
    for (const l of lines)
      insertLine.run({ source: meta.source, granularity: meta.granularity, ...l, fetchedAt: meta.importedAt, clusterId });
    return replaced;
  });

  // `clusterId` (null or absent: every cluster) narrows each read to one cluster's lines.
  return {
    /** Lines of one source, grouping and granularity with period start in [fromMs, toMs); nodePool '' = untagged, undefined = all. */
    listLines(q: {
      source: string;
      groupBy: BillLineGroupBy;
      granularity: BillLineGranularity;
      fromMs: number;
      toMs: number;
      nodePool?: string;
      clusterId?: number | null;
    }): BillLineRow[] {
      return (inRange.all({ ...q, nodePool: q.nodePool ?? null, clusterId: q.clusterId ?? null }) as RawLine[]).map(fromRaw);
    },
    lineById(id: number, clusterId: number | null = null): BillLineRow | null {
      const r = byId.get({ id, clusterId }) as RawLine | undefined;
      return r ? fromRaw(r) : null;
    },
    /** The line of this key in each cluster (one when `clusterId` is given), the finest granularity's. */
    linesByKey(q: {
      source: string;
      periodStartMs: number;
      nodePool: string;
      groupBy: BillLineGroupBy;
      dimensionValue: string;
      clusterId: number | null;
    }): BillLineRow[] {
      const seen = new Set<number>();
      return (byKey.all(q) as RawLine[]).filter((r) => !seen.has(r.cluster_id) && seen.add(r.cluster_id)).map(fromRaw);
    },
    /** Every line of the same cluster, source, granularity, grouping and period as `line` (itself included). */
    linesOfSamePeriod(line: Pick<BillLineRow, 'source' | 'granularity' | 'groupBy' | 'periodStart' | 'clusterId'>): BillLineRow[] {
      return (samePeriod.all(line) as RawLine[]).map(fromRaw);
    },
    /** How many clusters the ledger holds (lines name their cluster when it holds several). */
    clusterCount: (): number => clusterCount.get() as number,
    sources(clusterId: number | null = null): BillSourceRow[] {
      return (
        sources.all({ clusterId }) as {
          source: string;
          lines: number;
          group_bys: string;
          first_ms: number;
          last_ms: number;
          imported_at: number | null;
          file_name: string | null;
        }[]
      ).map((r) => ({
        source: r.source,
        lines: r.lines,
        groupBys: r.group_bys.split(',').sort() as BillLineGroupBy[],
        firstPeriodMs: r.first_ms,
        lastPeriodMs: r.last_ms,
        importedAt: r.imported_at,
        fileName: r.file_name,
      }));
    },
    groupBysOf: (source: string, clusterId: number | null = null): BillLineGroupBy[] =>
      groupBysOf.all({ source, clusterId }) as BillLineGroupBy[],
    granularitiesOf: (source: string, groupBy: BillLineGroupBy, clusterId: number | null = null): BillLineGranularity[] =>
      granularitiesOf.all({ source, groupBy, clusterId }) as BillLineGranularity[],
    lastPeriodMs: (source: string, clusterId: number | null = null): number | null =>
      (lastPeriodIn.get({ source, clusterId }) as number | null | undefined) ?? null,
    /** Replaces the import stored under meta.source in one transaction. Returns whether one was replaced. */
    /** An imported bill is of one cluster (`clusterId`, default the first): its lines carry it. */
    replaceImport: (meta: BillImportMeta, lines: readonly ImportedLineWrite[], clusterId = 1): boolean =>
      replaceImportTx(meta, lines, clusterId),
  };
}

export type BillLinesRepository = ReturnType<typeof createBillLinesRepository>;
