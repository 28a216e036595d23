import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillSynthetic } from '../../test/fixtures/synthetic.js';
import { acquireCollectorLock, COLLECTOR_LOCK } from '../lock.js';
import { openDb } from '../open-db.js';
import { createBudgetRepository } from './budget-repository.js';
import { createLockRepository } from './lock-repository.js';
import { createResetRepository } from './reset-repository.js';

describe('clearCollectedData', () => {
  it("empties every table but the lock, the budgets and the disruptions' state row, in one go, keeping the schema and the lock holder", () => {
    const db = openDb({ path: join(mkdtempSync(join(tmpdir(), 'ledger-reset-')), 'ledger.db') });
    fillSynthetic(db, { startDay: '2026-11-01', days: 1 });
    db.prepare("INSERT INTO settings (key, value) VALUES ('demo.seeded', 'week4|42|v1')").run();
    // A budget is configuration, not collected: a new scenario keeps it (the demo's file applies again after its fill).
    createBudgetRepository(db).save(
      {
        name: 'general',
        scope: { kind: 'nodepool', name: 'general' },
        period: 'monthly',
        amount: 300,
        currency: 'USD',
        costMetric: 'unblended',
        thresholds: [0.8, 1],
        dollarLimit: false,
        source: 'api',
        sourceFile: null,
        clusterId: null,
        cluster: null,
      },
      0,
    );
    const lock = acquireCollectorLock(db, { command: 'demo' });
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    const count = (t: string): number => db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number;
    expect(tables.filter((t) => count(t) > 0)).toEqual(
      expect.arrayContaining(['snapshots', 'snapshot_node_rows', 'cost_lines', 'settings', 'locks']),
    );

    createResetRepository(db).clearCollectedData();

    // The disruptions' state keeps its one row, clean: a later collection marks and rebuilds what it writes.
    expect(tables.filter((t) => count(t) > 0)).toEqual(['budgets', 'disruptions_state', 'locks']);
    expect(db.prepare('SELECT dirty_from_ms FROM disruptions_state').pluck().all()).toEqual([null]);
    expect(createLockRepository(db).holder(COLLECTOR_LOCK)?.owner).toBe(lock.holder.owner);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().get()).toBe(
      tables.length,
    );
    expect(db.pragma('foreign_key_check')).toEqual([]);
    lock.release();
    db.close();
  });
});
