import type { Db } from '../open-db.js';

/** The row of a lock: who holds it and when it last said it was alive. Times are epoch ms. */
export interface LockHolder {
  name: string;
  owner: string;
  pid: number;
  hostname: string;
  command: string;
  acquiredAt: number;
  heartbeatAt: number;
}

interface LockRow {
  name: string;
  owner: string;
  pid: number;
  hostname: string;
  command: string;
  acquired_at: number;
  heartbeat_at: number;
}

const toHolder = (r: LockRow): LockHolder => ({
  name: r.name,
  owner: r.owner,
  pid: r.pid,
  hostname: r.hostname,
  command: r.command,
  acquiredAt: r.acquired_at,
  heartbeatAt: r.heartbeat_at,
});

/** All SQL for the `locks` table. */
export function createLockRepository(db: Db) {
  const select = db.prepare('SELECT name, owner, pid, hostname, command, acquired_at, heartbeat_at FROM locks WHERE name = ?');
  const upsert = db.prepare(`
    INSERT INTO locks (name, owner, pid, hostname, command, acquired_at, heartbeat_at) VALUES (@name, @owner, @pid, @hostname, @command, @acquiredAt, @heartbeatAt)
    ON CONFLICT(name) DO UPDATE SET owner=excluded.owner, pid=excluded.pid, hostname=excluded.hostname, command=excluded.command,
      acquired_at=excluded.acquired_at, heartbeat_at=excluded.heartbeat_at`);
  const beat = db.prepare('UPDATE locks SET heartbeat_at = ? WHERE name = ? AND owner = ?');
  const remove = db.prepare('DELETE FROM locks WHERE name = ? AND owner = ?');

  /**
   * Takes the lock unless a live holder has it, deciding and writing in one BEGIN IMMEDIATE transaction: of two
   * processes racing, the second waits for the first's write and then sees its row. Returns the holder that kept
   * it, or null when `me` now holds it.
   */
  const tryTake = db.transaction((me: LockHolder, isLive: (holder: LockHolder) => boolean): LockHolder | null => {
    const row = select.get(me.name) as LockRow | undefined;
    if (row !== undefined && row.owner !== me.owner && isLive(toHolder(row))) return toHolder(row);
    upsert.run(me);
    return null;
  });

  return {
    tryTake: (me: LockHolder, isLive: (holder: LockHolder) => boolean): LockHolder | null => tryTake.immediate(me, isLive),
    holder: (name: string): LockHolder | null => {
      const row = select.get(name) as LockRow | undefined;
      return row === undefined ? null : toHolder(row);
    },
    /** Refreshes the heartbeat; false when the lock is no longer this owner's (taken over as stale). */
    heartbeat: (name: string, owner: string, at: number): boolean => beat.run(at, name, owner).changes === 1,
    release: (name: string, owner: string): void => {
      remove.run(name, owner);
    },
  };
}

export type LockRepository = ReturnType<typeof createLockRepository>;
