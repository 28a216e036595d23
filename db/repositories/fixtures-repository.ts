import type { Db } from '../open-db.js';
import type { RunStatus } from './runs-repository.js';

/**
 * Writes for tests and demo data only: Cost Explorer lines and collection runs, as the collectors
 * would store them. The collectors have their own repositories; this keeps test SQL inside db/.
 */

export interface CostLineFixture {
  source?: string;
  granularity?: 'DAILY' | 'HOURLY';
  /** As Cost Explorer gives it: 2026-11-01 (DAILY) or 2026-11-01T00:00:00Z (HOURLY). */
  periodStart: string;
  groupBy?: 'PURCHASE_TYPE' | 'INSTANCE_TYPE' | 'RESOURCE_ID';
  /** Tag value; '' = untagged. */
  nodePool: string;
  dimensionValue: string;
  unblendedUsd: number;
  amortizedUsd?: number | null;
  estimated?: boolean;
}

export interface CollectionRunFixture {
  kind: string;
  source: 'sandbox' | 'aws';
  startedAtMs: number;
  finishedAtMs?: number | null;
  status?: RunStatus;
  rowsWritten?: number;
  message?: string | null;
}

export function createFixturesRepository(db: Db) {
  const insertCostLine = db.prepare(`
    INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value,
      unblended_usd, amortized_usd, estimated, fetched_at)
    VALUES (@source, @granularity, @periodStart, @periodStartMs, @groupBy, @nodePool, @dimensionValue,
      @unblendedUsd, @amortizedUsd, @estimated, @fetchedAt)`);
  const insertRun = db.prepare(`
    INSERT INTO collection_runs (kind, started_at, finished_at, status, source, rows_written, message)
    VALUES (@kind, @startedAtMs, @finishedAtMs, @status, @source, @rowsWritten, @message)`);

  return {
    insertCostLines: db.transaction((lines: readonly CostLineFixture[]): void => {
      for (const l of lines) {
        const periodStartMs = Date.parse(l.periodStart.length === 10 ? `${l.periodStart}T00:00:00Z` : l.periodStart);
        if (Number.isNaN(periodStartMs)) throw new Error(`bad periodStart ${l.periodStart}`);
        insertCostLine.run({
          source: l.source ?? 'cost-explorer',
          granularity: l.granularity ?? 'DAILY',
          periodStart: l.periodStart,
          periodStartMs,
          groupBy: l.groupBy ?? 'PURCHASE_TYPE',
          nodePool: l.nodePool,
          dimensionValue: l.dimensionValue,
          unblendedUsd: l.unblendedUsd,
          amortizedUsd: l.amortizedUsd ?? null,
          estimated: l.estimated === true ? 1 : 0,
          fetchedAt: periodStartMs,
        });
      }
    }),
    /** Returns the run id. */
    insertCollectionRun(run: CollectionRunFixture): number {
      return Number(
        insertRun.run({
          kind: run.kind,
          source: run.source,
          startedAtMs: run.startedAtMs,
          finishedAtMs: run.finishedAtMs ?? null,
          status: run.status ?? 'ok',
          rowsWritten: run.rowsWritten ?? 0,
          message: run.message ?? null,
        }).lastInsertRowid,
      );
    },
  };
}
