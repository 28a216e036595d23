import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createCurRepository, type CurResourceDay } from './cur-repository.js';
import { createRetentionPruneRepository } from './retention-prune-repository.js';
import { createSampleRowsWriter } from './usage-sample-rows.js';

/*
 * Migration 0031, part one (narrow CUR resource days): a file written before it reads the same rows through the
 * cur_resource_daily view after it, value for value and type for type — the figures stored as NULL when they equal
 * unblended (or amortized) read back as they were, and those that differ (a Savings Plan covered line: amortized is
 * the SP's effective cost, unblended 0) keep their own; a period replaced or pruned leaves no rows of its own.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-0031-'));
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
    // What Explain reads, through the repository: the batch NodePool's 1 March is the SP covered line and its negation,
    // amortized 11.10 + 0 against unblended 16.32 - 16.32 (the rows above, by hand); the day of every resource of
    // source a: amortized 2.304 + 11.1 + 0 + 2 = 15.404, net unblended 2.304 + 16.32 - 16.32 + 2 = 4.304.
    const cur = createCurRepository(after);
    const batch = cur.resourceDays({ fromMs: D1, toMs: D2, source: 's3://cur/a' }, { nodePool: 'batch' });
    expect(batch.map((r) => [r.lineItemType, r.unblendedUsd, r.amortizedUsd, r.netAmortizedUsd, r.publicOnDemandUsd])).toEqual([
      ['SavingsPlanCoveredUsage', 16.32, 11.1, 11.1, 16.32],
      ['SavingsPlanNegation', -16.32, 0, 0, 0],
    ]);
    const day = cur.resourceDays({ fromMs: D1, toMs: D2, source: 's3://cur/a' });
    expect(day.reduce((a, r) => a + r.amortizedUsd, 0)).toBeCloseTo(15.404, 12);
    expect(day.reduce((a, r) => a + r.netUnblendedUsd, 0)).toBeCloseTo(4.304, 12);
    expect(
      cur.resourceDays({ fromMs: D1, toMs: D2 + 86_400_000, source: 's3://cur/a' }, { resourceId: 'i-0aaa' }).map((r) => r.netAmortizedUsd),
    ).toEqual([2.304, 2.1]);
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

  it('the importer’s writer (straight into the narrow rows) stores what the view’s trigger stores, value and type', () => {
    const camel = (c: string) =>
      c
        .replace(/_([a-z])/g, (_, l: string) => l.toUpperCase())
        .replace(/^nodepool$/, 'nodePool')
        .replace(/^nodeclaim$/, 'nodeClaim');
    const field = (n: string) => ({ nodepool: 'nodePool', nodeclaim: 'nodeClaim', commitment_arn: 'commitmentArn' })[n] ?? camel(n);
    const periodRow = (db: Database.Database, source: string, period: string) =>
      db
        .prepare(
          `INSERT INTO cur_periods (source, billing_period, period_start_ms, imported_at, files, cur_rows, unblended_usd,
          amortized_usd, unattributed_lines, unattributed_usd, nodeclaim_filled_lines, split_lines) VALUES (?, ?, ?, ?, 1, 7, 0, 0, 0, 0, 0, 0)`,
        )
        .run(source, period, D1, D2);
    const byTrigger = openDb({ path: join(dir, 'trigger.db') });
    const byWriter = openDb({ path: join(dir, 'writer.db') });
    const insert = byTrigger.prepare(`INSERT INTO cur_resource_daily (${COLUMNS}) VALUES (${names.map(() => '?').join(', ')})`);
    const periods = [...new Set(ROWS.map((r) => `${r[0]}\n${r[1]}`))].map((k) => k.split('\n') as [string, string]);
    for (const [source, period] of periods) {
      periodRow(byTrigger, source, period);
      for (const r of ROWS.filter((x) => x[0] === source && x[1] === period)) insert.run(...r);
      const write = createCurRepository(byWriter).beginPeriodReplace({ source, billingPeriod: period });
      write.addResourceDays(
        ROWS.filter((x) => x[0] === source && x[1] === period).map(
          (r) => Object.fromEntries(names.slice(2).map((n, i) => [field(n), r[i + 2]])) as unknown as CurResourceDay,
        ),
      );
      byWriter.exec('COMMIT');
    }
    expect(readAll(byWriter)).toEqual(readAll(byTrigger));
    expect(readAll(byWriter).length).toBe(ROWS.length);
    for (const t of ['cur_resource_lines', 'cur_resource_keys', 'cur_line_kinds'])
      expect(byWriter.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all(), t).toEqual(
        byTrigger.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all(),
      );
    byTrigger.close();
    byWriter.close();
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

/*
 * Part two (narrow container samples): a 0030 file's samples read back through the usage_samples view as they were,
 * value for value and type for type — a Deployment's pod (stored as the part after "<workload>-"), a StatefulSet's
 * ("db-0"), a bare pod named as its workload (kept whole), one without a node, NodePool or requests; the prune and the
 * fold's delete by time go to the rows.
 */
