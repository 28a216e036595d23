import type { Db } from './open-db.js';

/**
 * The page cache of the connection that answers the API, MiB: an upper bound, filled only as far as the pages read
 * need it. better-sqlite3's default is 15.6 MiB (SQLite's own, 2 MiB): at the envelope (5,000 nodes, a 3.6 GB file) one
 * answer can read more than that in pages scattered over 13 months (each node of two snapshots 90 days apart looked up in node_dims,
 * 400,000 rows), so every request read them again from the file (npm run bench, store-year: `GET /api/nodes/changes`
 * 90 days p50 95 ms with the default, 41 ms with 64 MiB, measured side by side on one file).
 */
export const API_PAGE_CACHE_MIB = 64;

/** Sets the connection's page cache to `mib` MiB. */
export function sizePageCache(db: Db, mib: number): void {
  if (!Number.isInteger(mib) || mib <= 0) throw new Error(`page cache: ${mib} MiB is not a whole number of MiB above 0`);
  db.pragma(`cache_size = ${-mib * 1024}`);
}

/** The connection's page cache, MiB (SQLite keeps it as a negative KiB count, or a page count when positive). */
export function pageCacheMib(db: Db): number {
  const size = db.pragma('cache_size', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  return size < 0 ? -size / 1024 : (size * pageSize) / (1024 * 1024);
}
