import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireCollectorLock, type HeldLock } from '../db/lock.js';
import { openDb, type Db } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { createReportsRepository } from '../db/repositories/reports-repository.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { SeedLockLostError, seedFromSandbox } from './seed-sandbox.js';

/**
 * The demo's seeding holds the file's collector lock; when another collector takes it over (the demo was silent
 * past the stale time, or thought gone), the seeding stops at its next write instead of writing beside the other
 * one. A real takeover through the lock table, the default sandbox read by the real clients.
 */

describe('seeding when the collector lock is taken over', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  let db: Db;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-seed-lock-'));
    sandbox = await startSandbox({ dir });
    Object.assign(process.env, sandbox.awsEnv);
    db = openDb({ path: join(dir, 'ledger.db') });
  }, 60_000);
  afterAll(async () => {
    db?.close();
    await sandbox?.close();
    process.env = savedEnv;
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops at the next write, keeps what it wrote, and records its run as failed with the reason', async () => {
    const lost: string[] = [];
    // The demo's lock, as if held by a process the next collector finds gone.
    const demoLock = acquireCollectorLock(db, { command: 'demo', pid: 2_000_000_001, onLost: (by) => lost.push(by?.command ?? '?') });
    let other: HeldLock | undefined;
    let asked = 0;
    const sc = sandbox.scenario;
    const seeding = seedFromSandbox({
      db,
      sandboxUrl: sandbox.url,
      kubeconfigPath: sandbox.kubeconfigPath,
      clusterName: sc.clusterName,
      region: sc.region,
      startMs: sc.start,
      endMs: sc.start + 12 * sc.stepMs,
      stepMs: sc.stepMs,
      quiet: true,
      confirm: () => {
        asked += 1;
        // After three snapshots, another collector takes the file over.
        if (asked === 4) other = acquireCollectorLock(db, { command: 'collect --watch', isPidAlive: () => false });
        return demoLock.confirm();
      },
    });
    await expect(seeding).rejects.toThrow(SeedLockLostError);
    await expect(seeding).rejects.toThrow('another collector took over this database after 3 snapshots');
    expect(lost).toEqual(['collect --watch']);
    expect(demoLock.held).toBe(false);
    expect(createKubeRepository(db).latestSnapshotAt()).toBe(sc.start + 2 * sc.stepMs);
    const run = createReportsRepository(db).lastRun();
    expect(run?.kind).toBe('demo');
    expect(run?.status).toBe('failed');
    expect(run?.message).toContain('took over');
    other?.release();
    demoLock.release();
  }, 60_000);
});
