import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createCurRepository } from './cur-repository.js';
import { createRetentionPruneRepository } from './retention-prune-repository.js';

/*
 * Migration 0031 (narrow CUR resource days): a file written before it reads the same rows through the
 * cur_resource_daily view after it, value for value and type for type — the figures stored as NULL when they equal
 * unblended (or amortized) read back as they were, and those that differ (a Savings Plan covered line: amortized is
 * the SP's effective cost, unblended 0) keep their own; a period replaced or pruned leaves no rows of its own.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-cur-days-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLUMNS = `source, billing_period, day, day_ms, resource_id, line_item_type, usage_type, product_code, operation, category, cluster,
  nodepool, nodeclaim, attributed_by, commitment_arn, unblended_usd, amortized_usd, net_unblended_usd, net_amortized_usd, usage_amount,
  public_on_demand_usd, line_count`;
const names = COLUMNS.split(',').map((c) => c.trim());
/** Every column with its storage class, so a REAL read back as an INTEGER (or a NULL for a figure) shows. */
const readAll = (db: Database.Database) =>
  db
    .prepare(
      `SELECT ${names.map((c) => `${c}, typeof(${c}) AS ${c}_type`).join(', ')} FROM cur_resource_daily
       ORDER BY source, billing_period, day, resource_id, line_item_type, usage_type, product_code, operation, commitment_arn`,
    )
    .all();

const D1 = Date.parse('2026-03-01T00:00:00Z');
const D2 = Date.parse('2026-03-02T00:00:00Z');
const SP = 'arn:aws:savingsplans::111122223333:savingsplan/sp-0a1b2c3d';
type Row = (string | number)[];
// An on-demand instance day (all gross and net figures equal, public on-demand too), the same instance's next day
// with a credit (net below gross), a Savings Plan covered line and its negation (CUR 2.0: SavingsPlanCoveredUsage has
// unblended = public on-demand cost and amortized = the SP's effective cost; SavingsPlanNegation the unblended back),
// a volume with an integral figure, a line without a NodePool, and a second source's same resource.
const ROWS: Row[] = [
  [
    's3://cur/a',
    '2026-03',
    '2026-03-01',
    D1,
    'i-0aaa',
    'Usage',
    'BoxUsage:m6i.large',
    'AmazonEC2',
    'RunInstances',
    'instances',
    'prod',
    'general',
    'general-x1',
    'tag',
    '',
    2.304,
    2.304,
    2.304,
    2.304,
    24,
    2.304,
    3,
  ],
  [
    's3://cur/a',
    '2026-03',
    '2026-03-02',
    D2,
    'i-0aaa',
    'Usage',
    'BoxUsage:m6i.large',
    'AmazonEC2',
    'RunInstances',
    'instances',
    'prod',
    'general',
    'general-x1',
    'tag',
    '',
    2.304,
    2.304,
    2.1,
    2.1,
    24,
    2.304,
    24,
  ],
  [
    's3://cur/a',
    '2026-03',
    '2026-03-01',
    D1,
    'i-0bbb',
    'SavingsPlanCoveredUsage',
    'BoxUsage:c6i.4xlarge',
    'AmazonEC2',
    'RunInstances',
    'instances',
    'prod',
    'batch',
    '',
    'nodeclaim',
    SP,
    16.32,
    11.1,
    16.32,
    11.1,
    24,
    16.32,
    24,
  ],
  [
    's3://cur/a',
    '2026-03',
    '2026-03-01',
    D1,
    'i-0bbb',
    'SavingsPlanNegation',
    'BoxUsage:c6i.4xlarge',
    'AmazonEC2',
    'RunInstances',
    'instances',
    'prod',
    'batch',
    '',
    'nodeclaim',
    SP,
    -16.32,
    0,
    -16.32,
    0,
    0,
    0,
    24,
  ],
  [
    's3://cur/a',
    '2026-03',
    '2026-03-01',
    D1,
    'vol-0ccc',
    'Usage',
    'EBS:VolumeUsage.gp3',
    'AmazonEC2',
    '',
    'volumes',
    'prod',
    'general',
    '',
    'tag',
    '',
    2,
    2,
    2,
    2,
    25,
    2,
    1,
  ],
  [
    's3://cur/a',
    '2026-03',
    '2026-03-02',
    D2,
    'i-0ddd',
    'Usage',
    'BoxUsage:m6i.large',
    'AmazonEC2',
    'RunInstances',
    'instances',
    '',
    '',
    '',
    'none',
    '',
    0.5,
    0.5,
    0.5,
    0.5,
    5.2,
    0.5,
    5,
  ],
  [
    's3://cur/b',
    '2026-03',
    '2026-03-01',
    D1,
    'i-0aaa',
    'Usage',
    'BoxUsage:m6i.large',
    'AmazonEC2',
    'RunInstances',
    'instances',
    'prod',
    'general',
    'general-x1',
    'tag',
    '',
    2.304,
    2.304,
    2.304,
    2.304,
    24,
    2.304,
    3,
  ],
];

