import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from './open-db.js';

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
