import { statSync } from 'node:fs';
import {
  DEFAULT_RAW_RETENTION,
  DEFAULT_RETENTION,
  horizonMs,
  rawBoundaryMs,
  hourlyBoundaryMs,
  RetentionSettingError,
  retentionSettings,
  type RetentionSettings,
} from '../core/retention.js';
import type { Db } from '../db/open-db.js';
import { createRetentionFoldRepository } from '../db/repositories/retention-fold-repository.js';
import { createRetentionPruneRepository } from '../db/repositories/retention-prune-repository.js';
import {
  createRetentionStoreRepository,
  RAW_RETENTION_SETTING,
  HOURLY_RETENTION_SETTING,
  RETENTION_PRUNE_SETTING,
  RETENTION_RUN_SETTING,
  RETENTION_SETTING,
  type RetentionRunRecord,
} from '../db/repositories/retention-store-repository.js';
import { UsageError } from './usage-error.js';

/**
 * The collector's retention stage (issue 24): fold the 5-minute snapshots past the raw retention into hourly ones,
 * delete what is past the retention, hand the freed pages back to the file system, within a time budget, one short
 * transaction at a time with the event loop let through between them (a watch keeps up with its events, and the next
 * snapshot never waits behind more than one of them). Whatever a pass leaves, the next one goes on with: each step is
 * its own transaction, so a collector killed mid-pass leaves a sound file.
 */

/** Rows per delete batch and pages per vacuum step: a few ms each at the envelope (npm run bench -- --only retention). */
const PRUNE_BATCH_ROWS = 500;
const VACUUM_STEP_PAGES = 128;

const yieldToEventLoop = (): Promise<void> => new Promise((done) => setImmediate(done));
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The settings to use: each flag given (and stored for the next runs), else the stored one, else the default;
 * checked together (a stored 14d raw retention and a --retention 7d are refused). A bad one is a UsageError.
 */
export function resolveRetentionSettings(
  db: Db,
  flags: { rawRetention?: string; retention?: string; hourlyRetention?: string },
): RetentionSettings {
  const store = createRetentionStoreRepository(db);
  const raw = flags.rawRetention ?? store.setting(RAW_RETENTION_SETTING) ?? DEFAULT_RAW_RETENTION;
  const keep = flags.retention ?? store.setting(RETENTION_SETTING) ?? DEFAULT_RETENTION;
  const hourly = flags.hourlyRetention ?? store.setting(HOURLY_RETENTION_SETTING) ?? undefined;
  let settings: RetentionSettings;
  try {
    settings = retentionSettings(raw, keep, hourly);
  } catch (err) {
    if (err instanceof RetentionSettingError) throw new UsageError(err.message);
    throw err;
  }
  db.transaction(() => {
    if (flags.rawRetention !== undefined) store.setSetting(RAW_RETENTION_SETTING, settings.raw.text);
    if (flags.retention !== undefined) store.setSetting(RETENTION_SETTING, settings.keep.text);
    if (flags.hourlyRetention !== undefined) store.setSetting(HOURLY_RETENTION_SETTING, settings.hourly.text);
  })();
  return settings;
}

/**
 * A file made before incremental auto-vacuum (migration 0021's release) never shrinks: its free pages are reused but
 * never handed back. SQLite switches a file's mode only with a VACUUM, which rewrites it whole: done once, by the
 * collector that upgrades the file, saying so (minutes for gigabytes; it needs about the file's size free beside it;
 * readers keep reading). A failure (a full disk) leaves the file as it was, and is said; the next collector tries again.
 */
