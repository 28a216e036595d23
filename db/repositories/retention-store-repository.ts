import type { Db } from '../open-db.js';
import { HOUR_MS } from '../../core/time.js';

/**
 * The retention settings as stored, the file's size and vacuum mode, how far the snapshots are folded, and the
 * pages freed after a fold (issue 24). Reads work on a read-only connection (`serve`); writes are the collector's.
 */

/** Settings keys: the raw retention ("14d") and the retention ("13mo") as given to collect; absent: the defaults. */
export const RAW_RETENTION_SETTING = 'retention.raw';
export const RETENTION_SETTING = 'retention.keep';
/** The hourly retention ("90d") as given to collect; absent: the default. */
export const HOURLY_RETENTION_SETTING = 'retention.hourly';
/** The last retention pass (RetentionRunRecord JSON). */
export const RETENTION_RUN_SETTING = 'retention.last-run';
/** The horizon of the last prune that went to the end ({cutMs, done} JSON): a prune runs again when the horizon moves. */
export const RETENTION_PRUNE_SETTING = 'retention.prune';

export type AutoVacuumMode = 'none' | 'full' | 'incremental';
const AUTO_VACUUM: Record<number, AutoVacuumMode> = { 0: 'none', 1: 'full', 2: 'incremental' };

/** What the collector's last retention pass did (kept in settings, shown by status and doctor). */
export interface RetentionRunRecord {
  /** When it ran, epoch ms (the collector's clock). */
  at: number;
  /** Snapshots as taken that were folded into hourly ones, and how many remain to fold before the raw boundary. */
  folded: number;
  pending: number;
  /** Rows deleted past the horizon. */
  deleted: number;
  /** Pages handed back to the file system. */
  pagesFreed: number;
  /** The longest single transaction of the pass (fold, delete or vacuum step), ms. */
  longestTransactionMs: number;
  /** Wall time of the pass, ms. */
  ms: number;
  /** The boundaries it worked to: 5-minute snapshots before rawBoundaryMs are folded; rows before horizonMs deleted. */
  rawBoundaryMs: number;
  horizonMs: number;
  /** A failure of the pass (the file stays sound: every step is its own transaction). */
  error: string | null;
}

export interface StoreFacts {
  /** The main database file (page_count × page_size), bytes; the WAL beside it is not counted. */
  fileBytes: number;
  /** Of those, free pages waiting to be handed back (incremental vacuum) or reused. */
  freeBytes: number;
  autoVacuum: AutoVacuumMode;
  /** The settings as stored (null: never set, the defaults apply). */
  rawRetention: string | null;
  retention: string | null;
  /** The oldest snapshot as taken (5-minute), epoch ms; null without any. */
  oldestRawMs: number | null;
  /** The oldest hourly snapshot and the end of the newest one's hour, epoch ms; null when nothing is folded. */
  oldestHourlyMs: number | null;
  hourlyEndMs: number | null;
  lastRun: RetentionRunRecord | null;
}

export function createRetentionStoreRepository(db: Db) {
  const getSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const putSetting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const oldestRaw = db.prepare('SELECT MIN(taken_at) FROM snapshots WHERE fold_ms IS NULL').pluck();
  const hourly = db.prepare('SELECT MIN(taken_at) AS oldest, MAX(taken_at) AS newest FROM snapshots WHERE fold_ms IS NOT NULL');
  const text = (key: string): string | null => (getSetting.get(key) as string | undefined) ?? null;
  const json = <T>(key: string): T | null => {
    const v = text(key);
    if (v === null) return null;
    try {
      return JSON.parse(v) as T;
    } catch {
      return null;
    }
  };
  const pragma = (name: string): number => db.pragma(name, { simple: true }) as number;

  return {
    setting: text,
    setSetting: (key: string, value: string): void => void putSetting.run(key, value),
    /** The stored JSON of `key`, or null when absent or unreadable. */
    jsonSetting: json,

    facts(): StoreFacts {
      const pageSize = pragma('page_size');
      const h = hourly.get() as { oldest: number | null; newest: number | null };
      return {
        fileBytes: pragma('page_count') * pageSize,
        freeBytes: pragma('freelist_count') * pageSize,
        autoVacuum: AUTO_VACUUM[pragma('auto_vacuum')] ?? 'none',
        rawRetention: text(RAW_RETENTION_SETTING),
        retention: text(RETENTION_SETTING),
        oldestRawMs: (oldestRaw.get() as number | null) ?? null,
        oldestHourlyMs: h.oldest,
        hourlyEndMs: h.newest === null ? null : h.newest + HOUR_MS,
        lastRun: json<RetentionRunRecord>(RETENTION_RUN_SETTING),
      };
    },

    autoVacuum: (): AutoVacuumMode => AUTO_VACUUM[pragma('auto_vacuum')] ?? 'none',
    freePages: (): number => pragma('freelist_count'),
    /** Hands up to `pages` free pages back to the file system (its own write transaction); returns how many went. */
    incrementalVacuum(pages: number): number {
      const before = pragma('freelist_count');
      db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
      return before - pragma('freelist_count');
    },
    /** Copies the WAL into the file where no reader needs it (the file shrinks there); never waits for readers. */
    checkpoint: (): void => void db.pragma('wal_checkpoint(PASSIVE)'),
    /**
     * The one-time switch of an existing file to incremental auto-vacuum: SQLite takes the mode only with a VACUUM,
     * which rewrites the whole file (and needs about as much free disk beside it). Readers keep reading meanwhile.
     */
    switchToIncrementalVacuum(): void {
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
    },
  };
}

export type RetentionStoreRepository = ReturnType<typeof createRetentionStoreRepository>;
