import type { Db } from '../open-db';

/** Settings key: the last ListCostAllocationTags answer ({active, inactive, checkedAt}), read by the bill explainer. */
export const ALLOCATION_TAGS_SETTING = 'cost-explorer.allocation-tags';

export type RunKind = 'kubernetes' | 'cost-explorer' | 'pricing' | 'spot' | 'demo';
export type RunSource = 'sandbox' | 'aws';

/** All SQL for collection_runs: one row per collector run, so the dashboard can say where data came from and when. */
export function createRunsRepository(db: Db) {
  const start = db.prepare("INSERT INTO collection_runs (kind, started_at, status, source) VALUES (?, ?, 'running', ?)");
  const finish = db.prepare('UPDATE collection_runs SET finished_at = ?, status = ?, rows_written = ?, message = ? WHERE id = ?');
  const setting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const getSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  return {
    startRun: (kind: RunKind, source: RunSource, at = Date.now()): number => Number(start.run(kind, at, source).lastInsertRowid),
    finishRun: (id: number, status: 'ok' | 'failed', rowsWritten: number, message: string | null = null, at = Date.now()): void => {
      finish.run(at, status, rowsWritten, message, id);
    },
    setSetting: (key: string, value: string): void => {
      setting.run(key, value);
    },
    getSetting: (key: string): string | null => (getSetting.get(key) as string | undefined) ?? null,
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
