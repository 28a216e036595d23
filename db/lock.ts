import { randomBytes } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { explainDbError } from './db-errors.js';
import type { Db } from './open-db.js';
import { createLockRepository, type LockHolder } from './repositories/lock-repository.js';
import { ABANDONED_RUN_MESSAGE, createRunsRepository } from './repositories/runs-repository.js';

/** The lock every writer of collected data takes: one collector per database file. */
export const COLLECTOR_LOCK = 'collector';

/** A holder silent for this long is taken over even if its pid seems alive (another host, or a reused pid). */
export const DEFAULT_STALE_MS = 120_000;
export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface LockOptions {
  /** What takes it, shown to the one refused: 'demo', 'collect', 'collect --watch'. */
  command: string;
  /** For the refusal message; default "this database". */
  dbPath?: string;
  staleMs?: number;
  heartbeatMs?: number;
  /** Called once if a heartbeat finds the lock taken over (this process was silent past staleMs). */
  onLost?: (by: LockHolder | null) => void;
  /** Test seams; default the wall clock, this process and this host. */
  now?: () => number;
  pid?: number;
  hostname?: string;
  isPidAlive?: (pid: number) => boolean;
}

export interface HeldLock {
  readonly holder: LockHolder;
  /** False once a heartbeat found the lock taken over. */
  readonly held: boolean;
  /**
   * Beats now rather than waiting for the timer: true while the lock is still this holder's. A writer calls it
   * before each write so that it stops within one write, not one heartbeat, of being taken over.
   */
  confirm(): boolean;
  /** Gives the lock back and stops the heartbeat; safe to call twice. */
  release(): void;
}

/** Another live collector holds the file; the message names it and says what to do. */
export class CollectorLockedError extends Error {
  constructor(
    readonly holder: LockHolder,
    dbPath: string | undefined,
    nowMs: number,
  ) {
    const ago = Math.max(0, Math.round((nowMs - holder.heartbeatAt) / 1000));
    super(
      `${dbPath ?? 'this database'} is in use by another collector: "${holder.command}" (pid ${holder.pid} on ${holder.hostname}, ` +
        `started ${new Date(holder.acquiredAt).toISOString()}, last alive ${ago} s ago). Wait for it to finish or stop it; ` +
        'a collector that died is taken over once its process is gone or its heartbeat is stale.',
    );
    this.name = 'CollectorLockedError';
  }
}

/** Signal 0 tests for existence; EPERM means the pid exists but belongs to another user. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a holder still counts: its heartbeat is recent and, when it is on this host, its process exists. A pid
 * can only be checked on its own host; elsewhere (a volume shared by pods) the heartbeat alone decides.
 */
export function isHolderLive(
  holder: LockHolder,
  nowMs: number,
  staleMs: number,
  thisHost: string,
  alive: (pid: number) => boolean,
): boolean {
  if (nowMs - holder.heartbeatAt > staleMs) return false;
  if (holder.hostname === thisHost && !alive(holder.pid)) return false;
  return true;
}

/** Why a run was left running, naming the holder found in the lock row when there was one. */
function abandonedMessage(before: LockHolder | null, myOwner: string): string {
  if (before === null || before.owner === myOwner) return ABANDONED_RUN_MESSAGE;
  return `${ABANDONED_RUN_MESSAGE}: "${before.command}" (pid ${before.pid} on ${before.hostname}) last alive ${new Date(before.heartbeatAt).toISOString()}`;
}

/**
 * Takes the collector lock on `db` or throws CollectorLockedError naming the live holder; runs left 'running' by
 * earlier holders are marked abandoned. While held, a heartbeat
 * (an unref'd timer: it never keeps the process alive) refreshes it; release() gives it back.
 */
export function acquireCollectorLock(db: Db, opts: LockOptions): HeldLock {
  const repo = createLockRepository(db);
  const now = opts.now ?? Date.now;
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const host = opts.hostname ?? osHostname();
  const alive = opts.isPidAlive ?? pidAlive;
  const t = now();
  const me: LockHolder = {
    name: COLLECTOR_LOCK,
    owner: randomBytes(12).toString('hex'),
    pid: opts.pid ?? process.pid,
    hostname: host,
    command: opts.command,
    acquiredAt: t,
    heartbeatAt: t,
  };
  const runs = createRunsRepository(db);
  // Taking the lock and closing the runs the last holder left 'running' (killed, or taken over) in one transaction:
  // a dashboard never shows a dead collector's run as in progress, nor a new holder's run as abandoned.
  const takeAndSweep = db.transaction((): LockHolder | null => {
    const before = repo.holder(COLLECTOR_LOCK);
    const kept = repo.tryTake(me, (h) => isHolderLive(h, t, staleMs, host, alive));
    if (kept === null) runs.abandonRunning(t, abandonedMessage(before, me.owner));
    return kept;
  });
  let kept: LockHolder | null;
  try {
    // The first write a collector makes: a read-only or full file fails here, before any work, with a clear error.
    kept = takeAndSweep.immediate();
  } catch (err) {
    throw explainDbError(err, opts.dbPath);
  }
  if (kept !== null) throw new CollectorLockedError(kept, opts.dbPath, t);

  let held = true;
  /** Refreshes the heartbeat; on finding the lock taken over, stops beating and tells onLost once. */
  const beat = (): boolean => {
    if (!held || !db.open) return held;
    try {
      if (repo.heartbeat(COLLECTOR_LOCK, me.owner, now())) return true;
      held = false;
      clearInterval(timer);
      opts.onLost?.(repo.holder(COLLECTOR_LOCK));
    } catch {
      // A busy or briefly unwritable file: the next beat tries again; staleMs is several beats long.
    }
    return held;
  };
  const timer = setInterval(beat, opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  timer.unref();

  return {
    holder: me,
    get held() {
      return held;
    },
    confirm: beat,
    release() {
      clearInterval(timer);
      if (held && db.open) repo.release(COLLECTOR_LOCK, me.owner);
      held = false;
    },
  };
}