const T = Date.parse('2026-03-02T10:00:00Z');
const SAMPLE_COLUMNS = `snapshot_id, taken_at, namespace, workload_kind, workload_name, container, pod, node_name, nodepool, cpu_m, memory_b,
  req_cpu_m, req_memory_b, measured_at, window_ms, lim_cpu_m, cluster_id`;
const sampleNames = SAMPLE_COLUMNS.split(',').map((c) => c.trim());
const readSamples = (db: Database.Database) =>
  db
    .prepare(
      `SELECT ${sampleNames.map((c) => `${c}, typeof(${c}) AS ${c}_type`).join(', ')} FROM usage_samples
       ORDER BY taken_at, namespace, workload_name, container, pod`,
    )
    .all();
type Sample = (string | number | null)[];
const SAMPLES: Sample[] = [
  [
    1,
    T,
    'shop',
    'Deployment',
    'web',
    'app',
    'web-7d9f8b6c5-x2k4q',
    'ip-10-0-1-5.ec2.internal',
    'general',
    123.456789,
    104857600,
    250,
    268435456,
    T - 12_000,
    15_000,
    1000,
    1,
  ],
  [
    1,
    T,
    'shop',
    'Deployment',
    'web',
    'app',
    'web-7d9f8b6c5-p9z7m',
    'ip-10-0-1-6.ec2.internal',
    'general',
    80,
    99614720,
    250,
    268435456,
    T - 11_500,
    15_000,
    1000,
    1,
  ],
  [
    1,
    T,
    'shop',
    'Deployment',
    'web',
    'envoy',
    'web-7d9f8b6c5-x2k4q',
    'ip-10-0-1-5.ec2.internal',
    'general',
    3.25,
    20971520,
    50,
    67108864,
    T - 12_000,
    15_000,
    null,
    1,
  ],
  [
    1,
    T,
    'data',
    'StatefulSet',
    'db',
    'postgres',
    'db-0',
    'ip-10-0-1-6.ec2.internal',
    'general',
    950.5,
    2147483648,
    1000,
    4294967296,
    T - 9_000,
    30_000,
    2000,
    1,
  ],
  [1, T, 'ops', 'Pod', 'debug-shell', 'shell', 'debug-shell', null, null, 0.5, 1048576, null, null, T - 14_000, 15_000, null, 1],
  [
    2,
    T + 300_000,
    'shop',
    'Deployment',
    'web',
    'app',
    'web-7d9f8b6c5-x2k4q',
    'ip-10-0-1-5.ec2.internal',
    'general',
    130.1,
    104857600,
    250,
    268435456,
    T + 300_000 - 12_000,
    15_000,
    1000,
    1,
  ],
];

