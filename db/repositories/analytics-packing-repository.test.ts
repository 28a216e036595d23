import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GiB, type NodeSpec, snapshotWrite } from '../../test/fixtures/snapshots.js';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createAnalyticsPackingRepository } from './analytics-packing-repository.js';
import { createKubeRepository } from './kube-repository.js';
import { MINUTE_MS } from '../../core/time.js';

const dir = mkdtempSync(join(tmpdir(), 'ledger-analytics-repo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (iso: string): number => Date.parse(iso);
const T0 = at('2026-11-01T10:00:00Z');

// general: a node at 50 % cpu / 25 % memory, $0.96/h. batch: a spot node, $0.30/h (on-demand $0.85), 25 % cpu, 25 % memory.
const general: NodeSpec = {
  name: 'general-a',
  nodePool: 'general',
  capacityType: 'on-demand',
  cpuMillicores: 4000,
  memoryBytes: 16 * GiB,
  requestedCpuMillicores: 2000,
  requestedMemoryBytes: 4 * GiB,
  usdPerHour: 0.96,
};
const batch: NodeSpec = {
  name: 'batch-a',
  nodePool: 'batch',
  capacityType: 'spot',
  instanceType: 'c5.large',
  cpuMillicores: 2000,
  memoryBytes: 4 * GiB,
  requestedCpuMillicores: 500,
  requestedMemoryBytes: 1 * GiB,
  usdPerHour: 0.3,
  onDemandUsdPerHour: 0.85,
};

describe('analytics packing repository', () => {
  const db = openDb({ path: join(dir, 'a.db') });
  const kube = createKubeRepository(db);
  // Snapshots at 10:00, 10:05 (both nodes), 10:45 (general only; 40 min gap counts 15 min), 11:00 (newest: weighs 0).
  kube.writeSnapshot(snapshotWrite(T0, [general, batch]));
  kube.writeSnapshot(snapshotWrite(T0 + 5 * MINUTE_MS, [general, batch]));
  kube.writeSnapshot(snapshotWrite(T0 + 45 * MINUTE_MS, [general]));
  kube.writeSnapshot(snapshotWrite(T0 + 60 * MINUTE_MS, [{ ...general, requestedCpuMillicores: 4000 }]));
  const repo = createAnalyticsPackingRepository(db);

  it('weights each snapshot by the time to the next, capped at 15 minutes, clipped to the range', () => {
    // 10:00 → 5 min, 10:05 → 15 min (cap), 10:45 → 15 min, 11:00 → 0: 35 min.
    const whole = repo.coverage({ fromMs: T0, toMs: T0 + 2 * 60 * MINUTE_MS });
    expect(whole.snapshots).toBe(3);
    expect(whole.hours).toBeCloseTo(35 / 60, 12);
    // [10:02, 10:50): 10:00 covers 10:02-10:05 (3 min), 10:05 covers 15 min, 10:45 covers 10:45-10:50 (5 min).
    expect(repo.coverage({ fromMs: T0 + 2 * MINUTE_MS, toMs: T0 + 50 * MINUTE_MS }).hours).toBeCloseTo(23 / 60, 12);
  });

  it('sums per NodePool x capacity type, with the cost-weighted and on-demand sums', () => {
    const rows = repo.poolSums({ fromMs: T0, toMs: T0 + 2 * 60 * MINUTE_MS });
    const g = rows.find((r) => r.nodePool === 'general');
    const b = rows.find((r) => r.nodePool === 'batch');
    // general: 35 min at $0.96/h = $0.56; cpu-weighted 0.56 × 0.5; memory 0.56 × 0.25.
    expect(g?.nodeHours).toBeCloseTo(35 / 60, 12);
    expect(g?.costUsd).toBeCloseTo(0.56, 12);
    expect(g?.costWeightedCpuUsd).toBeCloseTo(0.28, 12);
    expect(g?.costWeightedMemoryUsd).toBeCloseTo(0.14, 12);
    expect(g?.reqCpuMillicoreHours).toBeCloseTo(2000 * (35 / 60), 9);
    expect(g?.onDemandUsd).toBeCloseTo(0.56, 12);
    // batch: 20 min at $0.30/h = $0.10, at the on-demand $0.85/h = $0.85/3.
    expect(b?.capacityType).toBe('spot');
    expect(b?.costUsd).toBeCloseTo(0.1, 12);
    expect(b?.onDemandUsd).toBeCloseTo(0.85 / 3, 12);
    expect(b?.onDemandUnknownUsd).toBe(0);
    expect(repo.poolSums({ fromMs: T0, toMs: T0 + 2 * 60 * MINUTE_MS, nodePool: 'batch' })).toHaveLength(1);
  });

  it('buckets sums by the start of the time each snapshot stands for', () => {
    const bucketMs = 30 * MINUTE_MS;
    const rows = repo.bucketSums({ fromMs: T0, toMs: T0 + 2 * 60 * MINUTE_MS, bucketMs, nodePool: 'general' });
    // 10:00 bucket: 10:00 (5 min) + 10:05 (15 min) = 20 min; 10:30 bucket: 10:45 (15 min).
    expect(rows.map((r) => [r.bucketStartMs - T0, Math.round(r.nodeHours * 60)])).toEqual([
      [0, 20],
      [30 * MINUTE_MS, 15],
    ]);
    expect(repo.bucketCoverage({ fromMs: T0, toMs: T0 + 2 * 60 * MINUTE_MS, bucketMs }).map((c) => Math.round(c.hours * 60))).toEqual([
      20, 15,
    ]);
  });

  it('finds the snapshot at or before an instant', () => {
    expect(repo.snapshotAtOrBefore(T0 + 50 * MINUTE_MS)).toBe(T0 + 45 * MINUTE_MS);
    expect(repo.snapshotAtOrBefore(T0 - 1)).toBeNull();
    expect(repo.snapshotAtOrBefore()).toBe(T0 + 60 * MINUTE_MS);
  });

  it('averages nodes over the snapshots of a window, hours-weighted', () => {
    // (10:44, 11:00]: 10:45 weighs 15 min at 2000 m, 11:00 (newest) weighs like the interval before it, 15 min, at 4000 m.
    const rows = repo.nodeWindow({ fromMs: T0 + 44 * MINUTE_MS, toMs: T0 + 60 * MINUTE_MS });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      name: 'general-a',
      nodePool: 'general',
      snapshots: 2,
      usdPerHour: 0.96,
      priceSource: 'static-table (us-east-1)',
    });
    expect(rows[0].reqCpuMillicores).toBeCloseTo(3000, 9);
    // One snapshot: exactly its values; filters by capacity type.
    const one = repo.nodeWindow({ fromMs: T0 - 1, toMs: T0, capacityType: 'spot' });
    expect(one.map((r) => [r.name, r.reqCpuMillicores, r.allocMemoryBytes / GiB])).toEqual([['batch-a', 500, 4]]);
  });
});

