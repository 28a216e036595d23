import type { Db } from '../../db/open-db.js';
import { createCurRepository, type CurFileRecord } from '../../db/repositories/cur-repository.js';
import type { CurAggregateRow } from './aggregate-statement.js';
import { dayStartMs, periodRows } from './period-rows.js';

/**
 * Stores one billing period's statement rows, whichever engine ran the statement (DuckDB over a folder, Athena over
 * S3): the NodePool filled from our NodeClaims, the daily rows built, and the period replaced whole in one
 * transaction. Returns what was written, for the command's summary.
 */

export interface StoreCurPeriodInput {
  source: string;
  /** YYYY-MM */
  billingPeriod: string;
  rows: readonly CurAggregateRow[];
  /** The data files read (Athena: none, so a later import of the same period always replaces it). */
  files: readonly CurFileRecord[];
  manifestExecutionId?: string | null;
  importedAt: number;
}

export interface StoredCurPeriod {
  /** CUR lines behind the rows: Σ line_count (every line is in exactly one row). */
  curRows: number;
  nodePoolRows: number;
  namespaceRows: number;
  resourceRows: number;
  unattributedLines: number;
  unattributedUsd: number;
  nodeClaimFilledLines: number;
  splitLines: number;
}

export function storeCurPeriod(db: Db, input: StoreCurPeriodInput): StoredCurPeriod {
  const repo = createCurRepository(db);
  const built = periodRows(input.rows, repo.knownNodeClaims());
  const curRows = input.rows.reduce((n, r) => n + r.lineCount, 0);
  repo.replacePeriod({
    summary: {
      source: input.source,
      billingPeriod: input.billingPeriod,
      periodStartMs: dayStartMs(`${input.billingPeriod}-01`),
      importedAt: input.importedAt,
      curRows,
      unblendedUsd: built.unblendedUsd,
      amortizedUsd: built.amortizedUsd,
      unattributedLines: built.unattributedLines,
      unattributedUsd: built.unattributedUsd,
      nodeClaimFilledLines: built.nodeClaimFilledLines,
      splitLines: built.splitLines,
      manifestExecutionId: input.manifestExecutionId ?? null,
    },
    files: input.files,
    nodePoolDays: built.nodePoolDays,
    namespaceDays: built.namespaceDays,
    resourceDays: built.resourceDays,
  });
  return {
    curRows,
    nodePoolRows: built.nodePoolDays.length,
    namespaceRows: built.namespaceDays.length,
    resourceRows: built.resourceDays.length,
    unattributedLines: built.unattributedLines,
    unattributedUsd: built.unattributedUsd,
    nodeClaimFilledLines: built.nodeClaimFilledLines,
    splitLines: built.splitLines,
  };
}
