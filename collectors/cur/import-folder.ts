import type { Db } from '../../db/open-db.js';
import { createCurRepository, type CurFileRecord } from '../../db/repositories/cur-repository.js';
import type { CurTagKeyOptions } from './aggregate-statement.js';
import { CurEngine } from './duckdb-reader.js';
import { findCurPeriods, sha256OfFile, type CurExportFile, type CurExportPeriod } from './export-layout.js';
import { dayStartMs } from './period-rows.js';
import { storeCurPeriod } from './store-period.js';

/**
 * `cur import PATH`: a local folder holding a CUR 2.0 export (AWS Data Exports layout), read with DuckDB and kept
 * as daily rows in SQLite, incrementally: a billing period whose files (keys, sizes, sha256 or S3 ETag) are those of
 * its last import is skipped; one whose file set changed is read again and replaced whole (AWS re-states a period
 * for weeks after it ends). Every file of a period is read once on its own first, so a truncated or malformed one
 * is refused by name before anything is written; a period is then streamed from DuckDB into one SQLite transaction
 * (collectors/cur/store-period.ts), so a failure part-way leaves it as it was.
 * The S3 source downloads an export to a folder and calls importCurFolder with its own `source` and ETags.
 */

export interface CurImportProgress {
  phase: 'fingerprint' | 'read' | 'aggregate' | 'write';
  billingPeriod: string;
  /** Steps done and in all: each file is fingerprinted then read; a period adds an aggregate and a write step. */
  done: number;
  total: number;
  note: string;
}

export interface CurImportOptions {
  /** The name the periods are kept under (default: the export folder's absolute path; the S3 source passes s3://…). */
  source?: string;
  /** Only billing periods that end after now − sinceMs (default: every period found). */
  sinceMs?: number;
  /** The clock for --since and imported_at (tests pass one). */
  now?: number;
  /** The fingerprint of a file: the S3 ETag when the caller has it; default sha256 of the local file. */
  etagOf?: (file: CurExportFile) => string | undefined;
  tagKeys?: CurTagKeyOptions;
  onProgress?: (p: CurImportProgress) => void;
  /** Stops the import between two chunks of rows; the period being written is left as it was. */
  signal?: AbortSignal;
}

export type CurPeriodStatus = 'imported' | 'unchanged' | 'before-since';

export interface CurPeriodImport {
  billingPeriod: string;
  source: string;
  status: CurPeriodStatus;
  files: number;
  curRows: number;
  nodePoolRows: number;
  namespaceRows: number;
  resourceRows: number;
  unattributedLines: number;
  unattributedUsd: number;
  nodeClaimFilledLines: number;
  splitLines: number;
}

export interface CurImportResult {
  periods: CurPeriodImport[];
}

const periodStartMs = (billingPeriod: string): number => dayStartMs(`${billingPeriod}-01`);
function periodEndMs(billingPeriod: string): number {
  const start = new Date(periodStartMs(billingPeriod));
  return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
}

type Fingerprint = Omit<CurFileRecord, 'curRows'>;

/** Same keys, formats, sizes and etags (both lists in file key order). */
const sameFiles = (a: readonly Fingerprint[], b: readonly Fingerprint[]): boolean =>
  a.length === b.length &&
  a.every((f, i) => {
    const g = b[i];
    return g !== undefined && f.fileKey === g.fileKey && f.sizeBytes === g.sizeBytes && f.etag === g.etag && f.format === g.format;
  });