export function upgradeToIncrementalVacuum(db: Db, dbPath: string, say: (line: string) => void): boolean {
  const store = createRetentionStoreRepository(db);
  if (store.autoVacuum() === 'incremental') return true;
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  const before = store.facts().fileBytes;
  say(`${dbPath}: switching to incremental vacuum, so the file shrinks as retention deletes: a one-time VACUUM of ${mb(before)}…`);
  const t0 = performance.now();
  try {
    store.switchToIncrementalVacuum();
  } catch (err) {
    say(`! ${dbPath} stays without incremental vacuum (its free pages are reused, not handed back): ${errorText(err)}`);
    return false;
  }
  let size = store.facts().fileBytes;
  try {
    size = statSync(dbPath).size;
  } catch {
    // The page count says as much.
  }
  say(`${dbPath}: incremental vacuum on (${mb(before)} -> ${mb(size)} in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return true;
}

export interface RetentionPassOptions {
  /** The collector's clock, epoch ms. */
  now: number;
  /** Wall time the pass may take, ms; it stops between transactions once spent. */
  budgetMs: number;
  /** Per fold or delete transaction (tests and the bench watch them). */
  onTransaction?: (kind: 'fold' | 'prune' | 'vacuum', ms: number) => void;
}

/** One retention pass: folds, deletes, vacuums within the budget; its record is stored and returned. */
export async function runRetentionPass(db: Db, settings: RetentionSettings, o: RetentionPassOptions): Promise<RetentionRunRecord> {
  const fold = createRetentionFoldRepository(db);
  const prune = createRetentionPruneRepository(db);
  const store = createRetentionStoreRepository(db);
  const started = performance.now();
  const boundary = rawBoundaryMs(o.now, settings.raw, fold.newestSnapshotMs());
  const limit = fold.foldLimitMs(boundary);
  const cut = horizonMs(o.now, settings.keep);
  const record: RetentionRunRecord = {
    at: o.now,
    folded: 0,
    pending: 0,
    deleted: 0,
    pagesFreed: 0,
    longestTransactionMs: 0,
    ms: 0,
    rawBoundaryMs: limit,
    horizonMs: cut,
    error: null,
  };
  const left = (): boolean => performance.now() - started < o.budgetMs;
  const timed = <T>(kind: 'fold' | 'prune' | 'vacuum', fn: () => T): T => {
    const t0 = performance.now();
    const out = fn();
    const ms = performance.now() - t0;
    record.longestTransactionMs = Math.max(record.longestTransactionMs, ms);
    o.onTransaction?.(kind, ms);
    return out;
  };
  try {
    while (left() && timed('fold', () => fold.foldOne(limit)) !== null) {
      record.folded += 1;
      await yieldToEventLoop();
    }
    // Then hourly rows past the hourly retention into days (once every hour of the day is folded).
    const dayLimit = hourlyBoundaryMs(o.now, settings.hourly, limit);
    while (left() && fold.pending(dayLimit) === 0 && timed('fold', () => fold.foldDayOne(dayLimit)) !== null) {
      record.folded += 1;
      await yieldToEventLoop();
    }
    // The horizon moves a week at a time: a prune goes to its end once per horizon (over passes, as the budget allows).
    const last = store.jsonSetting<{ cutMs: number; done: boolean }>(RETENTION_PRUNE_SETTING);
    if (last === null || last.cutMs < cut || !last.done) {
      let done = true;
      for (const step of prune.steps) {
        for (;;) {
          if (!left()) {
            done = false;
            break;
          }
          const n = timed('prune', () => step.batch(cut, PRUNE_BATCH_ROWS));
          record.deleted += n.deleted;
          await yieldToEventLoop();
          if (!n.more) break;
        }
        if (!done) break;
      }
      store.setSetting(RETENTION_PRUNE_SETTING, JSON.stringify({ cutMs: cut, done }));
    }
    if (store.autoVacuum() === 'incremental') {
      while (left() && store.freePages() > 0) {
        const freed = timed('vacuum', () => store.incrementalVacuum(VACUUM_STEP_PAGES));
        record.pagesFreed += freed;
        await yieldToEventLoop();
        if (freed === 0) break;
      }
      if (record.pagesFreed > 0) store.checkpoint();
    }
  } catch (err) {
    record.error = errorText(err);
  }
  record.pending = fold.pending(limit);
  record.ms = performance.now() - started;
  store.setSetting(RETENTION_RUN_SETTING, JSON.stringify(record));
  return record;
}

/** The summary line of a pass, for collect's output; null when it did nothing worth saying. */
export function retentionSummary(r: RetentionRunRecord): string | null {
  if (r.error === null && r.folded === 0 && r.deleted === 0 && r.pagesFreed === 0 && r.pending === 0) return null;
  const parts = [
    `folded ${r.folded} snapshot${r.folded === 1 ? '' : 's'} older than ${new Date(r.rawBoundaryMs).toISOString()} into hourly ones${r.pending > 0 ? ` (${r.pending} left for the next passes)` : ''}`,
  ];
  if (r.deleted > 0) parts.push(`deleted ${r.deleted} rows older than ${new Date(r.horizonMs).toISOString().slice(0, 10)}`);
  if (r.pagesFreed > 0) parts.push(`freed ${r.pagesFreed} pages`);
  parts.push(`longest transaction ${r.longestTransactionMs.toFixed(1)} ms`);
  return `retention: ${parts.join(', ')}${r.error === null ? '' : `; failed: ${r.error}`}`;
}
