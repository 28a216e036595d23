import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HOUR_MS } from '../core/time.js';
import { openDb } from '../db/open-db.js';
import {
  fillEnvelopeStore,
  tableBytes,
  type EnvelopeStoreResult,
  type EnvelopeStoreSize,
} from '../db/repositories/retention-envelope-store.js';
import { createRunsRepository } from '../db/repositories/runs-repository.js';
import { benchCache } from './cache.js';

/**
 * A generated retention-shaped store (db/repositories/retention-envelope-store.ts) at `path`, as the benches that read
 * one want it: filled once per set of inputs and kept (bench/cache.ts), so a second run — and a second bench of the
 * same run asking for the same size — copies the file instead of writing it again. The key is the size (every input
 * of the generator), the migrations (the schema) and the generator's source: a change to any of them fills afresh.
 * A finished collector run is recorded at the end, as the routes' freshness reads it. Quick and full runs alike: the
 * envelope's 13 months take minutes to write and seconds to copy.
 */

export interface EnvelopeStore {
  /** The fill's own figures (from when it was written, for a kept copy). */
  filled: EnvelopeStoreResult;
  /** When the copy was kept, or null when this run wrote it. */
  keptAt: string | null;
  /** Bytes per table with its indexes (tableBytes: a dbstat walk of the whole file, seconds), as written. */
  bytesByTable: Record<string, number>;
  /** The file's pages, bytes, as written. */
  pageBytes: number;
}

/**
 * `name` is the cache entry's (one kept per name, bench/cache.ts): benches sharing a store pass the same name and size,
 * a bench keeping two stores two names.
 */
function envelopeCache(name: string, size: EnvelopeStoreSize) {
  // Keyed by the size's fields in name order: two benches spelling the same size alike share the entry.
  const key = Object.fromEntries(Object.entries(size).sort(([a], [b]) => a.localeCompare(b)));
  return benchCache<Omit<EnvelopeStore, 'keptAt'>>(name, key, [
    'db/migrations',
    'db/repositories/retention-envelope-store.ts',
    'bench/envelope-store.ts',
  ]);
}

/** Whether the store is kept (or there is nowhere to keep it): nothing for a preparation to do. */
export const envelopeStoreKept = (name: string, size: EnvelopeStoreSize): boolean => envelopeCache(name, size)?.kept !== null;

/**
 * The store filled into its cache entry unless it is kept already, nothing copied out (a run's preparation,
 * bench/prepare.ts, ahead of the bench that copies it); written through a scratch file in `scratchDir`.
 */
export async function keepEnvelopeStore(
  name: string,
  size: EnvelopeStoreSize,
  scratchDir: string,
  log: (m: string) => void = () => {},
): Promise<void> {
  const cache = envelopeCache(name, size);
  if (cache === null || cache.kept !== null) return;
  const scratch = join(scratchDir, `${name}-fill.db`);
  try {
    await envelopeStore(name, scratch, size, log);
  } finally {
    for (const f of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(f, { force: true });
  }
}

export async function envelopeStore(
  name: string,
  path: string,
  size: EnvelopeStoreSize,
  log: (m: string) => void = () => {},
): Promise<EnvelopeStore> {
  const cache = envelopeCache(name, size);
  const file = (dir: string) => join(dir, 'store.db');
  if (cache?.kept) {
    copyFileSync(file(cache.dir), path);
    const { keptAt, ...kept } = cache.kept;
    return { ...kept, keptAt };
  }
  const db = openDb({ path });
  try {
    // Scratch until the fill is done: no fsync per statement.
    db.pragma('synchronous = OFF');
    const filled = fillEnvelopeStore(db, size, log);
    const runs = createRunsRepository(db);
    runs.finishRun(runs.startRun('kubernetes', 'aws', size.endMs - HOUR_MS), 'ok', 1, null, size.endMs - 60_000);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const made = {
      filled,
      bytesByTable: tableBytes(db),
      pageBytes: (db.pragma('page_size', { simple: true }) as number) * (db.pragma('page_count', { simple: true }) as number),
    };
    if (cache) {
      await db.backup(file(cache.dir));
      cache.keep(made);
    }
    return { ...made, keptAt: null };
  } finally {
    db.close();
  }
}
