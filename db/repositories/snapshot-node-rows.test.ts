import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOUR_MS, MINUTE_MS } from '../../core/time.js';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createRetentionFoldRepository } from './retention-fold-repository.js';

/*
 * Migration 0026 (narrow node rows): a file written before it reads the same rows, value for value and type for type,
 * through the snapshot_nodes and usage_nodes views after it; the old INSERT still writes a node row; and a fold whose
 * node changed its allocatable within the hour keeps the hour's mean, worked by hand here. Migration 0034's list of the
 * node_dims rows whose name another row holds, as the migration, the writer and the fold leave it.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-node-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const H = Date.parse('2026-03-02T10:00:00Z');
const NODE_COLUMNS = `snapshot_id, node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu,
  req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, price_source, price_currency, fold_ms, fold_snapshots`;
/** Every column with its storage class, so an integer read back as a real (or a NULL as '') shows. */
const readNodes = (db: Database.Database) =>
  db
    .prepare(
      `SELECT ${NODE_COLUMNS.split(',')
        .map((c) => c.trim())
        .map((c) => `${c}, typeof(${c}) AS ${c}_type`)
        .join(', ')} FROM snapshot_nodes ORDER BY snapshot_id, node_name`,
    )
    .all();
/** The names of the node_dims rows listed in node_dims_shared_names, one per row. */
const sharedNames = (db: Database.Database) =>
  db
    .prepare('SELECT d.node_name FROM node_dims_shared_names s JOIN node_dims d ON d.id = s.node_id ORDER BY d.node_name, d.id')
    .pluck()
    .all();
const readUsage = (db: Database.Database) =>
  db
    .prepare('SELECT snapshot_id, node_name, cpu_m, memory_b, measured_at, window_ms FROM usage_nodes ORDER BY snapshot_id, node_name')
    .all();