describe('migration 0031: narrow container samples', () => {
  it('migrates a 0030 file in place: every sample reads back as it was, type for type', () => {
    const path = join(dir, 'samples.db');
    const db = new Database(path);
    migrate(
      db,
      loadMigrations().filter((m) => m.version <= 30),
    );
    const snap = db.prepare('INSERT INTO snapshots (id, taken_at, node_count, pod_count) VALUES (?, ?, 2, 4)');
    snap.run(1, T);
    snap.run(2, T + 300_000);
    const row = db.prepare(`INSERT INTO usage_samples (${SAMPLE_COLUMNS}) VALUES (${sampleNames.map(() => '?').join(', ')})`);
    for (const r of SAMPLES) row.run(...r);
    const before = readSamples(db);
    expect(before).toHaveLength(SAMPLES.length);
    db.close();
    const after = openDb({ path });
    expect(readSamples(after)).toEqual(before);
    // Stored narrow: a Deployment's pod by its suffix, the bare pod whole; one dims row per container, NodePool and requests.
    expect(after.prepare('SELECT pod, pod_suffix FROM usage_sample_rows ORDER BY id').raw().all()).toEqual([
      [null, '7d9f8b6c5-x2k4q'],
      [null, '7d9f8b6c5-p9z7m'],
      [null, '7d9f8b6c5-x2k4q'],
      [null, '0'],
      ['debug-shell', null],
      [null, '7d9f8b6c5-x2k4q'],
    ]);
    expect(after.prepare('SELECT COUNT(*) FROM usage_sample_dims').pluck().get()).toBe(4);
    // The repository's prune (by time) and a DELETE through the view both reach the rows.
    after.prepare('DELETE FROM usage_samples WHERE pod = ?').run('db-0');
    expect(after.prepare('SELECT COUNT(*) FROM usage_sample_rows').pluck().get()).toBe(5);
    after.close();
  });
});

describe("the collector's sample writer (usage-sample-rows.ts)", () => {
  it('writes what the usage_samples view’s INSERT writes, row for row', () => {
    const viaView = openDb({ path: join(dir, 'samples-view.db') });
    const viaWriter = openDb({ path: join(dir, 'samples-writer.db') });
    for (const db of [viaView, viaWriter]) {
      const snap = db.prepare('INSERT INTO snapshots (id, taken_at, node_count, pod_count) VALUES (?, ?, 2, 4)');
      snap.run(1, T);
      snap.run(2, T + 300_000);
    }
    const row = viaView.prepare(`INSERT INTO usage_samples (${SAMPLE_COLUMNS}) VALUES (${sampleNames.map(() => '?').join(', ')})`);
    for (const r of SAMPLES) row.run(...r);
    const write = createSampleRowsWriter(viaWriter);
    for (const id of [1, 2]) {
      const of = SAMPLES.filter((r) => r[0] === id);
      write(
        id,
        of[0][1] as number,
        of.map((r) => ({
          namespace: r[2] as string,
          workloadKind: r[3] as string,
          workloadName: r[4] as string,
          container: r[5] as string,
          pod: r[6] as string,
          nodeName: r[7] as string | null,
          nodePool: r[8] as string | null,
          cpuMillicores: r[9] as number,
          memoryBytes: r[10] as number,
          requestCpuMillicores: r[11] as number | null,
          requestMemoryBytes: r[12] as number | null,
          measuredAt: r[13] as number,
          windowMs: r[14] as number,
          limitCpuMillicores: r[15] as number | null,
        })),
      );
    }
    const stored = (db: Database.Database) => db.prepare('SELECT * FROM usage_sample_rows ORDER BY id').all();
    expect(readSamples(viaWriter)).toEqual(readSamples(viaView));
    expect(stored(viaWriter)).toEqual(stored(viaView));
    expect(viaWriter.prepare('SELECT * FROM usage_sample_dims ORDER BY id').all()).toEqual(
      viaView.prepare('SELECT * FROM usage_sample_dims ORDER BY id').all(),
    );
    viaView.close();
    viaWriter.close();
  });
});
