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

  const summaries = (): BillSourceSummary[] =>
    repo.sources().map((s) => ({
      source: s.source,
      kind: s.source.startsWith('csv:') ? 'csv' : 'cost-explorer',
      lines: s.lines,
      groupBys: s.groupBys,
      firstPeriod: isoInstant(s.firstPeriodMs),
      lastPeriod: isoInstant(s.lastPeriodMs),
      importedAt: s.importedAt === null ? null : isoInstant(s.importedAt),
      fileName: s.fileName,
    }));

  /** Explains lines reading their whole periods together (an untagged surplus is matched across lines). */
  function explainWithSiblings(rows: readonly BillLineRow[]): Explanation[] {
    if (rows.length === 0) return [];
    const siblings = new Map<number, BillLineRow>();
    for (const r of rows) for (const s of repo.linesOfSamePeriod(r)) siblings.set(s.id, s);
    const facts = [...siblings.values()].map(storedLineFact);
    const ctx = loadExplainContext(db, Math.min(...facts.map((f) => f.periodStartMs)), Math.max(...facts.map((f) => f.periodEndMs)));
    const wanted = new Set(rows.map((r) => r.id));
    return explainLines(facts, ctx, (l) => l.id !== null && wanted.has(l.id));
  }

  function findLine(q: BillExplainQuery): BillLineRow {
    if (q.lineId !== undefined) {
      const line = repo.lineById(q.lineId);
      if (!line) throw new BillNotFoundError(`No bill line with id ${q.lineId}.`);
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
    } as const;
    const line = repo.lineByKey(key);
    if (!line) {
      throw new BillNotFoundError(
        `No ${key.source} line for ${q.period}, NodePool "${key.nodePool}" (''=untagged), ${key.groupBy} "${key.dimensionValue}".`,
      );
    }
    return line;
  }

  function lines(q: BillLinesQuery): BillLinesResponse {
    const source = q.source ?? SYNCED_SOURCE;
    const available = repo.groupBysOf(source);
    const groupBy = q.groupBy ?? GROUP_BY_PREFERENCE.find((g) => available.includes(g)) ?? 'PURCHASE_TYPE';
    if (q.groupBy !== undefined && available.length > 0 && !available.includes(q.groupBy)) {
      throw new QueryParamError('groupBy', `source ${source} has lines grouped by ${available.join(', ')} only`);
    }
    const granularities = repo.granularitiesOf(source, groupBy);
    const granularity = q.granularity ?? (granularities.includes('DAILY') || granularities.length === 0 ? 'DAILY' : granularities[0]);
    if (q.granularity !== undefined && granularities.length > 0 && !granularities.includes(q.granularity)) {
      throw new QueryParamError('granularity', `source ${source} has ${groupBy} lines at ${granularities.join(', ')} granularity only`);
    }
    const last = repo.lastPeriodMs(source);
    const { fromMs, toMs } = resolveRange(q, { lastSnapshotMs: null, lastCostDayMs: last }, now());
    const rows = repo.listLines({ source, groupBy, granularity, fromMs, toMs, nodePool: q.nodepool });
    const billLines = rows.map((r) => toBillLine(storedLineFact(r)));
    // A source is one account's bill in one currency; should two ever meet they are refused, not added.
    const currencies = [...new Set(billLines.map((l) => l.currency))];
    if (currencies.length > 1) throw new Error(`bill source ${source} holds amounts in ${currencies.join(' and ')}: not added up`);
    const byPool = new Map<string, { unblendedUsd: number; lines: number }>();
    for (const l of billLines) {
      const t = byPool.get(l.nodePool) ?? { unblendedUsd: 0, lines: 0 };
      byPool.set(l.nodePool, { unblendedUsd: t.unblendedUsd + l.unblendedUsd, lines: t.lines + 1 });
    }
    return {
      source,
      from: isoInstant(fromMs),
      to: isoInstant(toMs),
      groupBy,
      availableGroupBys: available,
      granularity,
      availableGranularities: granularities,
      sources: summaries(),
      currency: currencies[0] ?? 'USD',
      lines: billLines,
      totals: {
        unblendedUsd: billLines.reduce((s, l) => s + l.unblendedUsd, 0),
        byNodePool: [...byPool].sort((a, b) => a[0].localeCompare(b[0])).map(([nodePool, t]) => ({ nodePool, ...t })),
      },
    };
  }

  function explain(q: BillExplainQuery): Explanation {
    const [explanation] = explainWithSiblings([findLine(q)]);
    return explanation;
  }

  return {
    lines,
    explain,

    /** Every line of a source in [from, to) explained (the e2e test and a "whole bill" CSV). */
    explainAll(q: { source: string; groupBy: BillGroupBy; granularity: BillGranularity; fromMs: number; toMs: number }): Explanation[] {
      return explainWithSiblings(repo.listLines(q));
    },

    /**
     * Parses, then stores the whole import in one transaction, under the collector lock (a write: refused while a
     * collector holds the database); a refused file leaves the database untouched.
     */
    importCsv(input: { bytes: Uint8Array; fileName: string | null; query: ImportQuery }): ImportResponse {
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

    /** Explains lines that are not stored (practice bills), reading the store for the facts. */
    explainFacts(lines: readonly LineFact[]): Explanation[] {
      if (lines.length === 0) return [];
      const ctx = loadExplainContext(db, Math.min(...lines.map((l) => l.periodStartMs)), Math.max(...lines.map((l) => l.periodEndMs)));
      return explainLines(lines, ctx);
    },
  };
}

export type BillService = ReturnType<typeof createBillService>;
