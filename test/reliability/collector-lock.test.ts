import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireCollectorLock, CollectorLockedError, COLLECTOR_LOCK, isHolderLive, type HeldLock } from '../../db/lock.js';
import { openDb, type Db } from '../../db/open-db.js';
import { createLockRepository, type LockHolder } from '../../db/repositories/lock-repository.js';
import { createReportsRepository } from '../../db/repositories/reports-repository.js';
import { createRunsRepository } from '../../db/repositories/runs-repository.js';
import { childProcessArgs } from '../runner/compiled-cli.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'lock-child.ts');
const tmpDb = (): string => join(mkdtempSync(join(tmpdir(), 'ledger-lock-')), 'ledger.db');

const open: Db[] = [];
const locks: HeldLock[] = [];
afterEach(() => {
  for (const l of locks.splice(0)) l.release();
  for (const db of open.splice(0)) db.close();
});
const db = (path: string): Db => {
  const d = openDb({ path });
  open.push(d);
  return d;
};
const take = (d: Db, opts: Parameters<typeof acquireCollectorLock>[1]): HeldLock => {
  const l = acquireCollectorLock(d, opts);
  locks.push(l);
  return l;
};
/** A pid that certainly is gone: a process that ran and was reaped. */
const deadPid = (): number => {
  const r = spawnSync(process.execPath, ['-e', '']);
  if (r.pid === undefined) throw new Error('could not start a process');
  return r.pid;
};

describe('isHolderLive', () => {
  const holder: LockHolder = {
    name: COLLECTOR_LOCK,
    owner: 'o',
    pid: 10,
    hostname: 'a',
    command: 'demo',
    acquiredAt: 0,
    heartbeatAt: 1_000,
  };
  it.each([
    // [why, now ms, this host, pid alive, live]
    ['fresh heartbeat, same host, pid alive', 60_000, 'a', true, true],
    ['fresh heartbeat, same host, pid gone (killed)', 60_000, 'a', false, false],
    ['fresh heartbeat, other host: the pid cannot be checked there', 60_000, 'b', false, true],
    ['heartbeat 120 s old: not stale yet (limit is "older than")', 121_000, 'b', true, true],
    ['heartbeat 120.001 s old on another host', 121_001, 'b', true, false],
    ['heartbeat stale though the pid is alive (a reused pid)', 121_001, 'a', true, false],
  ])('%s', (_why, now, host, alive, live) => {
    expect(isHolderLive(holder, now, 120_000, host, () => alive)).toBe(live);
  });
});

