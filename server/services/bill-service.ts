import { createHash } from 'node:crypto';
import type { Db } from '../../db/open-db.js';
import { type BillLineRow, createBillLinesRepository } from '../../db/repositories/bill-lines-repository.js';
import { type DatabaseWriter, sameConnectionWriter } from '../database-writer.js';
import { isoInstant, parseInstant, QueryParamError, resolveRange } from '../analytics/range.js';
import { parseCostExplorerCsv } from '../explain/csv-import.js';
import { explainLines } from '../explain/explain.js';
import type { LineFact } from '../explain/facts.js';
import type {
  BillExplainQuery,
  BillGranularity,
  BillGroupBy,
  BillLine,
  BillLinesQuery,
  BillLinesResponse,
  BillSourceSummary,
  Explanation,
  ImportQuery,
  ImportResponse,
} from '../schemas/bill.js';
import { loadExplainContext } from './bill-context.js';
import { storedLineFact, toBillLine } from './bill-lines.js';

/** The bill explainer's reads and the CSV import: repositories -> pure explainer -> API responses. */

export const SYNCED_SOURCE = 'cost-explorer';
const GROUP_BY_PREFERENCE: readonly BillGroupBy[] = ['PURCHASE_TYPE', 'NONE', 'INSTANCE_TYPE', 'RESOURCE_ID'];

/** A 404 with a message the client sees (the app's error handler passes 4xx messages through). */
export class BillNotFoundError extends Error {
  readonly statusCode = 404;
}

/** `costs (3).csv` -> `costs-3`; what an import is stored as when no name is given. */
export function importNameOf(fileName: string | null, sha256: string): string {
  const stem = (fileName ?? '')
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, 64);
  return stem === '' ? `import-${sha256.slice(0, 8)}` : stem;
}

/**
 * `writer`: how an import is written (server/database-writer.ts): under the collector lock, never on the connection the
 * reads use (which `serve` opens read-only).
 */
