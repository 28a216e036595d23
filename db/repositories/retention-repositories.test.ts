import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetentionPass, upgradeToIncrementalVacuum } from '../../cli/retention-stage.js';
import { retentionSettings } from '../../core/retention.js';
import type { SnapshotUsageRows } from '../../core/usage-snapshot.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, WEEK_MS } from '../../core/time.js';
import { GiB, snapshotWrite, type NodeSpec } from '../../test/fixtures/snapshots.js';
import { openDb, type Db } from '../open-db.js';
import { createAnalyticsPackingRepository } from './analytics-packing-repository.js';
import { createFixturesRepository } from './fixtures-repository.js';
import { createKubeRepository } from './kube-repository.js';
import { createRangeRollupReader } from './range-rollups.js';
import { createReportsRepository } from './reports-repository.js';
import { createRetentionFoldRepository } from './retention-fold-repository.js';
import { createRetentionPruneRepository } from './retention-prune-repository.js';
import { createRetentionStoreRepository } from './retention-store-repository.js';
import { createUsageRepository } from './usage-repository.js';

/*
 * Retention on hand-made snapshots whose figures are worked out here: three 5-minute-style snapshots of one hour folded
 * into its hourly snapshot (time-weighted means, usage sums), a fold stopped half way (readers see the hour whole),
 * everything past the horizon deleted (and the file handed back its pages), and the one-time switch of an old file to
 * incremental vacuum.
 */

const H = Date.parse('2026-03-02T10:00:00Z'); // the hour folded
const M = MINUTE_MS;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-retention-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = (name: string, cpu: number, req: number, usd: number): NodeSpec => ({
  name,
  nodePool: 'general',
  capacityType: 'on-demand',
  cpuMillicores: cpu,
  memoryBytes: 16 * GiB,
  requestedCpuMillicores: req,
  requestedMemoryBytes: 4 * GiB,
  usdPerHour: usd,
});

/** Usage of one snapshot: the NodePool's pods use `cpu` millicores, namespace shop `shopCpu`; one container sample. */
function usage(takenAt: number, cpu: number, shopCpu: number): SnapshotUsageRows {
  return {
    samples: [
      {
        at: takenAt,
        namespace: 'shop',
        workloadKind: 'Deployment',
        workloadName: 'web',
        container: 'app',
        pod: 'web-1',
        cpuMillicores: shopCpu,
        memoryBytes: GiB,
        requestCpuMillicores: 500,
        requestMemoryBytes: GiB,
        nodeName: 'a',
        nodePool: 'general',
        measuredAt: takenAt - 10_000,
        windowMs: 15_000,
      },
    ],
    sampleCount: 1,
    namespaces: [
      {
        namespace: 'shop',
        nodePool: 'general',
        pods: 1,
        podsWithUsage: 1,
        requestCpuMillicores: 500,
        requestMemoryBytes: GiB,
        requestCpuMillicoresWithUsage: 500,
        requestMemoryBytesWithUsage: GiB,
        usageCpuMillicores: shopCpu,
        usageMemoryBytes: GiB,
      },
    ],
    nodePools: [
      {
        nodePool: 'general',
        nodes: 1,
        nodesWithUsage: 1,
        podUsageCpuMillicores: cpu,
        podUsageMemoryBytes: 2 * GiB,
        nodeUsageCpuMillicores: cpu + 100,
        nodeUsageMemoryBytes: 3 * GiB,
      },
    ],
    nodes: [{ nodeName: 'a', cpuMillicores: cpu + 100, memoryBytes: 3 * GiB, measuredAt: takenAt - 10_000, windowMs: 15_000 }],
    oomKills: [],
    podsWithUsage: 1,
  };
}

/**
 * 10:00 nodes a (1000m of 4000m requested, $0.20/h) and b (2000m of 4000m, $0.20/h); 10:10 a alone (3000m); 10:40 a
 * (3000m) and c (500m of 2000m, $0.10/h); 11:00 a (2000m). Each stands for the time to the next, at most 15 minutes:
 * 10, 15 (of 30) and 15 (of 20) minutes; the hour's snapshot stands for 40.
 */
