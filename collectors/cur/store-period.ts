import type { Db } from '../../db/open-db.js';
import { createCurRepository, type CurFileRecord, type CurResourceDay } from '../../db/repositories/cur-repository.js';
import type { CurAggregateRow } from './aggregate-statement.js';
import { dayStartMs, PeriodRowsBuilder } from './period-rows.js';

/**
 * Stores one billing period's statement rows as an engine hands them over, chunk by chunk, whichever engine runs the
 * statement (DuckDB over a folder, Athena over S3): the NodePool filled from our NodeClaims, each chunk's resource days
 * written at once, the NodePool and namespace days summed in memory (a few rows per day) and written at the end, all
 * in one SQLite transaction (BEGIN IMMEDIATE, so no other writer slips in; readers see the period as it was until
 * the commit). What is held is the NodeClaims and those sums, never the period's rows. A failure part-way — the
 * engine's, a malformed row, the signal — rolls the period back to what it was. Returns what was written.
 */

export interface StoreCurPeriodInput {
  source: string;
  /** YYYY-MM */
  billingPeriod: string;
  /** The data files read (Athena: none, so a later import of the same period always replaces it). */
  files: readonly CurFileRecord[];
  manifestExecutionId?: string | null;
  importedAt: number;
  /** Stops the import between two chunks (the period is then left as it was). */
  signal?: AbortSignal;
  /** After each chunk is written: the statement rows and CUR lines stored so far. */
  onChunk?: (p: { rows: number; curLines: number }) => void;
  /** A period the statement returns no row for is left as it was, not stored empty (Athena: a month not billed yet). */
  skipEmpty?: boolean;
}

export interface StoredCurPeriod {
  /** False when skipEmpty left an empty period as it was. */
  stored: boolean;
  /** CUR lines behind the rows: Σ line_count (every line is in exactly one row). */
  curRows: number;
  /** Rows the statement returned. */
  statementRows: number;
  nodePoolRows: number;
  namespaceRows: number;
  resourceRows: number;
  unattributedLines: number;
  unattributedUsd: number;
  nodeClaimFilledLines: number;
  splitLines: number;
}

/** Hands the statement's rows to `write`, a chunk at a time, and resolves once every row was handed over. */
export type CurRowSource = (write: (rows: readonly CurAggregateRow[]) => void) => Promise<void>;

export async function storeCurPeriod(db: Db, input: StoreCurPeriodInput, rows: CurRowSource): Promise<StoredCurPeriod> {
  const repo = createCurRepository(db);
  const builder = new PeriodRowsBuilder(repo.knownNodeClaims());
  input.signal?.throwIfAborted();
  const replace = repo.beginPeriodReplace({ source: input.source, billingPeriod: input.billingPeriod });
  let statementRows = 0;
  let resourceRows = 0;
  try {
    await rows((chunk) => {
      input.signal?.throwIfAborted();
      const resources: CurResourceDay[] = [];
      for (const r of chunk) {
        const resource = builder.add(r);
        if (resource !== null) resources.push(resource);
      }
      replace.addResourceDays(resources);
      statementRows += chunk.length;
      resourceRows += resources.length;
      input.onChunk?.({ rows: statementRows, curLines: builder.curLines });
    });
    input.signal?.throwIfAborted();
    const built = builder.finish();
    const stored = statementRows > 0 || input.skipEmpty !== true;
    if (!stored) replace.rollback();
    else
      replace.commit({
        summary: {
          source: input.source,
          billingPeriod: input.billingPeriod,
          periodStartMs: dayStartMs(`${input.billingPeriod}-01`),
          importedAt: input.importedAt,
          curRows: builder.curLines,
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
      });
    return {
      stored,
      curRows: builder.curLines,
      statementRows,
      nodePoolRows: built.nodePoolDays.length,
      namespaceRows: built.namespaceDays.length,
      resourceRows,
      unattributedLines: built.unattributedLines,
      unattributedUsd: built.unattributedUsd,
      nodeClaimFilledLines: built.nodeClaimFilledLines,
      splitLines: built.splitLines,
    };
  } catch (err) {
    replace.rollback();
    throw err;
  }
}
