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
});
