import type { Db } from '../open-db.js';

/** Settings key: the last ListCostAllocationTags answer ({active, inactive, checkedAt}), read by the bill explainer. */
export const ALLOCATION_TAGS_SETTING = 'cost-explorer.allocation-tags';
/** The region whose prices the collector stores (the cluster's): which partition, currency and tables apply. */
export const CLUSTER_REGION_SETTING = 'pricing.cluster-region';

export type RunKind = 'kubernetes' | 'cost-explorer' | 'pricing' | 'spot' | 'demo' | 'prometheus';
export type RunSource = 'sandbox' | 'aws';

/**
 * running until the collector finishes it ok or failed; abandoned when the next collector to take the lock finds
 * it still running (its collector was killed or lost the lock without finishing).
 */
export const RUN_STATUSES = ['running', 'ok', 'failed', 'abandoned'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A stored status as a RunStatus; anything else (a row written by a newer version) reads as failed. */
export const toRunStatus = (stored: string): RunStatus => RUN_STATUSES.find((s) => s === stored) ?? 'failed';

/** The message of a run found still running by the next collector. */
export const ABANDONED_RUN_MESSAGE = 'collector stopped without finishing (killed?)';

/** All SQL for collection_runs: one row per collector run, so the dashboard can say where data came from and when. */
export function createRunsRepository(db: Db) {
  const start = db.prepare("INSERT INTO collection_runs (kind, started_at, status, source, cluster_id) VALUES (?, ?, 'running', ?, ?)");
  const finish = db.prepare('UPDATE collection_runs SET finished_at = ?, status = ?, rows_written = ?, message = ? WHERE id = ?');
  const setting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const getSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const abandon = db.prepare("UPDATE collection_runs SET status = 'abandoned', finished_at = ?, message = ? WHERE status = 'running'");
  return {
    /** A run of one cluster's source (clusterId), or of the ledger's account / region (null, the default). */
    startRun: (kind: RunKind, source: RunSource, at = Date.now(), clusterId: number | null = null): number =>
      Number(start.run(kind, at, source, clusterId).lastInsertRowid),
    finishRun: (id: number, status: 'ok' | 'failed', rowsWritten: number, message: string | null = null, at = Date.now()): void => {
      finish.run(at, status, rowsWritten, message, id);
    },
    /**
     * Marks every run still 'running' as abandoned, finished at `at`. Only the holder of the collector lock writes
     * runs, so this is called by the one taking it: whatever is still running belongs to a holder that is gone.
     * Returns how many runs it closed.
     */
    abandonRunning: (at: number, message: string): number => abandon.run(at, message).changes,
    setSetting: (key: string, value: string): void => {
      setting.run(key, value);
    },
    getSetting: (key: string): string | null => (getSetting.get(key) as string | undefined) ?? null,
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