function fill(db: Db): void {
  const kube = createKubeRepository(db);
  const write = (t: number, nodes: NodeSpec[], cpu: number, shopCpu: number) =>
    kube.writeSnapshot({
      ...snapshotWrite(t, nodes),
      usage: { rows: usage(t, cpu, shopCpu), status: { state: 'available', message: 'ok', checkedAt: t }, retentionMs: DAY_MS },
    });
  write(H, [node('a', 4000, 1000, 0.2), node('b', 4000, 2000, 0.2)], 1000, 100);
  write(H + 10 * M, [node('a', 4000, 3000, 0.2)], 1500, 200);
  write(H + 40 * M, [node('a', 4000, 3000, 0.2), node('c', 2000, 500, 0.1)], 2000, 300);
  write(H + 60 * M, [node('a', 4000, 2000, 0.2)], 1200, 150);
}

const hour = { fromMs: H, toMs: H + HOUR_MS };
const round = (x: number): number => Math.round(x * 1e9) / 1e9;

describe('folding one hour of snapshots', () => {
  let raw: Db;
  let folded: Db;
  beforeAll(() => {
    raw = openDb({ path: ':memory:' });
    folded = openDb({ path: ':memory:' });
    fill(raw);
    fill(folded);
    const fold = createRetentionFoldRepository(folded);
    const steps = [fold.foldOne(H + HOUR_MS), fold.foldOne(H + HOUR_MS), fold.foldOne(H + HOUR_MS), fold.foldOne(H + HOUR_MS)];
    expect(steps.map((s) => s && [s.takenAt - H, s.standsForMs, s.becameHour])).toEqual([
      [0, 10 * M, true],
      [10 * M, 15 * M, false],
      [40 * M, 15 * M, false],
      null,
    ]);
  });

  it('leaves one snapshot at the hour, standing for 40 minutes of 3 snapshots, and the next hour as taken', () => {
    expect(folded.prepare('SELECT taken_at - ? AS t, fold_ms, fold_snapshots, node_count FROM snapshots ORDER BY taken_at').all(H)).toEqual(
      [
        // nodes: (10 x 2 + 15 x 1 + 15 x 2) / 40
        { t: 0, fold_ms: 40 * M, fold_snapshots: 3, node_count: 1.625 },
        { t: 60 * M, fold_ms: null, fold_snapshots: null, node_count: 1 },
      ],
    );
  });

  it('keeps each node with its means over the time it was there', () => {
    const rows = folded
      .prepare(
        'SELECT node_name, fold_ms, fold_snapshots, alloc_cpu_m, req_cpu_m, usd_per_hour FROM snapshot_nodes WHERE fold_ms IS NOT NULL ORDER BY node_name',
      )
      .all();
    expect(rows).toEqual([
      // a: (10 x 1000 + 15 x 3000 + 15 x 3000) / 40 = 2500; its allocatable unchanged, exactly
      { node_name: 'a', fold_ms: 40 * M, fold_snapshots: 3, alloc_cpu_m: 4000, req_cpu_m: 2500, usd_per_hour: 0.2 },
      { node_name: 'b', fold_ms: 10 * M, fold_snapshots: 1, alloc_cpu_m: 4000, req_cpu_m: 2000, usd_per_hour: 0.2 },
      { node_name: 'c', fold_ms: 15 * M, fold_snapshots: 1, alloc_cpu_m: 2000, req_cpu_m: 500, usd_per_hour: 0.1 },
    ]);
  });

  it("keeps the NodePool's time-weighted means: its cost over the hour is the 5-minute snapshots' to the cent and beyond", () => {
    const p = folded
      .prepare(`SELECT nodes, req_cpu_m, alloc_cpu_m, usd_per_hour FROM snapshot_nodepools WHERE taken_at = ?`)
      .get(H) as Record<string, number>;
    // req (10 x 3000 + 15 x 3000 + 15 x 3500) / 40; alloc (10 x 8000 + 15 x 4000 + 15 x 6000) / 40; $ (10 x .4 + 15 x .2 + 15 x .3) / 40
    expect(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, round(v)]))).toEqual({
      nodes: 1.625,
      req_cpu_m: 3187.5,
      alloc_cpu_m: 5750,
      usd_per_hour: 0.2875,
    });
    // 0.4 x 10/60 + 0.2 x 15/60 + 0.3 x 15/60 (the 11:00 snapshot stands for nothing yet)
    const cost = (db: Db) => createAnalyticsPackingRepository(db).poolSums(hour)[0].costUsd;
    expect(round(cost(raw))).toBe(round(0.2875 * (40 / 60)));
    expect(round(cost(folded))).toBe(round(cost(raw)));
    // Read from the hourly snapshot itself (a range in minutes: no rollup), it is the same sum.
    const minutes = { fromMs: H, toMs: H + 55 * M };
    expect(round(createRangeRollupReader(folded).poolSums(minutes)[0].cost_usd)).toBe(round(cost(raw)));
    // A part of the hour reads its share of the hour's means (the hourly snapshot stands for 10:00-10:40).
    expect(round(createRangeRollupReader(folded).poolSums({ fromMs: H, toMs: H + 30 * M })[0].cost_usd)).toBe(round(0.2875 / 2));
  });

  it("counts the hour's snapshots where snapshots are counted", () => {
    for (const db of [raw, folded]) {
      const coverage = createAnalyticsPackingRepository(db).coverage({ fromMs: H, toMs: H + 55 * M });
      expect([round(coverage.hours), coverage.snapshots]).toEqual([round(40 / 60), 3]);
      expect(createReportsRepository(db).dataRange().snapshotCount).toBe(4);
      expect(createReportsRepository(db).usageStatus()).toMatchObject({ snapshots: 4, withUsage: 4 });
    }
  });

  it('gives a node window of the whole hour the means the 5-minute snapshots gave', () => {
    const before = createAnalyticsPackingRepository(raw).nodeWindow({ fromMs: H - 1, toMs: H + 40 * M });
    const after = createAnalyticsPackingRepository(folded).nodeWindow({ fromMs: H - 1, toMs: H });
    expect(after.map((n) => [n.name, n.snapshots, round(n.hours), n.reqCpuMillicores])).toEqual([
      ['a', 3, round(40 / 60), 2500],
      ['b', 1, round(10 / 60), 2000],
      ['c', 1, 0.25, 500],
    ]);
    expect(after.map((n) => round(n.reqCpuMillicores))).toEqual(before.map((n) => round(n.reqCpuMillicores)));
  });

  it('sums usage over the hour: usage ÷ allocatable of an hourly bucket is unchanged', () => {
    const buckets = (db: Db) => createReportsRepository(db).usageBuckets({ ...hour, bucketMs: HOUR_MS });
    // 1000 + 1500 + 2000 used of 8000 + 4000 + 6000 allocatable
    const expected = [
      {
        bucketStartMs: H,
        nodePool: 'general',
        usageCpuMillicores: 4500,
        usageMemoryBytes: 6 * GiB,
        allocatableCpuMillicores: 18000,
        allocatableMemoryBytes: 5 * 16 * GiB,
      },
    ];
    expect(buckets(raw)).toEqual(expected);
    expect(buckets(folded)).toEqual(expected);
    const shop = createUsageRepository(folded).namespaceUsage(hour);
    expect(shop.map((r) => [r.takenAt, r.usageCpuMillicores, r.requestCpuMillicoresWithUsage])).toEqual([[H, 600, 1500]]);
  });

  it('keeps container usage as its workload-hour, and no per-node or per-container rows of the folded snapshots', () => {
    const count = (table: string) => folded.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
    expect([count('usage_samples'), count('usage_nodes'), count('usage_snapshots')]).toEqual([1, 1, 2]);
    const hours = (db: Db) => createUsageRepository(db).workloadHours(hour);
    expect(hours(folded)).toEqual(hours(raw));
    expect(hours(folded)[0]).toMatchObject({ samples: 3, cpuMaxMillicores: 300 });
  });
});

