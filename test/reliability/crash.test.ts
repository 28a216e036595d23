import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { seedFromSandbox } from '../../cli/seed-sandbox.js';
import { acquireCollectorLock, COLLECTOR_LOCK } from '../../db/lock.js';
import { openDb } from '../../db/open-db.js';
import { createLockRepository } from '../../db/repositories/lock-repository.js';
import { createReportsRepository } from '../../db/repositories/reports-repository.js';
import { estimatedUsd, incompleteSnapshots, integrity, keptDisruptions, rollups, snapshotTimes } from './fixtures/db-checks.js';
import { sandboxPerFile, seedWindow } from './fixtures/sandbox.js';
import { childProcessArgs } from '../runner/compiled-cli.js';

/*
 * kill -9 of the collector mid-run: the collector is a separate process (the seeding loop, writing a snapshot per
 * simulated 5 minutes) against the sandbox in this process. After SIGKILL the file opens clean, holds only whole
 * snapshots, the dead collector's lock is taken over (its run, left 'running', is closed as abandoned), and the
 * next run fills the gap: the result equals a run that was never interrupted.
 */
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'seed-child.ts');
const HOURS = 12;
const sandbox = sandboxPerFile();
const dir = mkdtempSync(join(tmpdir(), 'ledger-crash-'));

const window = () => seedWindow(sandbox(), HOURS);

/** Snapshots stored so far, read through a connection of our own (WAL lets it read while the child writes). */
function storedCount(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    const db = openDb({ path, readonly: true });
    try {
      return db.prepare('SELECT COUNT(*) FROM snapshots').pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not created or not migrated yet
  }
}

describe('kill -9 of the collector mid-snapshot', () => {
  it('leaves a clean file with whole snapshots only; the next run takes over the lock and fills the gap', async () => {
    const path = join(dir, 'killed.db');
    const child = spawn(process.execPath, [...childProcessArgs(CHILD), JSON.stringify({ ...window(), dbPath: path })], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

    // Kill it once a few dozen snapshots are in: it is then writing one every few milliseconds.
    const deadline = Date.now() + 60_000;
    while (storedCount(path) < 30) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the collector did not get going: ${stderr}`);
      await new Promise((r) => setTimeout(r, 15));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // Whatever the kill cut, each snapshot's disruptions landed with it or not at all: nothing pending, and the kept
    // rows equal a whole build from what is stored. Read before any writer opens the file (it would rebuild them).
    const ro = openDb({ path, readonly: true });
    try {
      const d = keptDisruptions(ro);
      expect(d.pendingFromMs).toBeNull();
      expect(d.kept.length).toBeGreaterThan(0);
      expect(d.kept).toEqual(d.builtWhole);
    } finally {
      ro.close();
    }

    const db = openDb({ path });
    try {
      expect(integrity(db)).toEqual({ integrity: ['ok'], foreignKeys: [] });
      expect(incompleteSnapshots(db)).toEqual([]);
      const times = snapshotTimes(db);
      const total = HOURS * 12;
      expect(times.length).toBeGreaterThanOrEqual(30);
      expect(times.length).toBeLessThan(total); // killed part way
      // Whole snapshots, in order, from the start, with no hole: everything up to the kill.
      const sc = sandbox().scenario;
      expect(times).toEqual(times.map((_, i) => sc.start + i * sc.stepMs));

      // The dead collector's lock row is still there, and so is its run, 'running' for ever were nobody to close it.
      expect(createLockRepository(db).holder(COLLECTOR_LOCK)).toMatchObject({ command: 'seed-child', pid: child.pid });
      const killedRun = () =>
        createReportsRepository(db)
          .lastRunPerKind()
          .find((r) => r.kind === 'demo');
      expect(killedRun()).toMatchObject({ status: 'running', finishedAtMs: null });
      const runId = killedRun()?.id;
      // The next collector takes the lock over (its pid is gone) and closes that run as abandoned, naming it.
      const lock = acquireCollectorLock(db, { command: 'demo', dbPath: path });
      expect(killedRun()).toMatchObject({
        id: runId,
        status: 'abandoned',
        finishedAtMs: lock.holder.acquiredAt,
        message: expect.stringMatching(
          new RegExp(
            `^collector stopped without finishing \\(killed\\?\\): "seed-child" \\(pid ${child.pid} on [^)]+\\) last alive 20\\d\\d-`,
          ),
        ),
      });
      await seedFromSandbox({ ...window(), db, quiet: true });
      lock.release();
      expect(killedRun()).toMatchObject({ status: 'ok' }); // the new run, finished; the abandoned one stays as it was
      expect(snapshotTimes(db)).toHaveLength(total);
      expect(incompleteSnapshots(db)).toEqual([]);

      // Equal to a run that was never interrupted (prices within 0.1%: spot changes are seen at hourly refreshes,
      // which a resumed run makes at other times).
      const calm = openDb({ path: join(dir, 'calm.db') });
      try {
        await seedFromSandbox({ ...window(), db: calm, quiet: true });
        expect(rollups(db)).toEqual(rollups(calm));
        expect(keptDisruptions(db).kept).toEqual(keptDisruptions(calm).kept);
        expect(Math.abs(estimatedUsd(db) / estimatedUsd(calm) - 1)).toBeLessThan(0.001);
      } finally {
        calm.close();
      }
    } finally {
      db.close();
    }
  }, 120_000);
});
