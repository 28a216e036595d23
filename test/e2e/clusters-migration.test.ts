import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb, type Db } from '../../db/open-db.js';
import { sandboxPracticeBills } from '../../sandbox/practice-bills.js';
import { buildApp } from '../../server/app.js';
import { getEveryRoute } from '../fixtures/every-get-route.js';
import { type SeededDb, seededDb } from '../fixtures/seeded-api.js';

/*
 * Migration 0029 (several clusters in one ledger) on a file made by the schema before it: three simulated days of the
 * sandbox through the real collectors (the shared seeded ledger), every row copied into a file built with the
 * migrations before 0029 only, that file opened by this build (which migrates it in place), and every GET route of
 * the API asked of both: each answers the same body. So every figure reads back unchanged, and every row is the one
 * cluster's.
 */

const CLUSTERS_MIGRATION = 29;
let seeded: SeededDb;
/** Each table's columns in the file of today's schema, before 0029 ran on it. */
let columnsBefore: Record<string, string[]>;
let migrated: Db;
const apps: FastifyInstance[] = [];
let referenceBase: string;
let migratedBase: string;

/** 0033's quarter-day rollup span. */
const QUARTER_DAY_MS = 6 * 3_600_000;

/** A file with today's schema (every migration before 0029) holding every row of `source`, as today's release wrote them. */
function fileOfTodaysSchema(source: Db, path: string): void {
  const old = new Database(path);
  // As openDb makes a new file (db/open-db.ts): pages freed incrementally.
  old.pragma('auto_vacuum = INCREMENTAL');
  migrate(
    old,
    loadMigrations().filter((m) => m.version < CLUSTERS_MIGRATION),
  );
  old.pragma('foreign_keys = OFF');
  old.prepare('ATTACH DATABASE ? AS src').run(source.name);
  const tables = old.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  old.transaction(() => {
    for (const t of tables) {
      const cols = (old.prepare(`SELECT name FROM pragma_table_info('${t}', 'main')`).pluck().all() as string[]).join(', ');
      // OR REPLACE: rows the migrations or the disruption triggers already wrote (disruptions_state) take the source's.
      // The quarter-day rollups (span 6 h) are 0033's, after 0029: a writer of that schema never wrote them, and 0033
      // fills them from the hours.
      const quarters = cols.split(', ').includes('span_ms') ? ` WHERE span_ms <> ${QUARTER_DAY_MS}` : '';
      old.exec(`INSERT OR REPLACE INTO main.${t} (${cols}) SELECT ${cols} FROM src.${t}${quarters}`);
    }
  })();
  old.exec('DETACH DATABASE src');
  columnsBefore = Object.fromEntries(
    tables.map((t) => [t, old.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]]),
  );
  old.close();
}

/** /api/status's store figures are the file's bytes (the copy's pages are laid out otherwise), not the ledger's. */
function withoutFileSize(body: string): string {
  return body.replace(/"fileBytes":\d+,"freeBytes":\d+/, '"fileBytes":0,"freeBytes":0');
}

async function serve(db: Db, nowMs: number): Promise<string> {
  const app = buildApp({ db, webRoot: join(seeded.dir, 'no-web'), now: () => nowMs, practiceBills: sandboxPracticeBills });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  seeded = await seededDb({ prefix: 'ledger-clusters-migration-', days: 3, usage: true });
  seeded.db.pragma('wal_checkpoint(TRUNCATE)');
  const path = join(seeded.dir, 'today.db');
  fileOfTodaysSchema(seeded.db, path);
  migrated = openDb({ path });
  referenceBase = await serve(seeded.db, seeded.endMs);
  migratedBase = await serve(migrated, seeded.endMs);
}, 420_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  migrated?.close();
  await seeded?.close();
});

describe('migration 0029 on a single-cluster ledger of today', () => {
  it('keeps every row of every table, each now the one cluster`s', () => {
    const tables = migrated.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    for (const t of tables) {
      const count = (db: Db) => db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number;
      // usage_sample_dims (0031) keeps the containers of samples pruned since (a collected ledger has 3 days' worth, a
      // migrated one those of the samples it holds): its rows are compared through the samples, every one of which
      // reads back below (usage_sample_rows' count, and the usage_samples view's rows).
      if (t === 'usage_sample_dims') continue;
      expect({ table: t, rows: count(migrated) }).toEqual({ table: t, rows: count(seeded.db) });
      const cols = migrated.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[];
      if (cols.includes('cluster_id') && t !== 'clusters')
        expect({ table: t, other: migrated.prepare(`SELECT COUNT(*) FROM ${t} WHERE cluster_id IS NOT 1`).pluck().get() }).toEqual({
          table: t,
          other: 0,
        });
    }
    expect(migrated.prepare('SELECT id, name, named_from FROM clusters').all()).toEqual([
      { id: 1, name: 'default', named_from: 'placeholder' },
    ]);
    const samples = (db: Db) =>
      db
        .prepare('SELECT * FROM usage_samples ORDER BY taken_at, namespace, pod, container')
        .all()
        .map((r) => ({ ...(r as object), sample_id: 0 }));
    expect(samples(migrated)).toEqual(samples(seeded.db));
    expect(migrated.pragma('foreign_key_check')).toEqual([]);
  });

  it('keeps every column of every table (a rebuilt table lists its columns: one added by a later migration must be there too)', () => {
    const lost: string[] = [];
    for (const [t, cols] of Object.entries(columnsBefore)) {
      const after = new Set(migrated.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]);
      for (const c of cols) if (!after.has(c)) lost.push(`${t}.${c}`);
    }
    expect(lost).toEqual([]);
  });

  it('answers every GET route of the API with the same body as the ledger collected on the new schema', async () => {
    const range = { fromMs: seeded.startMs, toMs: seeded.endMs };
    const routes = await getEveryRoute(referenceBase, range);
    expect(routes.length).toBeGreaterThanOrEqual(40);
    const differing: string[] = [];
    for (const { url, status } of routes) {
      const [a, b] = await Promise.all([fetch(`${referenceBase}${url}`), fetch(`${migratedBase}${url}`)]);
      const [bodyA, bodyB] = (await Promise.all([a.text(), b.text()])).map(withoutFileSize);
      expect({ url, status: b.status }).toEqual({ url, status: a.status });
      expect(status).toBe(a.status);
      if (bodyA !== bodyB) {
        let at = 0;
        while (bodyA[at] === bodyB[at]) at += 1;
        differing.push(`${url} at ${at}: ${bodyA.slice(at - 80, at + 80)} | ${bodyB.slice(at - 80, at + 80)}`);
      }
    }
    expect(differing).toEqual([]);
  });
});
