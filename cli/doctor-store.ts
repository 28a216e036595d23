import { existsSync, statSync } from 'node:fs';
import { DEFAULT_RAW_RETENTION, DEFAULT_RETENTION } from '../core/retention.js';
import { DbAccessError } from '../db/db-errors.js';
import { openDb } from '../db/open-db.js';
import { createRetentionStoreRepository } from '../db/repositories/retention-store-repository.js';

/**
 * doctor's database section (issue 24): the file's size, whether it shrinks as retention deletes (incremental vacuum),
 * how long 5-minute and hourly snapshots are kept, what is folded so far, and the last retention pass. Read-only: a
 * file of an older release is said, not upgraded. Returns the problems found (a failed retention pass).
 */
export function checkStore(dbPath: string, say: (line: string) => void): number {
  say(`Database (${dbPath})`);
  if (!existsSync(dbPath)) {
    say(`  ! ${dbPath} does not exist yet: collect creates it (with incremental vacuum, so it shrinks as retention deletes)`);
    return 0;
  }
  let db;
  try {
    db = openDb({ path: dbPath, readonly: true });
  } catch (err) {
    say(`  ! ${err instanceof DbAccessError ? err.message : String(err)}`);
    return 0;
  }
  try {
    const f = createRetentionStoreRepository(db).facts();
    const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;
    const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
    let wal = 0;
    try {
      wal = existsSync(`${dbPath}-wal`) ? statSync(`${dbPath}-wal`).size : 0;
    } catch {
      // not readable: its size is left out
    }
    say(`  ✓ ${mb(f.fileBytes)} (${mb(f.freeBytes)} of it free pages${wal > 0 ? `; WAL beside it ${mb(wal)}` : ''})`);
    if (f.autoVacuum === 'incremental') say('  ✓ incremental vacuum: pages freed by retention are handed back, the file shrinks');
    else
      say(
        `  ! no incremental vacuum (a file made before it): freed pages are reused, never handed back; the next collect switches it on with a one-time VACUUM (needs about ${mb(f.fileBytes)} free beside the file)`,
      );
    say(
      `  ✓ retention: 5-minute snapshots kept ${f.rawRetention ?? `${DEFAULT_RAW_RETENTION} (default)`}, then one per hour; everything kept ${f.retention ?? `${DEFAULT_RETENTION} (default)`} (collect --raw-retention, --retention)`,
    );
    const spans: string[] = [];
    if (f.oldestHourlyMs !== null && f.hourlyEndMs !== null) spans.push(`hourly ${iso(f.oldestHourlyMs)} .. ${iso(f.hourlyEndMs)}`);
    if (f.oldestRawMs !== null) spans.push(`5-minute from ${iso(f.oldestRawMs)}`);
    say(`  ✓ snapshots: ${spans.length > 0 ? spans.join(', ') : 'none yet'}`);
    const r = f.lastRun;
    if (r === null) {
      say('  ! no retention pass yet (collect runs one after each snapshot)');
      return 0;
    }
    const pass = `last retention pass ${iso(r.at)}: folded ${r.folded} (${r.pending} left before ${iso(r.rawBoundaryMs)}), deleted ${r.deleted} rows before ${iso(r.horizonMs)}, freed ${r.pagesFreed} pages; longest transaction ${r.longestTransactionMs.toFixed(1)} ms`;
    if (r.error === null) {
      say(`  ✓ ${pass}`);
      return 0;
    }
    say(`  ✗ ${pass}; it failed: ${r.error}`);
    return 1;
  } finally {
    db.close();
  }
}