function oldFile(path: string): Database.Database {
  const db = new Database(path);
  migrate(
    db,
    loadMigrations().filter((m) => m.version <= 30),
  );
  const period = db.prepare(`INSERT INTO cur_periods (source, billing_period, period_start_ms, imported_at, files, cur_rows, unblended_usd,
    amortized_usd, unattributed_lines, unattributed_usd, nodeclaim_filled_lines, split_lines) VALUES (?, '2026-03', ?, ?, 1, 7, 0, 0, 0, 0, 0, 0)`);
  period.run('s3://cur/a', D1, D2);
  period.run('s3://cur/b', D1, D2);
  const row = db.prepare(`INSERT INTO cur_resource_daily (${COLUMNS}) VALUES (${names.map(() => '?').join(', ')})`);
  for (const r of ROWS) row.run(...r);
  return db;
}

describe('migration 0031: narrow CUR resource days', () => {
  it('migrates a 0030 file in place: every resource day reads back as it was, type for type', () => {
    const path = join(dir, 'old.db');
    const db = oldFile(path);
    const before = readAll(db);
    expect(before).toHaveLength(ROWS.length);
    db.close();
    const after = openDb({ path });
    expect(after.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(31);
    expect(readAll(after)).toEqual(before);
    // The NULL-for-equal figures were stored so: the first row's four are NULL, the SP covered line's amortized is not.
    const stored = after
      .prepare(
        `SELECT amortized_usd, net_unblended_usd, net_amortized_usd, public_on_demand_usd, day FROM cur_resource_lines l
         JOIN cur_resource_keys r ON r.id = l.resource_key WHERE r.resource_id = ? AND l.day_ms = ? ORDER BY l.line_kind`,
      )
      .all('i-0bbb', D1);
    expect(stored).toEqual([
      { amortized_usd: 11.1, net_unblended_usd: null, net_amortized_usd: null, public_on_demand_usd: null, day: null },
      { amortized_usd: 0, net_unblended_usd: null, net_amortized_usd: null, public_on_demand_usd: 0, day: null },
    ]);
    // A resource per period and source: i-0aaa twice (two sources), four others.
    expect(after.prepare('SELECT COUNT(*) FROM cur_resource_keys').pluck().get()).toBe(5);
    after.close();
  });

  it('the old INSERT writes through the view; a figure left NULL fails as the old NOT NULL did; a day that is not day_ms’s UTC date is kept', () => {
    const db = openDb({ path: join(dir, 'new.db') });
    db.prepare(
      `INSERT INTO cur_periods (source, billing_period, period_start_ms, imported_at, files, cur_rows, unblended_usd,
      amortized_usd, unattributed_lines, unattributed_usd, nodeclaim_filled_lines, split_lines) VALUES ('s3://cur/a', '2026-03', ?, ?, 1, 7, 0, 0, 0, 0, 0, 0)`,
    ).run(D1, D2);
    const row = db.prepare(`INSERT INTO cur_resource_daily (${COLUMNS}) VALUES (${names.map(() => '?').join(', ')})`);
    const odd: Row = [...ROWS[0]];
    odd[2] = '2026-02-28'; // a day the importer would not write: kept as given
    row.run(...odd);
    expect(db.prepare('SELECT day, amortized_usd, typeof(amortized_usd) AS t FROM cur_resource_daily').get()).toEqual({
      day: '2026-02-28',
      amortized_usd: 2.304,
      t: 'real',
    });
    const bad: (string | number | null)[] = [...ROWS[1]];
    bad[16] = null;
    expect(() => row.run(...bad)).toThrow(/NOT NULL/);
    db.close();
  });

  it('a period replaced, then pruned, leaves none of its resource rows or keys', () => {
    const path = join(dir, 'replace.db');
    oldFile(path).close();
    const db = openDb({ path });
    const cur = createCurRepository(db);
    const write = cur.beginPeriodReplace({ source: 's3://cur/a', billingPeriod: '2026-03' });
    write.addResourceDays([]);
    write.rollback();
    expect(db.prepare(`SELECT COUNT(*) FROM cur_resource_daily WHERE source = 's3://cur/a'`).pluck().get()).toBe(6);
    const counts = () =>
      ['cur_resource_lines', 'cur_resource_keys', 'cur_period_keys'].map((t) => db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get());
    expect(counts()).toEqual([7, 5, 2]);
    // Prune every period before April in batches of 2 rows.
    const step = createRetentionPruneRepository(db).steps.find((s) => s.name === 'cur');
    if (step === undefined) throw new Error('no cur prune step');
    let guard = 0;
    while (step.batch(Date.parse('2026-04-15T00:00:00Z'), 2).more && guard++ < 100);
    expect(counts()).toEqual([0, 0, 0]);
    expect(db.prepare('SELECT COUNT(*) FROM cur_periods').pluck().get()).toBe(0);
    db.close();
  });
});
