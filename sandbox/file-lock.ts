import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/*
 * A lock file beside something two processes may both want to make (a simulated history, a seeded ledger): the first
 * to create `<file>.lock` makes it, the others wait for its file. The holder's pid is in the lock, so a lock whose
 * process is gone is taken over; one held past the caller's deadline is too.
 */

/** Signal 0 tests for existence; EPERM means the pid exists but belongs to another user. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One try at `lock`: 'held' (this process holds it now, its pid written: release it with releaseFileLock), 'wait'
 * (another live process holds it), 'again' (it was released, or its dead or overdue holder's lock removed, just now:
 * try again at once), or 'none' (the folder takes no lock, read-only or full: go on without it, which only costs the
 * sharing).
 */
export function tryFileLock(lock: string, deadlineMs: number): 'held' | 'wait' | 'again' | 'none' {
  let fd: number;
  try {
    mkdirSync(dirname(lock), { recursive: true });
    fd = openSync(lock, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return 'none';
    let owner: number;
    try {
      owner = Number(readFileSync(lock, 'utf8')); // empty for a moment after its owner made it
    } catch {
      return 'again'; // released meanwhile
    }
    if ((Number.isInteger(owner) && owner > 0 && !alive(owner)) || Date.now() > deadlineMs) {
      rmSync(lock, { force: true });
      return 'again';
    }
    return 'wait';
  }
  writeSync(fd, String(process.pid));
  closeSync(fd);
  return 'held';
}

export const releaseFileLock = (lock: string): void => rmSync(lock, { force: true });