describe('the collector lock', () => {
  it('refuses a second holder with a message naming the first, then lets it in once released', () => {
    const path = tmpDb();
    const first = take(db(path), { command: 'demo', dbPath: path });
    const other = db(path);
    let refusal: unknown;
    try {
      take(other, { command: 'collect', dbPath: path });
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(CollectorLockedError);
    const message = (refusal as Error).message;
    expect(message).toContain(`${path} is in use by another collector: "demo" (pid ${process.pid}`);
    expect(message).toMatch(/last alive \d+ s ago\)\. Wait for it to finish or stop it/);

    first.release();
    const second = take(other, { command: 'collect', dbPath: path });
    expect(createLockRepository(other).holder(COLLECTOR_LOCK)).toMatchObject({ owner: second.holder.owner, command: 'collect' });
  });

  it('takes over from a holder whose process is gone (kill -9 leaves the row behind)', () => {
    const path = tmpDb();
    const d = db(path);
    const pid = deadPid();
    const ghost = take(d, { command: 'demo', pid });
    expect(ghost.held).toBe(true);
    const next = take(d, { command: 'collect' });
    expect(createLockRepository(d).holder(COLLECTOR_LOCK)).toMatchObject({ owner: next.holder.owner, pid: process.pid });
  });

  it('takes over from another host only once its heartbeat is stale', () => {
    const path = tmpDb();
    const d = db(path);
    let now = 1_000_000;
    take(d, { command: 'collect --watch', hostname: 'pod-a', pid: 1, now: () => now });
    now += 60_000;
    expect(() => take(d, { command: 'collect', hostname: 'pod-b', now: () => now })).toThrow(/pid 1 on pod-a.*last alive 60 s ago/);
    now += 61_000;
    take(d, { command: 'collect', hostname: 'pod-b', now: () => now });
    expect(createLockRepository(d).holder(COLLECTOR_LOCK)?.hostname).toBe('pod-b');
  });

  it('keeps a live holder alive with heartbeats, and tells a holder that was taken over', async () => {
    const path = tmpDb();
    const d = db(path);
    let now = 5_000_000;
    const lost: (LockHolder | null)[] = [];
    const a = take(d, { command: 'demo', hostname: 'pod-a', heartbeatMs: 10, now: () => now, onLost: (by) => lost.push(by) });
    now += 100_000;
    await new Promise((r) => setTimeout(r, 50));
    expect(createLockRepository(d).holder(COLLECTOR_LOCK)?.heartbeatAt).toBe(now);

    // Silent past the stale limit (say, a frozen pod): another host takes over, and the first learns of it.
    now += 121_000;
    const b = take(d, { command: 'collect', hostname: 'pod-b', now: () => now });
    await new Promise((r) => setTimeout(r, 50));
    expect(a.held).toBe(false);
    expect(lost).toEqual([expect.objectContaining({ owner: b.holder.owner, hostname: 'pod-b' })]);
    a.release(); // must not remove b's row
    expect(createLockRepository(d).holder(COLLECTOR_LOCK)?.owner).toBe(b.holder.owner);
  });

  /** [kind, status, finishedAtMs, message] of the newest run of each kind. */
  const runsOf = (d: Db) =>
    createReportsRepository(d)
      .lastRunPerKind()
      .map((r) => [r.kind, r.status, r.finishedAtMs, r.message]);

  it('closes the runs a holder whose process is gone left running (as abandoned, naming it); finished runs stay as they were', () => {
    const d = db(tmpDb());
    const runs = createRunsRepository(d);
    const pid = deadPid();
    take(d, { command: 'collect --watch', pid });
    runs.startRun('kubernetes', 'aws', 1_000);
    runs.finishRun(runs.startRun('cost-explorer', 'aws', 1_000), 'ok', 12, null, 2_000);
    runs.startRun('pricing', 'aws', 1_500);

    const next = take(d, { command: 'collect' });
    const at = next.holder.acquiredAt;
    const why = `collector stopped without finishing (killed?): "collect --watch" (pid ${pid} on ${next.holder.hostname}) last alive 20`;
    expect(runsOf(d)).toEqual([
      ['cost-explorer', 'ok', 2_000, null],
      ['kubernetes', 'abandoned', at, expect.stringContaining(why)],
      ['pricing', 'abandoned', at, expect.stringContaining(why)],
    ]);
    // The new holder's own runs are its own business: a run it starts stays running.
    runs.startRun('kubernetes', 'aws');
    expect(runsOf(d)[1]).toEqual(['kubernetes', 'running', null, null]);
  });

  it("leaves a live holder's running runs alone when refusing a second collector", () => {
    const path = tmpDb();
    const d = db(path);
    take(d, { command: 'demo' });
    createRunsRepository(d).startRun('demo', 'sandbox', 1_000);
    expect(() => take(db(path), { command: 'collect' })).toThrow(CollectorLockedError);
    expect(runsOf(d)).toEqual([['demo', 'running', null, null]]);
  });

  it('closes the runs of a holder on another host once it is taken over as stale', () => {
    const d = db(tmpDb());
    let now = 1_000_000;
    take(d, { command: 'collect --watch', hostname: 'pod-a', pid: 1, now: () => now });
    createRunsRepository(d).startRun('kubernetes', 'aws', now);
    now += 121_000;
    take(d, { command: 'collect', hostname: 'pod-b', now: () => now });
    expect(runsOf(d)).toEqual([
      [
        'kubernetes',
        'abandoned',
        1_121_000,
        'collector stopped without finishing (killed?): "collect --watch" (pid 1 on pod-a) last alive 1970-01-01T00:16:40.000Z',
      ],
    ]);
  });

  it('lets exactly one of two processes started at once on a new file win; the other says why', async () => {
    for (let round = 0; round < 3; round++) {
      const path = tmpDb();
      const startAt = Date.now() + 1_500;
      const run = (command: string) =>
        new Promise<{ won: boolean; pid: number; message?: string }>((resolve, reject) => {
          const child = spawn(process.execPath, [...childProcessArgs(CHILD), path, command, '800', String(startAt)], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
          });
          child.stderr.on('data', (c: Buffer) => {
            err += c.toString();
          });
          child.on('exit', (code) =>
            code === 0
              ? resolve(JSON.parse(out) as { won: boolean; pid: number; message?: string })
              : reject(new Error(`child exited ${code}: ${err}`)),
          );
        });
      const results = await Promise.all([run('collect'), run('demo')]);
      expect(results.filter((r) => r.won)).toHaveLength(1);
      const winner = results.find((r) => r.won);
      const loser = results.find((r) => !r.won);
      expect(loser?.message).toContain(`is in use by another collector`);
      expect(loser?.message).toContain(`(pid ${winner?.pid} on `);
    }
  }, 45_000);
});
