import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from './open-db.js';
import { createDisruptionsRepository } from './repositories/disruptions-repository.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ledger-db-'));

describe('migrations', () => {
  it('create every table on a fresh file, with WAL and foreign keys on', () => {
    const db = openDb({ path: join(tmp(), 'fresh.db') });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(
      expect.arrayContaining([
        'nodes',
        'pod_rows',
        'pod_dims',
        'snapshots',
        'snapshot_node_rows',
        'node_dims',
        'snapshot_nodepools',
        'snapshot_namespaces',
        'cost_lines',
        'prices',
        'events',
        'nodeclaims',
        'nodepools',
      ]),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(loadMigrations().at(-1)?.version);
    db.close();
  });

  it('leave an existing file and its rows alone, and apply only newer migrations', () => {
    const dir = tmp();
    const path = join(dir, 'existing.db');
    const first = openDb({ path });
    first.prepare("INSERT INTO settings (key, value) VALUES ('kept', 'yes')").run();
    first.close();

    // Reopening applies nothing; a new migration file is applied once, on top of the data.
    const again = openDb({ path });
    expect(migrate(again)).toEqual([]);
    const migDir = join(dir, 'migrations');
    mkdirSync(migDir);
    for (const m of loadMigrations()) writeFileSync(join(migDir, `${String(m.version).padStart(4, '0')}-${m.name}.sql`), m.sql);
    writeFileSync(join(migDir, '9999-extra.sql'), 'CREATE TABLE extra (id INTEGER PRIMARY KEY);');
    expect(migrate(again, loadMigrations(migDir))).toEqual([9999]);
    expect(migrate(again, loadMigrations(migDir))).toEqual([]);
    expect(again.prepare("SELECT value FROM settings WHERE key = 'kept'").pluck().get()).toBe('yes');
    again.close();
  });

  it('roll back a failing migration whole', () => {
    const dir = tmp();
    const db = new Database(join(dir, 'broken.db'));
    expect(() =>
      migrate(db, [
        { version: 1, name: 'ok', sql: 'CREATE TABLE a (x);' },
        { version: 2, name: 'bad', sql: 'CREATE TABLE b (y); INSERT INTO nope VALUES (1);' },
      ]),
    ).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'b'").pluck().get()).toBe(0);
    db.close();
  });

  describe('a migration marked "-- foreign_keys: off" (0029 rebuilds parent tables)', () => {
    const parentAndChild = {
      version: 1,
      name: 'tables',
      sql: 'CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid INTEGER REFERENCES p(id) ON DELETE CASCADE); INSERT INTO p VALUES (1); INSERT INTO c VALUES (1);',
    };
    const rebuild = (copy: string) => ({
      version: 2,
      name: 'rebuild',
      sql: `-- foreign_keys: off\nCREATE TABLE p_new (id INTEGER PRIMARY KEY, k INTEGER NOT NULL DEFAULT 1); INSERT INTO p_new (id) ${copy}; DROP TABLE p; ALTER TABLE p_new RENAME TO p;`,
    });

    it('rebuilds a parent without cascading into its children, keys on again after', () => {
      const db = new Database(join(tmp(), 'rebuild.db'));
      db.pragma('foreign_keys = ON');
      expect(migrate(db, [parentAndChild, rebuild('SELECT id FROM p')])).toEqual([1, 2]);
      expect(db.prepare('SELECT pid FROM c').pluck().all()).toEqual([1]);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      db.close();
    });

    it('is refused whole when it leaves a key naming no row, saying which', () => {
      const db = new Database(join(tmp(), 'dangling.db'));
      db.pragma('foreign_keys = ON');
      expect(() => migrate(db, [parentAndChild, rebuild('SELECT id FROM p WHERE id <> 1')])).toThrow(
        'migration 2-rebuild left 1 rows whose key names no row (first: c -> p)',
      );
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      expect(db.prepare('SELECT id FROM p').pluck().all()).toEqual([1]);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      db.close();
    });
  });
});

describe('a new ledger is a copy of the migrated template', () => {
  /** Everything a ledger holds but the clock's: its schema, its version and vacuum mode, and every table's rows. */
  const contents = (db: Database.Database) => {
    const schema = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all();
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    const rows = Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}"`).all()]));
    // Cluster 1's added_at is when the ledger was made: compared by the test that reads it.
    for (const c of rows.clusters as { added_at?: number }[]) delete c.added_at;
    return {
      schema,
      rows,
      userVersion: db.pragma('user_version', { simple: true }),
      autoVacuum: db.pragma('auto_vacuum', { simple: true }),
      foreignKeys: db.pragma('foreign_keys', { simple: true }),
    };
  };
  /** A new file as openDb made one before the template: SQLite creates it, every migration runs on it, then the kept disruptions are brought up to date. */
  const migratedStepByStep = (path: string): Database.Database => {
    const db = new Database(path);
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    expect(migrate(db)).toHaveLength(loadMigrations().length);
    createDisruptionsRepository(db).refresh();
    return db;
  };

  it('a new file and a new :memory: database hold what every migration run on an empty file makes', () => {
    const dir = tmp();
    const reference = migratedStepByStep(join(dir, 'step-by-step.db'));
    const expected = contents(reference);
    // incremental auto-vacuum (2), set before the first table as openDb sets it on a new file
    expect(expected.autoVacuum).toBe(2);
    expect((expected.rows.clusters as unknown[]).length).toBe(1);
    reference.close();
    // The second and third new ledgers of the process too (the template is made once).
    for (const name of ['one.db', 'two.db', ':memory:', 'three.db']) {
      const db = openDb({ path: name === ':memory:' ? name : join(dir, name) });
      expect(contents(db), name).toEqual(expected);
      expect(migrate(db), name).toEqual([]);
      db.close();
    }
    // Nothing left beside the files (the template is written aside, then linked into place).
    expect(readdirSync(dir).filter((f) => f.endsWith('.new'))).toEqual([]);
  });

  it('says when each copy was made: cluster 1 added now, not when the template was', async () => {
    openDb({ path: ':memory:' }).close(); // the template exists by now
    await new Promise((r) => setTimeout(r, 30));
    for (const path of [join(tmp(), 'stamped.db'), ':memory:']) {
      const before = Date.now();
      const db = openDb({ path });
      const addedAt = db.prepare('SELECT added_at FROM clusters WHERE id = 1').pluck().get() as number;
      expect(addedAt, path).toBeGreaterThanOrEqual(before);
      expect(addedAt, path).toBeLessThanOrEqual(Date.now());
      db.close();
    }
  });

  it('opens a file another process made meanwhile as it finds it, migrated or not', () => {
    const dir = tmp();
    // An older ledger already at the path: migrated from where it is, its rows kept.
    const path = join(dir, 'older.db');
    const older = new Database(path);
    migrate(
      older,
      loadMigrations().filter((m) => m.version <= 4),
    );
    older.prepare("INSERT INTO settings (key, value) VALUES ('kept', 'yes')").run();
    older.close();
    const db = openDb({ path });
    expect(db.pragma('user_version', { simple: true })).toBe(loadMigrations().at(-1)?.version);
    expect(db.prepare("SELECT value FROM settings WHERE key = 'kept'").pluck().get()).toBe('yes');
    db.close();
  });
});