describe('a fold stopped half way', () => {
  it('reads the hour whole: the part folded from the hour start, the rest as taken', () => {
    const db = openDb({ path: ':memory:' });
    fill(db);
    const fold = createRetentionFoldRepository(db);
    fold.foldOne(H + HOUR_MS);
    fold.foldOne(H + HOUR_MS);
    expect(fold.pending(H + HOUR_MS)).toBe(1);
    const reader = createRangeRollupReader(db);
    // 10:00-10:25 at the mean of the first two ((10 x .4 + 15 x .2) / 25 = .28), 10:40-10:55 at .3
    expect(round(reader.poolSums({ fromMs: H, toMs: H + 55 * M })[0].cost_usd)).toBe(round(0.28 * (25 / 60) + 0.3 * (15 / 60)));
    const coverage = reader.coverage({ fromMs: H, toMs: H + 55 * M });
    expect([round(coverage.hours), coverage.snapshots]).toEqual([round(40 / 60), 3]);
  });
});

describe('a retention pass past the horizon', () => {
  const T0 = Math.ceil(Date.parse('2026-01-01T00:00:00Z') / WEEK_MS) * WEEK_MS; // a Thursday, as every horizon
  const now = T0 + 12 * WEEK_MS;
  let db: Db;
  let path: string;
  beforeAll(async () => {
    path = join(dir, 'pruned.db');
    db = openDb({ path });
    const kube = createKubeRepository(db);
    for (let t = T0; t < T0 + DAY_MS; t += 15 * M)
      kube.writeSnapshot(snapshotWrite(t, [node('a', 4000, 1000, 0.2), node(`n-${Math.floor(t / HOUR_MS)}`, 4000, 10, 0.2)]));
    // the newest, within the retention (8 weeks)
    kube.writeSnapshot(snapshotWrite(now - HOUR_MS, [node('z', 4000, 1000, 0.2)]));
    kube.upsertEvents([
      {
        uid: 'old',
        at: T0 + HOUR_MS,
        type: 'Normal',
        reason: 'DisruptionTerminating',
        message: 'Disrupting Node: Underutilized',
        kind: 'Node',
        name: 'a',
        namespace: null,
      },
    ]);
    const fixtures = createFixturesRepository(db);
    fixtures.insertCostLines([
      {
        periodStart: new Date(T0).toISOString().slice(0, 10),
        nodePool: 'general',
        dimensionValue: 'On Demand Instances',
        unblendedUsd: 9.6,
        estimated: false,
      },
      {
        periodStart: new Date(now - DAY_MS).toISOString().slice(0, 10),
        nodePool: 'general',
        dimensionValue: 'On Demand Instances',
        unblendedUsd: 4.8,
        estimated: true,
      },
    ]);
    const price = db.prepare(
      `INSERT INTO prices (kind, region, instance_type, zone, effective_at, usd_per_hour, source) VALUES ('spot', 'us-east-1', 'm5.xlarge', 'us-east-1a', ?, ?, 'spot-history')`,
    );
    // What collect21 keeps beside the snapshots (0019) and the efficiency chart's hour sums (0022): an old
    // NodePool version and its body (gone), the current one (kept); a pod spec only a pod gone before the horizon
    // used (gone) and one a live pod uses (kept); an hour sum and an explanation on each side of the horizon.
    const ins = (sql: string, ...rows: unknown[][]) => rows.forEach((r) => db.prepare(sql).run(...r));
    ins(`INSERT INTO kube_object_bodies (hash, body_json) VALUES (?, ?)`, ['body-old', '{"old":true}'], ['body-new', '{"old":false}']);
    ins(
      `INSERT INTO kube_object_versions (kind, namespace, name, first_seen, last_seen, hash) VALUES ('NodePool', '', 'general', ?, ?, ?)`,
      [T0, T0 + DAY_MS, 'body-old'],
      [T0 + DAY_MS + 1, now - HOUR_MS, 'body-new'],
    );
    ins(`INSERT INTO pod_specs (hash, spec_json) VALUES (?, '{}')`, ['spec-old'], ['spec-live']);
    ins(
      `INSERT INTO pods (uid, namespace, name, req_cpu_m, req_memory_b, created_at, first_seen, last_seen, spec_hash) VALUES (?, 'shop', ?, 100, 1, ?, ?, ?, ?)`,
      ['p-old', 'old', T0, T0, T0 + HOUR_MS, 'spec-old'],
      ['p-live', 'live', T0, T0, now - HOUR_MS, 'spec-live'],
    );
    ins(
      `INSERT INTO usage_nodepool_hours (hour_ms, nodepool, snapshots, pod_usage_cpu_m, pod_usage_memory_b, alloc_cpu_m, alloc_memory_b) VALUES (?, 'general', 12, 1, 1, 1, 1)`,
      [T0],
      [now - HOUR_MS],
    );
    ins(
      `INSERT INTO karpenter_explanations (event_uid, at, kind, object_kind, object_name, message) VALUES (?, ?, 'candidate', 'Node', 'a', 'Consolidation candidate')`,
      ['x-old', T0 + HOUR_MS],
      ['x-new', now - HOUR_MS],
    );
    price.run(T0, 0.07); // superseded before the horizon: deleted
    price.run(T0 + WEEK_MS, 0.08); // the one in effect at the horizon: kept
    price.run(now - DAY_MS, 0.09);
  });
  afterAll(() => db.close());

  it('deletes what is older than the horizon, keeps what is newer, and hands the pages back', async () => {
    // Hourly snapshots kept past the horizon (90d, the default until issue 24's store cut): this pass folds hours and deletes, no day fold.
    const settings = retentionSettings('1d', '8w', '90d');
    const pagesBefore = db.pragma('page_count', { simple: true }) as number;
    const pass = await runRetentionPass(db, settings, { now, budgetMs: Number.POSITIVE_INFINITY });
    expect(pass).toMatchObject({ error: null, folded: 24 * 4, pending: 0, horizonMs: T0 + 4 * WEEK_MS });
    expect(pass.deleted).toBeGreaterThan(24 * 3);
    expect(pass.pagesFreed).toBeGreaterThan(5);
    expect(db.prepare('SELECT taken_at FROM snapshots').pluck().all()).toEqual([now - HOUR_MS]);
    const count = (sql: string) => db.prepare(sql).pluck().get();
    expect(count('SELECT COUNT(*) FROM snapshot_nodes')).toBe(1);
    expect(count(`SELECT COUNT(*) FROM rollup_nodepools WHERE bucket_ms < ${T0 + 4 * WEEK_MS}`)).toBe(0);
    expect(count('SELECT COUNT(*) FROM events')).toBe(0);
    expect(count('SELECT COUNT(*) FROM disruptions')).toBe(0);
    // Their quarter-day counts (migration 0033) with them.
    expect(count('SELECT COUNT(*) FROM disruption_quarters')).toBe(0);
    expect(db.prepare('SELECT unblended_usd FROM cost_lines').pluck().all()).toEqual([4.8]);
    expect(db.prepare('SELECT usd_per_hour FROM prices ORDER BY effective_at').pluck().all()).toEqual([0.08, 0.09]);
    expect(db.prepare('SELECT name FROM nodes ORDER BY name').pluck().all()).toEqual(['z']);
    expect(db.prepare('SELECT hash FROM kube_object_versions').pluck().all()).toEqual(['body-new']);
    expect(db.prepare('SELECT hash FROM kube_object_bodies').pluck().all()).toEqual(['body-new']);
    expect(db.prepare('SELECT hash FROM pod_specs').pluck().all()).toEqual(['spec-live']);
    // Migration 0027: the pod gone before the horizon takes with it what only it used (its pod_dims row).
    expect(db.prepare('SELECT uid FROM pods').pluck().all()).toEqual(['p-live']);
    expect(db.prepare('SELECT spec_hash FROM pod_dims').pluck().all()).toEqual(['spec-live']);
    expect(db.prepare('SELECT hour_ms FROM usage_nodepool_hours').pluck().all()).toEqual([now - HOUR_MS]);
    expect(db.prepare('SELECT event_uid FROM karpenter_explanations').pluck().all()).toEqual(['x-new']);
    // Deleting events marks nothing to rebuild: what the kept disruptions hold after the horizon does not change.
    expect(count('SELECT dirty_from_ms FROM disruptions_state')).toBeNull();
    expect(db.pragma('freelist_count', { simple: true })).toBe(0);
    expect(db.pragma('page_count', { simple: true })).toBeLessThanOrEqual(pagesBefore - pass.pagesFreed + 2);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(createRetentionStoreRepository(db).facts()).toMatchObject({ autoVacuum: 'incremental', lastRun: { folded: 96, error: null } });
  });

  it('finds nothing to do the next time', async () => {
    const pass = await runRetentionPass(db, retentionSettings('1d', '8w'), { now, budgetMs: Number.POSITIVE_INFINITY });
    expect(pass).toMatchObject({ folded: 0, deleted: 0, pagesFreed: 0, error: null });
  });
});

