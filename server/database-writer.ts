import { DbAccessError, explainDbError } from '../db/db-errors.js';
import { acquireCollectorLock, CollectorLockedError, type HeldLock } from '../db/lock.js';
import { type Db, openDb } from '../db/open-db.js';

/**
 * How the server writes, for the few user actions that do (a bill CSV import): never on the connection it reads
 * with, and only under the collector lock, so that a write never interleaves with a collector's and a reader never
 * writes. `serve` reads a read-only connection; it opens a writable one per action and takes the lock for it.
 * `demo` is itself the collector: it writes on its own connection under the lock it already holds.
 */
export interface DatabaseWriter {
  /** Runs `write` on a writable connection while the collector lock is held; throws DatabaseWriteError when it cannot. */
  write<T>(what: string, write: (db: Db) => T): T;
}

/** A write the server could not make: 409 while a collector holds the file, 503 when the file cannot be written. */
export class DatabaseWriteError extends Error {
  constructor(
    readonly statusCode: 409 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseWriteError';
  }
}

function refused(what: string, err: unknown): DatabaseWriteError {
  const explained = explainDbError(err);
  if (explained instanceof CollectorLockedError)
    return new DatabaseWriteError(409, `${what} writes to the database, and ${explained.message}`);
  if (explained instanceof DbAccessError) return new DatabaseWriteError(503, `${what} writes to the database: ${explained.message}`);
  return new DatabaseWriteError(503, `${what} could not write to the database: ${(err as Error).message}`);
}

/** Runs `write` under the collector lock on a connection `connect` gives (and `done` puts away). */
function underLock<T>(what: string, path: string | undefined, connect: () => Db, done: (db: Db) => void, write: (db: Db) => T): T {
  let db: Db | undefined;
  let lock: HeldLock | undefined;
  try {
    db = connect();
    lock = acquireCollectorLock(db, { command: what, dbPath: path });
    return write(db);
  } catch (err) {
    // The action's own refusals (a bad file) pass through; the database's refusals say what to do.
    if (err instanceof CollectorLockedError || explainDbError(err, path) instanceof DbAccessError) throw refused(what, err);
    throw err;
  } finally {
    lock?.release();
    if (db !== undefined) done(db);
  }
}

/** For `serve`: a writable connection to `path` and the collector lock, for the action only. */
export function lockingWriter(path: string): DatabaseWriter {
  return {
    write: (what, write) =>
      underLock(
        what,
        path,
        () => openDb({ path }),
        (db) => db.close(),
        write,
      ),
  };
}

/** For an app built over a writable connection (tests, embedding): the collector lock taken on it for the action. */
export function sameConnectionWriter(db: Db): DatabaseWriter {
  return {
    write: (what, write) =>
      underLock(
        what,
        undefined,
        () => db,
        () => {},
        write,
      ),
  };
}

/** For `demo`: the process already holds the collector lock on `db`; it is confirmed before each write. */
export function heldLockWriter(db: Db, lock: HeldLock): DatabaseWriter {
  return {
    write(what, write) {
      if (!lock.confirm())
        throw new DatabaseWriteError(409, `${what} writes to the database, and this process no longer holds its collector lock`);
      try {
        return write(db);
      } catch (err) {
        if (explainDbError(err) instanceof DbAccessError) throw refused(what, err);
        throw err;
      }
    },
  };
}