describe('migration 0003 backfill', () => {
  it('fills the cost-weighted sums of rollups written before it from snapshot_nodes', () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    migrate(
      old,
      loadMigrations().filter((m) => m.version < 3),
    );
    // One snapshot as schema v2 wrote it: general on-demand at 50 % cpu / 25 % memory, a spot node at 25 % cpu, $0.30/h.
    old.prepare('INSERT INTO snapshots (id, taken_at, node_count, pod_count) VALUES (1, ?, 2, 0)').run(T0);
    const node =
      old.prepare(`INSERT INTO snapshot_nodes (snapshot_id, node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b,
      alloc_pods, alloc_gpu, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, price_source) VALUES (1, ?, ?, ?, 'm5.xlarge', ?, ?, 110, 0, ?, ?, 3, 0, ?, 'static-table')`);
    node.run('g', 'general', 'on-demand', 4000, 16 * GiB, 2000, 4 * GiB, 0.96);
    node.run('s', 'general', 'spot', 2000, 4 * GiB, 500, 2 * GiB, 0.3);
    const pool =
      old.prepare(`INSERT INTO snapshot_nodepools (snapshot_id, taken_at, nodepool, capacity_type, nodes, alloc_cpu_m, alloc_memory_b,
      alloc_pods, alloc_gpu, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour) VALUES (1, ?, 'general', ?, 1, 0, 0, 0, 0, 0, 0, 0, 0, ?)`);
    pool.run(T0, 'on-demand', 0.96);
    pool.run(T0, 'spot', 0.3);
    old.prepare('INSERT INTO snapshots (id, taken_at, node_count, pod_count) VALUES (2, ?, 0, 0)').run(T0 + 15 * MINUTE_MS);
    old.close();

    const db = openDb({ path }); // applies 0003
    const rows = createAnalyticsPackingRepository(db).poolSums({ fromMs: T0, toMs: T0 + 15 * MINUTE_MS });
    const od = rows.find((r) => r.capacityType === 'on-demand');
    const spot = rows.find((r) => r.capacityType === 'spot');
    // 15 min: on-demand cpu 0.96 × 0.5 / 4, memory 0.96 × 0.25 / 4; spot cpu 0.3 × 0.25 / 4, memory 0.3 × 0.5 / 4.
    expect(od?.costWeightedCpuUsd).toBeCloseTo(0.12, 12);
    expect(od?.costWeightedMemoryUsd).toBeCloseTo(0.06, 12);
    expect(od?.onDemandUsd).toBeCloseTo(0.24, 12);
    expect(spot?.costWeightedCpuUsd).toBeCloseTo(0.01875, 12);
    expect(spot?.costWeightedMemoryUsd).toBeCloseTo(0.0375, 12);
    // A spot node's on-demand price was never stored: unknown, not zero savings.
    expect(spot?.onDemandUsd).toBe(0);
    expect(spot?.onDemandUnknownUsd).toBeCloseTo(0.075, 12);
    db.close();
  });
});
