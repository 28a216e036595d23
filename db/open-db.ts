import Database from 'better-sqlite3';
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DbAccessError, explainDbError } from './db-errors.js';
import { createDisruptionsRepository } from './repositories/disruptions-repository.js';

export type Db = Database.Database;

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Migrations on disk, `NNNN-name.sql`, in version order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((file) => /^(\d{4})-(.+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2], sql: readFileSync(join(dir, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** A migration's first line asking to run with foreign keys off (see migrate). */
const FOREIGN_KEYS_OFF = /^-- foreign_keys: off\r?\n/;

/** Applies every migration newer than the file's `user_version`, each in its own transaction. Returns versions applied. */
export function migrate(db: Db, migrations = loadMigrations()): number[] {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  const applied: number[] = [];
  if (migrations.every((m) => m.version <= version())) return applied;
  for (const m of migrations) {
    // A migration that rebuilds a parent table (a new table, the rows copied, the old dropped, the new renamed) runs
    // with foreign keys off, as SQLite's own procedure says: with them on, dropping the old parent would cascade-delete
    // its children's rows. The pragma is a no-op inside a transaction, so it is set around it, and every key is
    // checked before the migration commits.
    const keysOff = FOREIGN_KEYS_OFF.test(m.sql);
    const keysWere = db.pragma('foreign_keys', { simple: true }) as number;
    if (keysOff) db.pragma('foreign_keys = OFF');
    try {
      // IMMEDIATE, and the version read again inside: two processes opening a new file at once must not both run
      // a migration (the second would fail on "table already exists"); the second waits, then skips it.
      const ran = db
        .transaction(() => {
          if (m.version <= version()) return false;
          db.exec(m.sql);
          if (keysOff) {
            const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
            if (broken.length > 0)
              throw new Error(
                `migration ${m.version}-${m.name} left ${broken.length} rows whose key names no row (first: ${broken[0].table} -> ${broken[0].parent})`,
              );
          }
          db.pragma(`user_version = ${m.version}`);
          return true;
        })
        .immediate();
      if (ran) applied.push(m.version);
    } finally {
      if (keysOff) db.pragma(`foreign_keys = ${keysWere ? 'ON' : 'OFF'}`);
    }
  }
  return applied;
}

export interface OpenDbOptions {
  path: string;
  /**
   * Read only (`serve`): nothing is written, not even a migration, so a file of another schema version is refused
   * with what to run; a writer (collect, demo) migrates it.
   */
  readonly?: boolean;
}

/** The schema version this build reads and writes: the newest migration's. */
export const SCHEMA_VERSION = loadMigrations().reduce((v, m) => Math.max(v, m.version), 0);

/** A read-only open of a file whose schema is not this build's. */
export class SchemaVersionError extends DbAccessError {}

function checkSchema(db: Db, path: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION) return;
  const message =
    version < SCHEMA_VERSION
      ? `${path} was written by an older nodepool-ledger (schema ${version}; this one reads ${SCHEMA_VERSION}) and serve never ` +
        `writes: run 'nodepool-ledger collect' (or 'demo') on it once, which upgrades it, then serve it`
      : `${path} was written by a newer nodepool-ledger (schema ${version}; this one reads up to ${SCHEMA_VERSION}): upgrade nodepool-ledger`;
  throw new SchemaVersionError(message, 'SCHEMA_VERSION', path);
}

const WAL_WAIT_MS = 15_000;

/**
 * `journal_mode = WAL`, waiting while another process holds the lock it needs. Switching a new file to WAL takes an
 * exclusive lock, and SQLite answers SQLITE_BUSY at once to a second process switching it at the same moment
 * (the busy timeout is not consulted there), so two collectors started together on a new file would crash one.
 */
function toWal(db: Db): void {
  const until = Date.now() + WAL_WAIT_MS;
  for (let pauseMs = 5; ; pauseMs = Math.min(pauseMs * 2, 200)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() + pauseMs > until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pauseMs);
    }
  }
}

/** A file without a single page yet: a new database (its header and mode are still to be written). */
const isEmptyFile = (db: Db): boolean => (db.pragma('page_count', { simple: true }) as number) === 0;

/**
 * A new ledger, migrated, as bytes: every migration run once per process on an empty database in memory, then copied
 * into each new database the process makes. The migrations rebuild tables (0029 renames fourteen, and each rename or
 * added column re-reads the whole schema): about 115 ms of CPU for a new ledger, which the test suite makes hundreds
 * of. Made as openDb makes a new file (incremental auto-vacuum before the first table, foreign keys on); the one
 * value a migration takes from the clock, cluster 1's `added_at`, is set again for each copy (newLedgerFromTemplate).
 */
let template: Buffer | null = null;
function migratedTemplate(): Buffer {
  if (template === null) {
    const db = new Database(':memory:');
    try {
      db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
      template = db.serialize();
    } finally {
      db.close();
    }
  }
  return template;
}

/** Cluster 1's `added_at`, as migration 0029 sets it: when the ledger was made (epoch ms). */
const stampNewLedger = (db: Db): void => {
  db.prepare('UPDATE clusters SET added_at = ? WHERE id = 1').run(Date.now());
};

/**
 * The migrated template written to `path` when nothing is there yet: written aside and linked into place, so that
 * another process opening the same new file sees a whole database or none (link fails when the path exists: that
 * one's file is used). True when this call made the file; false when it was not new or could not be written here
 * (a read-only or full folder, a filesystem without hard links): the open then goes on as before, and SQLite
 * creates and migrates the file, or names what stops it.
 */
function newLedgerFromTemplate(path: string): boolean {
  if (path === '' || existsSync(path)) return false;
  const aside = `${path}.${process.pid}.new`;
  try {
    writeFileSync(aside, migratedTemplate(), { flag: 'wx', mode: 0o644 });
    linkSync(aside, path);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Opens (creating if needed) the ledger database with WAL, foreign keys and a busy timeout, migrates it and brings
 * its kept disruptions up to date; read-only, it checks the schema and writes nothing.
 */
export function openDb({ path, readonly = false }: OpenDbOptions): Db {
  let db: Db | undefined;
  try {
    // A new ledger starts as a copy of the migrated template (in memory for ':memory:'): nothing left to migrate.
    const inMemory = path === ':memory:';
    const fromTemplate = !readonly && (inMemory || newLedgerFromTemplate(path));
    db = inMemory && fromTemplate ? new Database(migratedTemplate()) : new Database(path, { readonly, fileMustExist: readonly });
    // Collectors, the server and a second process opening the file share it; a slow machine can hold a write
    // lock for seconds, so waiting is better than failing a snapshot.
    db.pragma('busy_timeout = 15000');
    if (!readonly) {
      // A new file frees the pages of what retention deletes (incremental_vacuum after a fold), so it shrinks as it
      // folds. This takes only before the first table (and before WAL, whose switch writes the header): an existing
      // file keeps its mode until the collector's one-time VACUUM (cli/retention-stage.ts upgradeToIncrementalVacuum).
      if (isEmptyFile(db)) db.pragma('auto_vacuum = INCREMENTAL');
      toWal(db);
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    if (readonly) checkSchema(db, path);
    else {
      if (fromTemplate) stampNewLedger(db);
      migrate(db);
      // A migration that changes what a disruption is leaves the kept ones to rebuild: a writer does it once, here,
      // so that a reader never has to (a no-op when they are up to date).
      createDisruptionsRepository(db).refresh();
    }
    return db;
  } catch (err) {
    // A file SQLite could only open read-only (permissions) fails here, on the first write: say which and why.
    db?.close();
    throw explainDbError(err, path);
  }
}