describe('migration 0026: narrow node rows', () => {
  it('migrates a file in place: every node row and node usage row reads back as it was, NULLs and means included', () => {
    const path = join(dir, 'old.db');
    const db = new Database(path);
    migrate(
      db,
      loadMigrations().filter((m) => m.version < 26),
    );
    const snap = db.prepare(
      'INSERT INTO snapshots (id, taken_at, node_count, pod_count, fold_ms, fold_snapshots) VALUES (?, ?, ?, ?, ?, ?)',
    );
    snap.run(1, H, 3, 10, HOUR_MS, 12); // an hourly snapshot: means
    snap.run(2, H + HOUR_MS, 3, 10, null, null);
    snap.run(3, H + HOUR_MS + 5 * MINUTE_MS, 3, 10, null, null);
    const row = db.prepare(`INSERT INTO snapshot_nodes (${NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // An hourly row: means (REAL where the node's requests moved), a node there 40 of the hour's 60 minutes.
    row.run(
      1,
      'ip-10-0-0-1',
      'general',
      'on-demand',
      'm6i.large',
      1930,
      7516192768,
      29,
      0,
      1250.5,
      2147483648.25,
      7.5,
      0,
      0.096,
      'pricing-api',
      'USD',
      40 * MINUTE_MS,
      8,
    );
    row.run(1, 'ip-10-0-0-2', null, 'spot', 'c6i.xlarge', 3920, 7000000000, 58, 0, 500, 1000000000, 3, 0, null, null, 'USD', HOUR_MS, 12);
    // 5-minute rows: a node without a NodePool or a price, and one whose allocatable changes between snapshots.
    row.run(
      2,
      'ip-10-0-0-1',
      'general',
      'on-demand',
      'm6i.large',
      1930,
      7516192768,
      29,
      0,
      1200,
      2147483648,
      7,
      0,
      0.096,
      'pricing-api',
      'USD',
      null,
      null,
    );
    row.run(2, 'ip-10-0-0-2', null, 'spot', 'c6i.xlarge', 3920, 7000000000, 58, 0, 500, 1000000000, 3, 0, null, null, 'USD', null, null);
    row.run(
      2,
      'ip-10-0-0-3',
      'batch',
      'spot',
      'c6i.xlarge',
      3920,
      7000000000,
      58,
      1,
      3000,
      5000000000,
      20,
      1,
      0.0712,
      'spot-history',
      'EUR',
      null,
      null,
    );
    row.run(
      3,
      'ip-10-0-0-1',
      'general',
      'on-demand',
      'm6i.large',
      1930,
      7516192768,
      29,
      0,
      1300,
      2147483648,
      8,
      0,
      0.096,
      'pricing-api',
      'USD',
      null,
      null,
    );
    row.run(
      3,
      'ip-10-0-0-3',
      'batch',
      'spot',
      'c6i.xlarge',
      3900,
      6900000000,
      58,
      1,
      3000,
      5000000000,
      20,
      1,
      0.0731,
      'spot-history',
      'EUR',
      null,
      null,
    );
    const use = db.prepare(
      'INSERT INTO usage_nodes (snapshot_id, node_name, cpu_m, memory_b, measured_at, window_ms) VALUES (?, ?, ?, ?, ?, ?)',
    );
    use.run(2, 'ip-10-0-0-1', 812.25, 1610612736, H + HOUR_MS - 12_000, 15_000);
    use.run(3, 'ip-10-0-0-1', 790, 1600000000, H + HOUR_MS + 5 * MINUTE_MS - 11_000, 15_000);
    use.run(3, 'ip-10-0-0-3', 2400.5, 4000000000, H + HOUR_MS + 5 * MINUTE_MS - 9_000, 20_000);
    const nodesBefore = readNodes(db);
    const usageBefore = readUsage(db);
    db.close();

    const after = openDb({ path });
    expect(after.prepare("SELECT type FROM sqlite_schema WHERE name = 'snapshot_nodes'").pluck().get()).toBe('view');
    expect(readNodes(after)).toEqual(nodesBefore);
    expect(readUsage(after)).toEqual(usageBefore);
    // One node_dims row per node as it was: ip-10-0-0-3 twice (its allocatable changed), the others once.
    expect(after.prepare('SELECT node_name, COUNT(*) AS n FROM node_dims GROUP BY node_name ORDER BY node_name').all()).toEqual([
      { node_name: 'ip-10-0-0-1', n: 1 },
      { node_name: 'ip-10-0-0-2', n: 1 },
      { node_name: 'ip-10-0-0-3', n: 2 },
    ]);
    // Migration 0034 lists the rows of a name held twice: ip-10-0-0-3's two, no other.
    expect(sharedNames(after)).toEqual(['ip-10-0-0-3', 'ip-10-0-0-3']);
    expect(after.pragma('foreign_key_check')).toEqual([]);
    after.close();
  });

  it("writes through the old INSERT (price_currency defaults to USD) and folds a node whose allocatable moved to the hour's mean", () => {
    const db = openDb({ path: join(dir, 'fold.db') });
    const snap = db.prepare('INSERT INTO snapshots (id, taken_at, node_count, pod_count) VALUES (?, ?, 1, 5)');
    // 10:00 and 10:05 folded into 10:00; 11:00 is the newest and stays as taken.
    snap.run(1, H);
    snap.run(2, H + 5 * MINUTE_MS);
    snap.run(3, H + HOUR_MS);
    const row =
      db.prepare(`INSERT INTO snapshot_nodes (snapshot_id, node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b,
      alloc_pods, alloc_gpu, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, price_source) VALUES (?, 'n1', 'general', 'on-demand',
      'm6i.xlarge', ?, 16000000000, 58, 0, ?, 4000000000, 5, 0, 0.192, 'pricing-api')`);
    row.run(1, 4000, 1000);
    row.run(2, 8000, 2000); // the node's allocatable doubled (a resize, or a kubelet reservation change)
    row.run(3, 8000, 2000);
    expect(db.prepare('SELECT DISTINCT price_currency FROM snapshot_nodes').pluck().all()).toEqual(['USD']);
    expect(db.prepare('SELECT COUNT(*) FROM node_dims').pluck().get()).toBe(2);
    // n1's second row (8000 m) made its name shared: both rows listed (migration 0034's trigger).
    expect(sharedNames(db)).toEqual(['n1', 'n1']);

    const fold = createRetentionFoldRepository(db);
    expect(fold.foldOne(H + HOUR_MS)?.becameHour).toBe(true); // 10:00 stands for 5 minutes (to 10:05)
    expect(fold.foldOne(H + HOUR_MS)?.becameHour).toBe(false); // 10:05 stands for 15 (capped): weighs 15 of 20 minutes
    // Means over the node's 20 minutes: 4000 + (8000 − 4000) × 15/20 = 7000 m allocatable, 1000 + 1000 × 15/20 = 1750 m requested.
    expect(
      db
        .prepare(
          'SELECT alloc_cpu_m, req_cpu_m, req_memory_b, usd_per_hour, fold_ms, fold_snapshots FROM snapshot_nodes WHERE snapshot_id = 1',
        )
        .all(),
    ).toEqual([
      { alloc_cpu_m: 7000, req_cpu_m: 1750, req_memory_b: 4000000000, usd_per_hour: 0.192, fold_ms: 20 * MINUTE_MS, fold_snapshots: 2 },
    ]);
    expect(db.prepare('SELECT COUNT(*) FROM snapshot_node_rows WHERE snapshot_id = 2').pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM snapshot_nodes').pluck().get()).toBe(2);
    // The fold's row for the mean (7000 m) is n1's third node_dims row, and listed with the other two.
    expect(db.prepare('SELECT COUNT(*) FROM node_dims').pluck().get()).toBe(3);
    expect(sharedNames(db)).toEqual(['n1', 'n1', 'n1']);
    db.close();
  });
});