export function createBillService(db: Db, now: () => number = Date.now, writer: DatabaseWriter = sameConnectionWriter(db)) {
  const repo = createBillLinesRepository(db);

  const summaries = (clusterId: number | null): BillSourceSummary[] =>
    repo.sources(clusterId).map((s) => ({
      source: s.source,
      kind: s.source.startsWith('csv:') ? 'csv' : 'cost-explorer',
      lines: s.lines,
      groupBys: s.groupBys,
      firstPeriod: isoInstant(s.firstPeriodMs),
      lastPeriod: isoInstant(s.lastPeriodMs),
      importedAt: s.importedAt === null ? null : isoInstant(s.importedAt),
      fileName: s.fileName,
    }));

  /** Whether lines name their cluster: in a ledger of several clusters (a one-cluster ledger answers as always). */
  const namesClusters = (): boolean => repo.clusterCount() > 1;
  const named = (line: BillLine, row: BillLineRow, name: boolean): BillLine => (name ? { ...line, cluster: row.cluster } : line);

  /**
   * Explains lines reading their whole periods together (an untagged surplus is matched across lines), each cluster's
   * lines with their own cluster's NodePools, NodeClaims and events only (never joined by name to another cluster's).
   */
  function explainWithSiblings(rows: readonly BillLineRow[]): Explanation[] {
    if (rows.length === 0) return [];
    const name = namesClusters();
    const byId = new Map<number, Explanation>();
    for (const clusterId of new Set(rows.map((r) => r.clusterId))) {
      const mine = rows.filter((r) => r.clusterId === clusterId);
      const siblings = new Map<number, BillLineRow>();
      for (const r of mine) for (const s of repo.linesOfSamePeriod(r)) siblings.set(s.id, s);
      const facts = [...siblings.values()].map(storedLineFact);
      const ctx = loadExplainContext(
        db,
        Math.min(...facts.map((f) => f.periodStartMs)),
        Math.max(...facts.map((f) => f.periodEndMs)),
        clusterId,
      );
      const wanted = new Set(mine.map((r) => r.id));
      for (const e of explainLines(facts, ctx, (l) => l.id !== null && wanted.has(l.id))) {
        const row = siblings.get(e.line.id ?? -1);
        if (row !== undefined) byId.set(row.id, { ...e, line: named(e.line, row, name) });
      }
    }
    return rows.flatMap((r) => byId.get(r.id) ?? []);
  }

  function findLine(q: BillExplainQuery, clusterId: number | null): BillLineRow {
    if (q.lineId !== undefined) {
      const line = repo.lineById(q.lineId, clusterId);
      if (!line) throw new BillNotFoundError(`No bill line with id ${q.lineId}${clusterId === null ? '' : ' in this cluster'}.`);
      return line;
    }
    if (q.period === undefined)
      throw new QueryParamError('lineId', 'give a line id, or the line key: period (with source, nodepool, groupBy, dimension)');
    const key = {
      source: q.source ?? SYNCED_SOURCE,
      periodStartMs: parseInstant('period', q.period),
      nodePool: q.nodepool ?? '',
      groupBy: q.groupBy ?? (q.source?.startsWith('csv:') ? 'NONE' : 'PURCHASE_TYPE'),
      dimensionValue: q.dimension ?? '',
      clusterId,
    } as const;
    const found = repo.linesByKey(key);
    if (found.length === 0) {
      throw new BillNotFoundError(
        `No ${key.source} line for ${q.period}, NodePool "${key.nodePool}" (''=untagged), ${key.groupBy} "${key.dimensionValue}".`,
      );
    }
    // Two clusters' lines share a key (both may have a NodePool called default): the cluster says which is meant.
    if (found.length > 1) {
      throw new QueryParamError(
        'cluster',
        `the line key matches a line in each of ${found.map((l) => `"${l.cluster}"`).join(', ')}: name the cluster, or give lineId`,
      );
    }
    return found[0];
  }

  function lines(q: BillLinesQuery, clusterId: number | null = null): BillLinesResponse {
    const source = q.source ?? SYNCED_SOURCE;
    const available = repo.groupBysOf(source, clusterId);
    const groupBy = q.groupBy ?? GROUP_BY_PREFERENCE.find((g) => available.includes(g)) ?? 'PURCHASE_TYPE';
    if (q.groupBy !== undefined && available.length > 0 && !available.includes(q.groupBy)) {
      throw new QueryParamError('groupBy', `source ${source} has lines grouped by ${available.join(', ')} only`);
    }
    const granularities = repo.granularitiesOf(source, groupBy, clusterId);
    const granularity = q.granularity ?? (granularities.includes('DAILY') || granularities.length === 0 ? 'DAILY' : granularities[0]);
    if (q.granularity !== undefined && granularities.length > 0 && !granularities.includes(q.granularity)) {
      throw new QueryParamError('granularity', `source ${source} has ${groupBy} lines at ${granularities.join(', ')} granularity only`);
    }
    const last = repo.lastPeriodMs(source, clusterId);
    const { fromMs, toMs } = resolveRange(q, { lastSnapshotMs: null, lastCostDayMs: last }, now());
    const rows = repo.listLines({ source, groupBy, granularity, fromMs, toMs, nodePool: q.nodepool, clusterId });
    const name = namesClusters();
    const billLines = rows.map((r) => named(toBillLine(storedLineFact(r)), r, name));
    // A source is one account's bill in one currency; should two ever meet they are refused, not added.
    const currencies = [...new Set(billLines.map((l) => l.currency))];
    if (currencies.length > 1) throw new Error(`bill source ${source} holds amounts in ${currencies.join(' and ')}: not added up`);
    // Per NodePool, and per cluster when lines name theirs: two clusters' `default` are two totals, never one.
    const byPool = new Map<string, { nodePool: string; cluster?: string; unblendedUsd: number; lines: number }>();
    for (const l of billLines) {
      const k = l.cluster === undefined ? l.nodePool : `${l.nodePool}\u0000${l.cluster}`;
      const t = byPool.get(k) ?? {
        nodePool: l.nodePool,
        ...(l.cluster === undefined ? {} : { cluster: l.cluster }),
        unblendedUsd: 0,
        lines: 0,
      };
      byPool.set(k, { ...t, unblendedUsd: t.unblendedUsd + l.unblendedUsd, lines: t.lines + 1 });
    }
    return {
      source,
      from: isoInstant(fromMs),
      to: isoInstant(toMs),
      groupBy,
      availableGroupBys: available,
      granularity,
      availableGranularities: granularities,
      sources: summaries(clusterId),
      currency: currencies[0] ?? 'USD',
      lines: billLines,
      totals: {
        unblendedUsd: billLines.reduce((s, l) => s + l.unblendedUsd, 0),
        byNodePool: [...byPool.values()].sort(
          (a, b) => a.nodePool.localeCompare(b.nodePool) || (a.cluster ?? '').localeCompare(b.cluster ?? ''),
        ),
      },
    };
  }

  function explain(q: BillExplainQuery, clusterId: number | null = null): Explanation {
    const [explanation] = explainWithSiblings([findLine(q, clusterId)]);
    return explanation;
  }

  return {
    lines,
    explain,

    /** Every line of a source in [from, to) explained (the e2e test and a "whole bill" CSV). */
    explainAll(q: {
      source: string;
      groupBy: BillGroupBy;
      granularity: BillGranularity;
      fromMs: number;
      toMs: number;
      clusterId?: number | null;
    }): Explanation[] {
      return explainWithSiblings(repo.listLines(q));
    },

    /**
     * Parses, then stores the whole import in one transaction, under the collector lock (a write: refused while a
     * collector holds the database); a refused file leaves the database untouched.
     */
    importCsv(input: { bytes: Uint8Array; fileName: string | null; query: ImportQuery; clusterId?: number }): ImportResponse {
      const parsed = parseCostExplorerCsv(input.bytes, { granularity: input.query.granularity });
      const sha256 = createHash('sha256').update(input.bytes).digest('hex');
      const source = `csv:${input.query.name ?? importNameOf(input.fileName, sha256)}`;
      const replaced = writer.write('bill import', (wdb) =>
        createBillLinesRepository(wdb).replaceImport(
          {
            source,
            fileName: input.fileName,
            layout: parsed.layout,
            granularity: parsed.granularity,
            sha256,
            bytes: input.bytes.length,
            periods: parsed.periods,
            totalUsd: parsed.totalUsd,
            fileTotalUsd: parsed.fileTotalUsd,
            importedAt: now(),
          },
          parsed.lines,
          input.clusterId ?? 1,
        ),
      );
      return {
        source,
        fileName: input.fileName,
        layout: parsed.layout,
        granularity: parsed.granularity,
        lines: parsed.lines.length,
        periods: parsed.periods,
        nodePools: parsed.nodePools,
        totalUsd: parsed.totalUsd,
        fileTotalUsd: parsed.fileTotalUsd,
        replaced,
        warnings: parsed.warnings,
      };
    },

    /** Explains lines that are not stored (practice bills), reading one cluster's facts from the store. */
    explainFacts(lines: readonly LineFact[], clusterId: number): Explanation[] {
      if (lines.length === 0) return [];
      const ctx = loadExplainContext(
        db,
        Math.min(...lines.map((l) => l.periodStartMs)),
        Math.max(...lines.map((l) => l.periodEndMs)),
        clusterId,
      );
      return explainLines(lines, ctx);
    },
  };
}

export type BillService = ReturnType<typeof createBillService>;