export async function importCurFolder(db: Db, folder: string, options: CurImportOptions = {}): Promise<CurImportResult> {
  const now = options.now ?? Date.now();
  const repo = createCurRepository(db);
  const found = findCurPeriods(folder);
  const wanted = (p: CurExportPeriod): boolean => options.sinceMs === undefined || periodEndMs(p.billingPeriod) > now - options.sinceMs;
  const periods = found.filter(wanted);
  const total = periods.reduce((n, p) => n + 2 * p.files.length + 2, 0);
  let done = 0;
  const step = (phase: CurImportProgress['phase'], billingPeriod: string, note: string, by = 1): void => {
    done += by;
    options.onProgress?.({ phase, billingPeriod, done, total, note });
  };
  const results: CurImportResult['periods'] = found
    .filter((p) => !wanted(p))
    .map((p) => ({ ...emptyResult(p, options.source ?? p.exportRoot), status: 'before-since' }));

  let engine: CurEngine | null = null;
  try {
    for (const period of periods) {
      const source = options.source ?? period.exportRoot;
      const fingerprinting = (async (): Promise<Fingerprint[]> => {
        const fingerprints: Fingerprint[] = [];
        for (const file of period.files) {
          const etag = options.etagOf?.(file) ?? (await sha256OfFile(file.path));
          fingerprints.push({ fileKey: file.fileKey, format: file.format, sizeBytes: file.sizeBytes, etag });
          step('fingerprint', period.billingPeriod, file.fileKey);
        }
        return fingerprints;
      })();
      // Awaited below (a failure fails the period); until then it must not surface as an unhandled rejection.
      fingerprinting.catch(() => undefined);
      const before = repo.filesOf(source, period.billingPeriod);
      if (before.length > 0 && sameFiles(before, await fingerprinting)) {
        step('write', period.billingPeriod, 'unchanged', period.files.length + 2);
        results.push({ ...emptyResult(period, source), status: 'unchanged', curRows: before.reduce((n, f) => n + f.curRows, 0) });
        continue;
      }
      // A period never imported is read whatever its fingerprints: its files are hashed while DuckDB reads them (this
      // thread mostly waits on DuckDB then), not before, and their records are complete before the commit.
      const duck = (engine ??= await CurEngine.open());
      const counts: number[] = [];
      for (const file of period.files) {
        const curRows = await duck.checkFile(file.path, file.format);
        counts.push(curRows);
        step('read', period.billingPeriod, `${file.fileKey} (${curRows} rows)`);
      }
      const files: CurFileRecord[] = [];
      const format = period.files[0]?.format ?? 'parquet';
      const paths = period.files.map((f) => f.path);
      const written = await storeCurPeriod(
        db,
        {
          source,
          billingPeriod: period.billingPeriod,
          files,
          manifestExecutionId: period.executionId,
          importedAt: now,
          ...(options.signal !== undefined ? { signal: options.signal } : {}),
          onChunk: (c) => step('write', period.billingPeriod, `${c.rows} rows of ${c.curLines} CUR lines written`, 0),
        },
        async (write) => {
          if (paths.length > 0) await duck.aggregate(period.billingPeriod, format, paths, write, options.tagKeys);
          // storeCurPeriod reads `files` at its commit, once this resolves.
          for (const [i, fp] of (await fingerprinting).entries()) files.push({ ...fp, curRows: counts[i] ?? 0 });
        },
      );
      step('aggregate', period.billingPeriod, `${written.statementRows} aggregate rows`);
      step('write', period.billingPeriod, 'written');
      results.push({
        billingPeriod: period.billingPeriod,
        source,
        status: 'imported',
        files: files.length,
        curRows: written.curRows,
        nodePoolRows: written.nodePoolRows,
        namespaceRows: written.namespaceRows,
        resourceRows: written.resourceRows,
        unattributedLines: written.unattributedLines,
        unattributedUsd: written.unattributedUsd,
        nodeClaimFilledLines: written.nodeClaimFilledLines,
        splitLines: written.splitLines,
      });
    }
  } finally {
    engine?.close();
  }
  return { periods: results.sort((a, b) => a.billingPeriod.localeCompare(b.billingPeriod)) };
}

function emptyResult(p: CurExportPeriod, source: string): Omit<CurPeriodImport, 'status'> {
  return {
    billingPeriod: p.billingPeriod,
    source,
    files: p.files.length,
    curRows: 0,
    nodePoolRows: 0,
    namespaceRows: 0,
    resourceRows: 0,
    unattributedLines: 0,
    unattributedUsd: 0,
    nodeClaimFilledLines: 0,
    splitLines: 0,
  };
}