describe('incremental vacuum', () => {
  it('is on for a new file', () => {
    const db = openDb({ path: join(dir, 'new.db') });
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    db.close();
  });

  it('is switched on once, by a VACUUM, for a file made before it, saying so', () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    old.exec("CREATE TABLE kept (x TEXT); INSERT INTO kept VALUES ('a row of an older release')");
    old.close();
    const db = openDb({ path });
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(0);
    const said: string[] = [];
    expect(upgradeToIncrementalVacuum(db, path, (l) => said.push(l))).toBe(true);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(said[0]).toMatch(/switching to incremental vacuum, so the file shrinks as retention deletes: a one-time VACUUM of [\d.]+ MB/);
    expect(said[1]).toMatch(/incremental vacuum on \([\d.]+ MB -> [\d.]+ MB in [\d.]+ s\)/);
    expect(upgradeToIncrementalVacuum(db, path, (l) => said.push(l))).toBe(true);
    expect(said).toHaveLength(2);
    expect(statSync(path).size).toBeGreaterThan(0);
    expect(db.prepare('SELECT x FROM kept').pluck().all()).toEqual(['a row of an older release']);
    db.close();
  });
});

describe('a table retention does not know', () => {
  it('stops retention, named, before anything is folded or deleted', () => {
    const db = openDb({ path: ':memory:' });
    db.exec('CREATE TABLE snapshot_pdbs (snapshot_id INTEGER NOT NULL REFERENCES snapshots(id), name TEXT)');
    const message =
      'retention cannot delete snapshots: snapshot_pdbs references snapshots(id) and is not folded or deleted by db/repositories/retention-snapshot-rows.ts (add it there, and to the fold)';
    expect(() => createRetentionFoldRepository(db)).toThrow(message);
    expect(() => createRetentionPruneRepository(db)).toThrow(message);
  });

  it('stops the fold, named, for a column of a folded table it neither keys nor means', () => {
    const db = openDb({ path: ':memory:' });
    db.exec('ALTER TABLE snapshot_nodepools ADD COLUMN spot_share REAL');
    expect(() => createRetentionFoldRepository(db)).toThrow(
      'retention cannot fold snapshot_nodepools: spot_share is not a key or a mean of db/repositories/retention-fold-repository.ts (add it there)',
    );
  });
});
