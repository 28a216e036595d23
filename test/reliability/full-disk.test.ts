import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { DbAccessError, explainDbError } from '../../db/db-errors.js';
import { openDb, type Db } from '../../db/open-db.js';
import { incompleteSnapshots, integrity, snapshotTimes } from './fixtures/db-checks.js';
import { canMountTmpfs, sandboxPerFile, seedWindow } from './fixtures/sandbox.js';

/*
 * The disk fills up while the collector writes snapshots. Two ways: SQLite's own size limit (PRAGMA
 * max_page_count: portable, no privileges; SQLite answers SQLITE_FULL exactly as for a full disk), and, where this
 * process may mount filesystems (root with CAP_SYS_ADMIN, as in the CI container), a real ENOSPC from a tmpfs
 * shrunk to just above what the file holds. Either way: a clear error, a file that opens clean with whole
 * snapshots only, and once there is room again the next run fills the gap.
 */
const sandbox = sandboxPerFile();
const dir = mkdtempSync(join(tmpdir(), 'ledger-full-'));

const seed = (db: Db, hours: number) => seedFromSandbox({ ...seedWindow(sandbox(), hours), db, quiet: true });

/** Seeds 2 h, lets `fill` take the room away, seeds on to 8 h (which must fail), returns the error. */
async function fillUp(db: Db, fill: () => void): Promise<unknown> {
  await seed(db, 2);
  expect(snapshotTimes(db)).toHaveLength(24);
  fill();
  return seed(db, 8).then(
    () => null,
    (err: unknown) => err,
  );
}

/** After the failure, with room again: clean, whole, no hole; then the next run fills the gap. */
async function checkAndResume(path: string): Promise<void> {
  const db = openDb({ path });
  try {
    expect(integrity(db)).toEqual({ integrity: ['ok'], foreignKeys: [] });
    expect(incompleteSnapshots(db)).toEqual([]);
    const times = snapshotTimes(db);
    expect(times.length).toBeGreaterThan(24); // it failed part way through the snapshots, not before them
    expect(times.length).toBeLessThan(96);
    const sc = sandbox().scenario;
    expect(times).toEqual(times.map((_, i) => sc.start + i * sc.stepMs));
    await seed(db, 8);
    expect(snapshotTimes(db)).toEqual(Array.from({ length: 96 }, (_, i) => sc.start + i * sc.stepMs));
    expect(incompleteSnapshots(db)).toEqual([]);
  } finally {
    db.close();
  }
}

function expectFullDiskError(err: unknown, path: string): void {
  expect((err as { code?: string } | null)?.code).toBe('SQLITE_FULL');
  const explained = explainDbError(err, path);
  expect(explained).toBeInstanceOf(DbAccessError);
  expect((explained as Error).message).toBe(
    `cannot use the database ${path}: the disk (or the file's size limit) is full: free space and run again; what was written before is intact (SQLITE_FULL: database or disk is full)`,
  );
}

describe('a full disk while collecting', () => {
  it('SQLite size limit (PRAGMA max_page_count): SQLITE_FULL, a clean file, and the gap filled once there is room', async () => {
    const path = join(dir, 'limited.db');
    const db = openDb({ path });
    const err = await fillUp(db, () => {
      // 60 pages (240 KB) more than the file holds now: the run's prices (spot history of every admitted type) and a
      // few snapshots (each with its pods, versioned objects and events), then full.
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages + 60}`);
    });
    db.close(); // the limit belongs to this connection: a new one has room again
    expectFullDiskError(err, path);
    await checkAndResume(path);
  }, 60_000);

  const mountable = canMountTmpfs();

  it.skipIf(!mountable)(
    'a real ENOSPC (tmpfs shrunk to what the file holds): SQLITE_FULL, a clean file, and the gap filled once grown (needs root and tmpfs mounts)',
    async () => {
      const mnt = join(dir, 'tmpfs');
      mkdirSync(mnt);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0755', 'tmpfs', mnt]);
      try {
        const path = join(mnt, 'ledger.db');
        const db = openDb({ path });
        const err = await fillUp(db, () => {
          // Leave 256 KB: the WAL then cannot grow by the few snapshots that follow.
          const fs = statfsSync(mnt);
          const usedKb = Math.ceil(((fs.blocks - fs.bfree) * fs.bsize) / 1024);
          execFileSync('mount', ['-o', `remount,size=${usedKb + 256}k`, mnt]);
        });
        expectFullDiskError(err, path);
        try {
          db.close();
        } catch {
          // closing checkpoints the WAL, which may itself need room that is not there
        }
        execFileSync('mount', ['-o', 'remount,size=64m', mnt]); // free space
        await checkAndResume(path);
      } finally {
        execFileSync('umount', ['-l', mnt]);
      }
    },
    60_000,
  );
});
