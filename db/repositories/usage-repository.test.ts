import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeSnapshot, NodeRecord, PodRecord } from '../../core/model.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { joinSnapshotUsage } from '../../core/usage-snapshot.js';
import type { SnapshotUsage } from '../../core/usage.js';
import Database from 'better-sqlite3';
import { loadMigrations, migrate, openDb } from '../open-db.js';
import { createKubeRepository } from './kube-repository.js';
import { createReportsRepository } from './reports-repository.js';
import { createUsageRepository, DEFAULT_USAGE_RETENTION_MS, type PrometheusBackfillStatus } from './usage-repository.js';
import { createClusterSnapshotRepository } from './cluster-snapshot-repository.js';

const dir = mkdtempSync(join(tmpdir(), 'ledger-usage-repo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const H = 3_600_000;
const MIN = 60_000;
const MiB = 2 ** 20;
const GiB = 2 ** 30;
const T0 = Date.parse('2026-11-02T10:00:00Z');

const node: NodeRecord = {
  name: 'n1',
  nodeClaim: 'general-abcde',
  nodePool: 'general',
  instanceType: 'm5.xlarge',
  capacityType: 'on-demand',
  zone: 'us-east-1a',
  instanceId: 'i-0123',
  createdAt: 0,
  allocatable: { cpuMillicores: 4000, memoryBytes: 16 * GiB, pods: 58, gpu: 0 },
  labels: {},
};

/** web: a Deployment's pod requesting 1,000m / 1 GiB; db: a StatefulSet pod with a 512 MiB limit, OOM-killed once. */
function pods(oomAt: number | null): PodRecord[] {
  // The db container's CPU limit is 750m (stored with the rollups, migration 0015); web has none.
  const container = (name: string, cpu: number, mem: number, limitMem: number | null, oom: number | null) => ({
    name,
    requests: { cpuMillicores: cpu, memoryBytes: mem },
    limits: { cpuMillicores: limitMem === null ? null : 750, memoryBytes: limitMem },
    restartCount: oom === null ? 0 : 1,
    lastTermination: oom === null ? null : { reason: 'OOMKilled', finishedAt: oom, exitCode: 137 },
  });
  const base = { nodeName: 'n1', phase: 'Running', team: null, doNotDisrupt: false, createdAt: 0 };
  return [
    {
      ...base,
      uid: 'u-web',
      namespace: 'storefront',
      name: 'web-7d9f8c6b5-x2k9q',
      ownerKind: 'ReplicaSet',
      ownerName: 'web-7d9f8c6b5',
      labels: { 'pod-template-hash': '7d9f8c6b5' },
      requests: { cpuMillicores: 1000, memoryBytes: GiB, pods: 1, gpu: 0 },
      containers: [container('web', 1000, GiB, null, null)],
    },
    {
      ...base,
      uid: 'u-db',
      namespace: 'payments',
      name: 'db-0',
      ownerKind: 'StatefulSet',
      ownerName: 'db',
      labels: {},
      requests: { cpuMillicores: 500, memoryBytes: 256 * MiB, pods: 1, gpu: 0 },
      containers: [container('db', 500, 256 * MiB, 512 * MiB, oomAt)],
    },
  ];
}

function snapshot(takenAt: number, webCpu: number, oomAt: number | null, available = true): { s: KubeSnapshot; u: SnapshotUsage } {
  const s: KubeSnapshot = { takenAt, nodePools: [], namespaces: [], nodes: [node], nodeClaims: [], pods: pods(oomAt), events: [] };
  const u: SnapshotUsage = available
    ? {
        status: { state: 'available', message: 'metrics-server answered', checkedAt: takenAt },
        pods: [
          {
            namespace: 'storefront',
            name: 'web-7d9f8c6b5-x2k9q',
            measuredAt: takenAt - 10_000,
            windowMs: 10_500,
            containers: [{ name: 'web', cpuMillicores: webCpu, memoryBytes: 300 * MiB }],
          },
          {
            namespace: 'payments',
            name: 'db-0',
            measuredAt: takenAt - 10_000,
            windowMs: 10_500,
            containers: [{ name: 'db', cpuMillicores: 50, memoryBytes: 480 * MiB }],
          },
        ],
        nodes: [{ name: 'n1', measuredAt: takenAt - 5_000, windowMs: 20_000, cpuMillicores: 1700, memoryBytes: 3 * GiB }],
      }
    : { status: { state: 'absent', message: 'no metrics-server (404 on metrics.k8s.io)', checkedAt: takenAt }, pods: [], nodes: [] };
  return { s, u };
}

function write(
  db: ReturnType<typeof openDb>,
  takenAt: number,
  webCpu: number,
  oomAt: number | null,
  retentionMs = 3 * 24 * H,
  available = true,
) {
  const { s, u } = snapshot(takenAt, webCpu, oomAt, available);
  const rows = joinSnapshotUsage(s, u);
  const built = buildSnapshotRows(s, () => ({ pricePerHour: 0.192, currency: 'USD', source: 'pricing-api' }));
  return {
    id: createKubeRepository(db).writeSnapshot({ snapshot: s, ...built, runId: null, usage: { rows, status: u.status, retentionMs } }),
    built,
    rows,
  };
}

describe('usage storage with each snapshot (real SQLite file)', () => {
  const db = openDb({ path: join(dir, 'usage.db') });
  const repo = createUsageRepository(db);
  // Twelve 5-minute snapshots in 10:00-11:00 with web CPU 10, 20, ..., 120 m (p50 65, p95 114.5, p99 118.9, see
  // core/usage.test.ts); the db container OOM-killed at 10:07 (every later snapshot still shows that lastState).
  const oomAt = T0 + 7 * MIN;
  for (let i = 0; i < 12; i++) write(db, T0 + i * 5 * MIN, (i + 1) * 10, i >= 2 ? oomAt : null);

  it('stores the CPU limit with the samples and the hourly rollups: db 750m, web none (null)', () => {
    const hours = repo.workloadHours({ fromMs: T0, toMs: T0 + H });
    expect(hours.map((h) => [h.workloadName, h.limitCpuMillicores])).toEqual([
      ['db', 750],
      ['web', null],
    ]);
  });

  it('the efficiency chart’s usage per bucket: the snapshots of each bucket summed, one row per bucket', () => {
    // 15-minute buckets of 10:00-11:00 hold three snapshots each; web uses (i + 1) x 10 m at snapshot i, db 50 m, and
    // n1 allocates 4,000 m: bucket k sums web 10 x ((3k+1) + (3k+2) + (3k+3)) = 90k + 60, db 150, allocatable 12,000.
    const rows = createReportsRepository(db).usageBuckets({ fromMs: T0, toMs: T0 + H, bucketMs: 15 * MIN });
    expect(rows.map((r) => [r.bucketStartMs - T0, r.nodePool, r.usageCpuMillicores, r.allocatableCpuMillicores])).toEqual([
      [0, 'general', 210, 12_000],
      [15 * MIN, 'general', 300, 12_000],
      [30 * MIN, 'general', 390, 12_000],
      [45 * MIN, 'general', 480, 12_000],
    ]);
    // Memory: (300 + 480) MiB at each snapshot, 3 x 16 GiB allocatable a bucket.
    expect(rows.map((r) => [r.usageMemoryBytes, r.allocatableMemoryBytes])).toEqual(
      Array.from({ length: 4 }, () => [3 * 780 * MiB, 48 * GiB]),
    );
  });

  it('hour buckets read the hour’s sums and, at a range’s ends, the snapshots of the partial hours', () => {
    const reports = createReportsRepository(db);
    const row = (fromMs: number, toMs: number) =>
      reports
        .usageBuckets({ fromMs, toMs, bucketMs: H })
        .map((r) => [r.bucketStartMs - T0, r.usageCpuMillicores, r.allocatableCpuMillicores]);
    // The whole hour 10:00-11:00: web 10 x (1 + ... + 12) = 780 m, db 12 x 50 = 600 m; 12 x 4,000 m allocatable.
    expect(row(T0, T0 + 2 * H)).toEqual([[0, 1380, 48_000]]);
    // From 10:10 (snapshots 2 to 11): web 10 x (3 + ... + 12) = 750, db 500; 10 x 4,000.
    expect(row(T0 + 10 * MIN, T0 + 2 * H)).toEqual([[0, 1250, 40_000]]);
    // To 10:20 (snapshots 0 to 3): web 100, db 200; and 10:10-10:20 (snapshots 2, 3): web 70, db 100.
    expect(row(T0 - H, T0 + 20 * MIN)).toEqual([[0, 300, 16_000]]);
    expect(row(T0 + 10 * MIN, T0 + 20 * MIN)).toEqual([[0, 170, 8_000]]);
  });

  it('the pods’ usage per node at a snapshot, and the stored snapshot as the engine reads it', () => {
    // 10:00: web 10m + db 50m; 300 + 480 MiB.
    expect(repo.podUsageByNode(T0)).toEqual([{ nodeName: 'n1', usageCpuMillicores: 60, usageMemoryBytes: 780 * MiB }]);
    // The engine's reader (the one the what-ifs and the Workloads re-packs use) at the same snapshot.
    const snap = createClusterSnapshotRepository(db).clusterObjectsAt(T0 + 7 * MIN);
    expect(snap?.snapshot.takenAt).toBe(T0 + 5 * MIN);
    expect(snap?.nodePrices.n1).toMatchObject({ instanceType: 'm5.xlarge', zone: 'us-east-1a', pricePerHour: 0.192 });
    expect(snap?.objects.nodes.map((n) => [n.metadata.name, n.metadata.labels?.['karpenter.sh/nodepool']])).toEqual([['n1', 'general']]);
    expect(
      snap?.objects.pods.map((p) => [
        p.metadata.namespace,
        p.metadata.name,
        p.spec.nodeName,
        p.spec.containers[0].resources?.requests?.cpu,
      ]),
    ).toEqual([
      ['payments', 'db-0', 'n1', '500m'],
      ['storefront', 'web-7d9f8c6b5-x2k9q', 'n1', '1000m'],
    ]);
    expect(createClusterSnapshotRepository(db).clusterObjectsAt(T0 - 1)).toBeNull();
  });

  it('fills each pod usage and the namespace / NodePool rows beside requests', () => {
    const ns = repo.namespaceUsage({ fromMs: T0, toMs: T0 + 1 });
    expect(ns).toEqual([
      expect.objectContaining({
        namespace: 'payments',
        nodePool: 'general',
        pods: 1,
        podsWithUsage: 1,
        requestCpuMillicores: 500,
        usageCpuMillicores: 50,
        usageMemoryBytes: 480 * MiB,
      }),
      expect.objectContaining({
        namespace: 'storefront',
        requestCpuMillicoresWithUsage: 1000,
        usageCpuMillicores: 10,
        usageMemoryBytes: 300 * MiB,
      }),
    ]);
    expect(repo.nodePoolUsage({ fromMs: T0, toMs: T0 + 1 })).toEqual([
      {
        takenAt: T0,
        nodePool: 'general',
        nodes: 1,
        nodesWithUsage: 1,
        podUsageCpuMillicores: 60,
        podUsageMemoryBytes: 780 * MiB,
        nodeUsageCpuMillicores: 1700,
        nodeUsageMemoryBytes: 3 * GiB,
      },
    ]);
    // The attribution methods saw the usage: every pod had some.
    const { built } = write(db, T0 - H, 5, null);
    expect(built.namespaceRollups.every((r) => r.usagePods === r.pods)).toBe(true);
  });

  it('keeps the open hour in samples and computes it on read, marked not final', () => {
    const open = repo.workloadHours({ fromMs: T0, toMs: T0 + H }).filter((r) => r.workloadName === 'web');
    expect(open).toEqual([
      expect.objectContaining({ final: false, workloadKind: 'Deployment', samples: 12, cpuP50Millicores: 65, cpuMaxMillicores: 120 }),
    ]);
    expect(open[0].cpuP95Millicores).toBeCloseTo(114.5, 9);
  });

  it('rolls the hour up once a snapshot of the next hour arrives, counting the OOM kill once', () => {
    write(db, T0 + H, 200, oomAt);
    const hours = repo.workloadHours({ fromMs: T0, toMs: T0 + H });
    const web = hours.find((r) => r.workloadName === 'web');
    const dbRow = hours.find((r) => r.workloadName === 'db');
    expect(web).toMatchObject({
      final: true,
      source: 'metrics-server',
      samples: 12,
      pods: 1,
      cpuP50Millicores: 65,
      cpuMaxMillicores: 120,
      requestCpuMillicores: 1000,
      memoryMaxBytes: 300 * MiB,
    });
    expect(web?.cpuP95Millicores).toBeCloseTo(114.5, 9);
    expect(web?.cpuP99Millicores).toBeCloseTo(118.9, 9);
    expect(dbRow).toMatchObject({ workloadKind: 'StatefulSet', oomKills: 1, memoryMaxBytes: 480 * MiB, requestMemoryBytes: 256 * MiB });
    expect(repo.oomKills({ fromMs: T0, toMs: T0 + 2 * H })).toEqual([
      {
        at: oomAt,
        namespace: 'payments',
        workloadKind: 'StatefulSet',
        workloadName: 'db',
        container: 'db',
        pod: 'db-0',
        memoryLimitBytes: 512 * MiB,
      },
    ]);
  });

  it('a Prometheus backfill fills only hours metrics-server did not measure, in one transaction', () => {
    const status: PrometheusBackfillStatus = {
      url: 'http://127.0.0.1:9090',
      at: T0,
      ok: true,
      message: null,
      fromMs: T0 - 3 * H,
      toMs: T0 + H,
      requests: 2,
      series: 1,
      rollupsWritten: 0,
    };
    const roll = (hourStart: number, cpu: number) => ({
      hourStart,
      namespace: 'storefront',
      workloadKind: 'Deployment',
      workloadName: 'web',
      container: 'web',
      samples: 12,
      pods: 1,
      cpuP50Millicores: cpu,
      cpuP95Millicores: cpu,
      cpuP99Millicores: cpu,
      cpuMaxMillicores: cpu,
      cpuAvgMillicores: cpu,
      memoryMaxBytes: 100,
      memoryAvgBytes: 100,
      requestCpuMillicores: null,
      requestMemoryBytes: null,
      limitCpuMillicores: null,
      oomKills: 0,
    });
    // 08:00 is new; 10:00 was measured by metrics-server and stays as it was.
    expect(repo.writeBackfill([roll(T0 - 2 * H, 999), roll(T0, 999)], status)).toBe(1);
    const web = repo.workloadHours({ fromMs: T0 - 3 * H, toMs: T0 + H }).filter((r) => r.workloadName === 'web' && r.final);
    expect(web.map((r) => [r.hourStart, r.source, r.cpuMaxMillicores])).toEqual([
      [T0 - 2 * H, 'prometheus', 999],
      [T0 - H, 'metrics-server', 5],
      [T0, 'metrics-server', 120],
    ]);
    expect(repo.prometheusStatus()).toMatchObject({ rollupsWritten: 1, ok: true });
  });

  it('prunes samples (and per-node usage) past the retention, never an hour not rolled up yet', () => {
    expect(repo.sampleCount()).toBeGreaterThan(20);
    // Retention of 30 minutes at 11:05: samples before 10:35 go (10:00 is rolled up), 10:35 to 11:05 stay.
    write(db, T0 + H + 5 * MIN, 100, oomAt, 30 * MIN);
    const kept = db.prepare('SELECT DISTINCT taken_at FROM usage_samples ORDER BY taken_at').pluck().all();
    expect(kept).toEqual([35, 40, 45, 50, 55, 60, 65].map((m) => T0 + m * MIN));
    // Per-node usage goes with the samples (issue 24: no page reads it), snapshot by snapshot.
    const nodeUsageAt = () =>
      db
        .prepare('SELECT DISTINCT s.taken_at FROM usage_nodes u JOIN snapshots s ON s.id = u.snapshot_id ORDER BY s.taken_at')
        .pluck()
        .all();
    expect(nodeUsageAt()).toEqual(kept);
    // A retention shorter than the open hour never cuts into it: 1 minute at 11:10 keeps 11:00 onwards.
    write(db, T0 + H + 10 * MIN, 100, oomAt, MIN);
    expect(db.prepare('SELECT MIN(taken_at) FROM usage_samples').pluck().get()).toBe(T0 + H);
    expect(nodeUsageAt()[0]).toBe(T0 + H);
    // The rolled-up hour is untouched.
    expect(repo.workloadHours({ fromMs: T0, toMs: T0 + H }).find((r) => r.workloadName === 'web')?.samples).toBe(12);
  });

  it('a snapshot without metrics-server says so and stores no usage rows', () => {
    write(db, T0 + 2 * H, 0, null, 3 * 24 * H, false);
    expect(repo.metricsStatus()).toMatchObject({ state: 'absent' });
    expect(repo.namespaceUsage({ fromMs: T0 + 2 * H, toMs: T0 + 2 * H + 1 })).toEqual([]);
    expect(repo.coverage(T0, T0 + 3 * H)).toEqual({ snapshots: 16, withUsage: 15, lastUsageAt: T0 + H + 10 * MIN });
  });
});

describe('the default retention keeps samples only until their hour is rolled up (issue 24)', () => {
  const db = openDb({ path: join(dir, 'default-retention.db') });
  const repo = createUsageRepository(db);
  // Four hours of 5-minute snapshots, 10:00 to 13:55; web uses 10 m in hour 0, 20 in hour 1, ...
  for (let i = 0; i < 48; i++) write(db, T0 + i * 5 * MIN, 10 * (1 + Math.floor(i / 12)), null, DEFAULT_USAGE_RETENTION_MS);

  it('at 13:55 the samples of 11:55 onwards are left (25 snapshots, not 48 as with 3 days); every closed hour is rolled up whole', () => {
    const kept = db.prepare('SELECT DISTINCT taken_at FROM usage_samples ORDER BY taken_at').pluck().all() as number[];
    // 13:55 − 2 h = 11:55: snapshots 11:55 ... 13:55 are 25.
    expect(kept.length).toBe(25);
    expect(kept[0]).toBe(T0 + H + 55 * MIN);
    // Right-sizing reads the rollups: 10:00, 11:00, 12:00 closed with 12 samples each, 13:00 open (from samples).
    const web = repo.workloadHours({ fromMs: T0, toMs: T0 + 4 * H }).filter((r) => r.workloadName === 'web');
    expect(web.map((r) => [(r.hourStart - T0) / H, r.samples, r.cpuMaxMillicores, r.final])).toEqual([
      [0, 12, 10, true],
      [1, 12, 20, true],
      [2, 12, 30, true],
      [3, 12, 40, false],
    ]);
  });
});

describe('where each workload runs, for right-sizing (real SQLite file)', () => {
  const db = openDb({ path: join(dir, 'placement.db') });
  const repo = createUsageRepository(db);
  write(db, T0, 10, null);
  write(db, T0 + 5 * MIN, 20, null);

  it('its pods per NodePool at the newest snapshot with samples before the instant asked', () => {
    const at = (beforeMs: number) =>
      repo
        .workloadPlacement(beforeMs)
        .map((r) => `${r.takenAt - T0} ${r.namespace}/${r.workloadKind}/${r.workloadName}/${r.container} ${r.nodePool}:${r.pods}`);
    expect(at(T0 + H)).toEqual([`${5 * MIN} payments/StatefulSet/db/db general:1`, `${5 * MIN} storefront/Deployment/web/web general:1`]);
    // Before the second snapshot: the first; at an instant itself, that snapshot is not "before".
    expect(at(T0 + 5 * MIN)).toEqual([`0 payments/StatefulSet/db/db general:1`, `0 storefront/Deployment/web/web general:1`]);
    expect(at(T0)).toEqual([]);
  });
});

describe('usage hours of the efficiency chart (migration 0022)', () => {
  it('are filled from the usage stored before the migration', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 22),
    );
    // Two snapshots in 10:00-11:00, one at 11:05; general has two capacity-type rows (2,000 + 4,000 m allocatable).
    for (const [id, at, cpu] of [
      [1, T0, 100],
      [2, T0 + 30 * MIN, 300],
      [3, T0 + H + 5 * MIN, 50],
    ]) {
      db.prepare('INSERT INTO snapshots (id, taken_at, node_count, pod_count) VALUES (?, ?, 2, 2)').run(id, at);
      for (const [capacityType, alloc] of [
        ['spot', 2000],
        ['on-demand', 4000],
      ] as const)
        db.prepare(
          `INSERT INTO snapshot_nodepools (snapshot_id, taken_at, nodepool, capacity_type, nodes, alloc_cpu_m, alloc_memory_b, alloc_pods,
             alloc_gpu, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour) VALUES (?, ?, 'general', ?, 1, ?, ?, 58, 0, 0, 0, 0, 0, 0)`,
        ).run(id, at, capacityType, alloc, alloc * MiB);
      db.prepare(
        `INSERT INTO usage_nodepools (snapshot_id, taken_at, nodepool, nodes, nodes_with_usage, pod_usage_cpu_m, pod_usage_memory_b,
           node_usage_cpu_m, node_usage_memory_b) VALUES (?, ?, 'general', 2, 2, ?, ?, 0, 0)`,
      ).run(id, at, cpu, cpu * MiB);
    }
    migrate(db, all);
    // 10:00: 100 + 300 m used of 2 x 6,000 m; 11:00: 50 of 6,000.
    const rows = createReportsRepository(db as unknown as ReturnType<typeof openDb>).usageBuckets({
      fromMs: T0,
      toMs: T0 + 2 * H,
      bucketMs: H,
    });
    expect(rows.map((r) => [r.bucketStartMs - T0, r.usageCpuMillicores, r.allocatableCpuMillicores, r.usageMemoryBytes])).toEqual([
      [0, 400, 12_000, 400 * MiB],
      [H, 50, 6000, 50 * MiB],
    ]);
    expect(db.prepare('SELECT hour_ms, snapshots FROM usage_nodepool_hours ORDER BY hour_ms').raw().all()).toEqual([
      [T0, 2],
      [T0 + H, 1],
    ]);
  });
});
