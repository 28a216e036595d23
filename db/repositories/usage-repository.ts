import type { Db } from '../open-db.js';
import { createSampleRowsWriter } from './usage-sample-rows.js';
import type {
  NamespaceUsageRow as SnapshotNamespaceUsage,
  NodePoolUsageRow as SnapshotNodePoolUsage,
  SnapshotUsageRows,
} from '../../core/usage-snapshot.js';
import { hourStart, type MetricsStatus, type RollupInput, type WorkloadHourRollup, WorkloadHourAccumulator } from '../../core/usage.js';
import { HOUR_MS } from '../../core/time.js';

/**
 * All SQL for what pods really use (migration 0013). Writes happen inside the snapshot's transaction
 * (kube-repository calls addSnapshot) or, for a Prometheus backfill, in one transaction of their own. Reads are for
 * the analytics on top: hourly workload rollups (closed hours stored, the open hour computed from the samples),
 * per-snapshot namespace and NodePool usage beside requests, OOM kills, and the metrics-server status.
 *
 * Units: CPU millicores (fractional), memory bytes, times epoch ms UTC.
 */

/** Settings key: the last metrics-server status (MetricsStatus JSON), for doctor-like messages in /api/status. */
export const METRICS_STATUS_SETTING = 'usage.metrics-server';
/** Settings key: the last Prometheus backfill (PrometheusBackfillStatus JSON). */
export const PROMETHEUS_STATUS_SETTING = 'usage.prometheus';

/**
 * Container samples (and per-node usage) are kept 2 hours behind the newest snapshot (issue 24): an hour is rolled up into
 * usage_workload_hours at the first snapshot of the next, so nothing is lost to the right-sizing percentiles; what
 * reads older samples is only the Workloads page's placement and per-node usage at an `at` in the past (empty beyond
 * the retention, as it was beyond 3 days before). At the envelope (150,000 samples a snapshot) 3 days were ~23 GiB.
 */
export const DEFAULT_USAGE_RETENTION_MS = 2 * HOUR_MS;

/**
 * A per-cluster setting's key: the key itself for cluster 1 (a one-cluster ledger's, as before several clusters),
 * `key@<id>` for another cluster.
 */
export const clusterSetting = (key: string, clusterId: number): string => (clusterId === 1 ? key : `${key}@${clusterId}`);

export interface PrometheusBackfillStatus {
  /** The API's base URL without credentials or query. */
  url: string;
  at: number;
  ok: boolean;
  message: string | null;
  /** The hours asked for, [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  requests: number;
  series: number;
  rollupsWritten: number;
}

export interface UsageSnapshotWrite {
  rows: SnapshotUsageRows;
  status: MetricsStatus;
  /** Samples older than this behind the snapshot are deleted (never those of an hour not yet rolled up). */
  retentionMs: number;
}

/** Read filter: [fromMs, toMs) and, optionally, one namespace, one cluster (clusters.id; null or absent: every cluster). */
export interface UsageRange {
  fromMs: number;
  toMs: number;
  namespace?: string;
  clusterId?: number | null;
}

/** A namespace × NodePool row as core builds it, at the snapshot it was stored with. */
export interface NamespaceUsageRow extends SnapshotNamespaceUsage {
  takenAt: number;
}

/** A workload container's pods in one NodePool at one snapshot. */
export interface WorkloadPlacementRow {
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  /** '' = a node without a NodePool (or a pod not yet bound). */
  nodePool: string;
  pods: number;
  takenAt: number;
}

/** A NodePool row as core builds it, at the snapshot it was stored with. */
export interface NodePoolUsageRow extends SnapshotNodePoolUsage {
  takenAt: number;
}

export interface OomKillRow {
  at: number;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  container: string;
  pod: string;
  memoryLimitBytes: number | null;
}

export interface StoredWorkloadHour extends WorkloadHourRollup {
  source: 'metrics-server' | 'prometheus';
  /** false for the open hour, computed from the samples at read time. */
  final: boolean;
}

type SampleTuple = [number, string, string, string, string, string, number, number, number | null, number | null, number | null];

/** A stored sample row as the hourly rollup takes it. */
const sampleOf = (r: SampleTuple): RollupInput => ({
  at: r[0],
  namespace: r[1],
  workloadKind: r[2],
  workloadName: r[3],
  container: r[4],
  pod: r[5],
  cpuMillicores: r[6],
  memoryBytes: r[7],
  requestCpuMillicores: r[8],
  requestMemoryBytes: r[9],
  limitCpuMillicores: r[10],
});

export function createUsageRepository(db: Db) {
  const insertUsageSnapshot = db.prepare(
    'INSERT INTO usage_snapshots (snapshot_id, taken_at, state, message, pods_with_usage, cluster_id) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const writeSamples = createSampleRowsWriter(db);
  const insertNamespace = db.prepare(`
    INSERT INTO usage_namespaces (snapshot_id, taken_at, namespace, nodepool, pods, pods_with_usage, req_cpu_m, req_memory_b,
      req_cpu_m_with_usage, req_memory_b_with_usage, usage_cpu_m, usage_memory_b, cluster_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertNodePool = db.prepare(`
    INSERT INTO usage_nodepools (snapshot_id, taken_at, nodepool, nodes, nodes_with_usage, pod_usage_cpu_m, pod_usage_memory_b,
      node_usage_cpu_m, node_usage_memory_b, cluster_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // The hour's sums for the efficiency chart (migration 0022), beside the snapshot's row; the allocatable is the same
  // snapshot's NodePool rows (written before its usage, in the same transaction).
  const addNodePoolHour = db.prepare(`
    INSERT INTO usage_nodepool_hours (hour_ms, nodepool, snapshots, pod_usage_cpu_m, pod_usage_memory_b, alloc_cpu_m, alloc_memory_b, cluster_id)
    SELECT CAST(@hourMs AS INTEGER), @nodePool, 1, @cpu, @memory, TOTAL(alloc_cpu_m), TOTAL(alloc_memory_b), @clusterId
    FROM snapshot_nodepools WHERE snapshot_id = @snapshotId AND nodepool = @nodePool
    ON CONFLICT (hour_ms, nodepool, cluster_id) DO UPDATE SET snapshots = snapshots + 1,
      pod_usage_cpu_m = pod_usage_cpu_m + excluded.pod_usage_cpu_m, pod_usage_memory_b = pod_usage_memory_b + excluded.pod_usage_memory_b,
      alloc_cpu_m = alloc_cpu_m + excluded.alloc_cpu_m, alloc_memory_b = alloc_memory_b + excluded.alloc_memory_b`);
  const insertNode = db.prepare(
    'INSERT INTO usage_nodes (snapshot_id, node_name, cpu_m, memory_b, measured_at, window_ms) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insertOomKill = db.prepare(`
    INSERT OR IGNORE INTO usage_oom_kills (pod_uid, container, at, namespace, workload_kind, workload_name, pod, memory_limit_b, snapshot_id,
      cluster_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // The hours and their finalisation are each cluster's own (usage_hours' key is (hour_start, cluster_id)): a cluster's
  // hour is rolled up at its own next hour's first snapshot, from its own samples.
  const noteHour = db.prepare('INSERT OR IGNORE INTO usage_hours (hour_start, cluster_id) VALUES (?, ?)');
  const hourIsFinal = db.prepare('SELECT final FROM usage_hours WHERE hour_start = ? AND cluster_id = ?').pluck();
  const openHoursBefore = db
    .prepare('SELECT hour_start FROM usage_hours WHERE final = 0 AND hour_start < ? AND cluster_id = ? ORDER BY hour_start')
    .pluck();
  const markFinal = db.prepare('UPDATE usage_hours SET final = 1 WHERE hour_start = ? AND cluster_id = ?');
  const samplesOfClusterHour = db
    .prepare(
      `SELECT taken_at, namespace, workload_kind, workload_name, container, pod, cpu_m, memory_b, req_cpu_m, req_memory_b, lim_cpu_m
       FROM usage_samples WHERE taken_at >= ? AND taken_at < ? AND cluster_id = ?`,
    )
    .raw();
  const oomKillsOfClusterHour = db.prepare(
    `SELECT at, namespace, workload_kind AS workloadKind, workload_name AS workloadName, container, pod, memory_limit_b AS memoryLimitBytes
     FROM usage_oom_kills WHERE at >= ? AND at < ? AND cluster_id = ? ORDER BY at, namespace, workload_kind, workload_name, container`,
  );
  const oomKillsBetween = db.prepare(
    `SELECT at, namespace, workload_kind AS workloadKind, workload_name AS workloadName, container, pod, memory_limit_b AS memoryLimitBytes
     FROM usage_oom_kills WHERE at >= @fromMs AND at < @toMs AND (@namespace IS NULL OR namespace = @namespace)
       AND (@clusterId IS NULL OR cluster_id = @clusterId)
     ORDER BY at, namespace, workload_kind, workload_name, container`,
  );
  const upsertRollup = db.prepare(`
    INSERT INTO usage_workload_hours (hour_start, namespace, workload_kind, workload_name, container, samples, pods, cpu_p50_m, cpu_p95_m,
      cpu_p99_m, cpu_max_m, cpu_avg_m, memory_max_b, memory_avg_b, req_cpu_m, req_memory_b, lim_cpu_m, oom_kills, source, cluster_id)
    VALUES (@hourStart, @namespace, @workloadKind, @workloadName, @container, @samples, @pods, @cpuP50Millicores, @cpuP95Millicores,
      @cpuP99Millicores, @cpuMaxMillicores, @cpuAvgMillicores, @memoryMaxBytes, @memoryAvgBytes, @requestCpuMillicores,
      @requestMemoryBytes, @limitCpuMillicores, @oomKills, @source, @clusterId)
    ON CONFLICT (namespace, workload_kind, workload_name, container, hour_start, cluster_id) DO UPDATE SET samples = excluded.samples,
      pods = excluded.pods, cpu_p50_m = excluded.cpu_p50_m, cpu_p95_m = excluded.cpu_p95_m, cpu_p99_m = excluded.cpu_p99_m,
      cpu_max_m = excluded.cpu_max_m, cpu_avg_m = excluded.cpu_avg_m, memory_max_b = excluded.memory_max_b,
      memory_avg_b = excluded.memory_avg_b, req_cpu_m = excluded.req_cpu_m, req_memory_b = excluded.req_memory_b,
      lim_cpu_m = excluded.lim_cpu_m, oom_kills = excluded.oom_kills, source = excluded.source
    WHERE usage_workload_hours.source = 'prometheus' OR excluded.source = 'metrics-server'`);
  const bumpOomKills = db.prepare(`
    UPDATE usage_workload_hours SET oom_kills = oom_kills + 1
    WHERE hour_start = ? AND namespace = ? AND workload_kind = ? AND workload_name = ? AND container = ? AND cluster_id = ?`);
  // The rows under the usage_samples view (migration 0031).
  const pruneSamples = db.prepare(
    'DELETE FROM usage_sample_rows WHERE taken_at < ? AND dims_id IN (SELECT id FROM usage_sample_dims WHERE cluster_id = ?)',
  );
  // Per-node usage goes with the samples (issue 24): no page reads it (node usage per NodePool, usage_nodepools, is
  // what the efficiency chart reads, kept with the 5-minute rows); at the envelope 14 days of it were 0.68 GiB. Only
  // 5-minute snapshots have it (a fold deletes it), each found by its key; at most 12 snapshots' worth a write, so a
  // ledger of 14 days of it (before issue 24's cut) sheds it over its next snapshots, not in one long transaction.
  const pruneNodeUsage = db.prepare(`
    DELETE FROM usage_node_rows WHERE snapshot_id IN (
      SELECT s.id FROM snapshots s WHERE s.taken_at < ? AND s.fold_ms IS NULL
        AND EXISTS (SELECT 1 FROM usage_node_rows u WHERE u.snapshot_id = s.id) ORDER BY s.taken_at LIMIT 12)`);
  const setting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const getSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();

  /** Rolls one cluster's hour of samples (and OOM kills) up into usage_workload_hours, replacing any backfilled rows. */
  const finalizeHour = (hour: number, clusterId: number): number => {
    const acc = new WorkloadHourAccumulator();
    for (const r of samplesOfClusterHour.iterate(hour, hour + HOUR_MS, clusterId) as IterableIterator<SampleTuple>) {
      acc.add(sampleOf(r));
    }
    for (const k of oomKillsOfClusterHour.all(hour, hour + HOUR_MS, clusterId) as OomKillRow[]) acc.addOomKill(k);
    const rollups = acc.finish();
    for (const r of rollups) upsertRollup.run({ ...r, source: 'metrics-server', clusterId });
    markFinal.run(hour, clusterId);
    return rollups.length;
  };

  /**
   * Stores one snapshot's usage: its status, the samples, the namespace / NodePool / node rows, new OOM kills; then
   * rolls up every hour before the snapshot's that is not yet final, and prunes samples past the retention (never of
   * an hour not yet rolled up). Every row is the cluster's (`clusterId`, the snapshot's); the hours rolled up and the
   * samples pruned are that cluster's only. Call inside the snapshot's transaction.
   */
  const addSnapshot = (snapshotId: number, takenAt: number, w: UsageSnapshotWrite, clusterId = 1): void => {
    const { rows } = w;
    insertUsageSnapshot.run(
      snapshotId,
      takenAt,
      w.status.state,
      w.status.state === 'available' ? null : w.status.message,
      rows.podsWithUsage,
      clusterId,
    );
    setting.run(clusterSetting(METRICS_STATUS_SETTING, clusterId), JSON.stringify(w.status));
    // Written to migration 0031's narrow rows directly (the usage_samples view's trigger does the same per row, slower).
    writeSamples(snapshotId, takenAt, rows.samples, clusterId);
    if (rows.sampleCount > 0) noteHour.run(hourStart(takenAt), clusterId);
    for (const n of rows.namespaces) {
      insertNamespace.run(
        snapshotId,
        takenAt,
        n.namespace,
        n.nodePool,
        n.pods,
        n.podsWithUsage,
        n.requestCpuMillicores,
        n.requestMemoryBytes,
        n.requestCpuMillicoresWithUsage,
        n.requestMemoryBytesWithUsage,
        n.usageCpuMillicores,
        n.usageMemoryBytes,
        clusterId,
      );
    }
    for (const p of rows.nodePools) {
      insertNodePool.run(
        snapshotId,
        takenAt,
        p.nodePool,
        p.nodes,
        p.nodesWithUsage,
        p.podUsageCpuMillicores,
        p.podUsageMemoryBytes,
        p.nodeUsageCpuMillicores,
        p.nodeUsageMemoryBytes,
        clusterId,
      );
      addNodePoolHour.run({
        hourMs: hourStart(takenAt),
        nodePool: p.nodePool,
        cpu: p.podUsageCpuMillicores,
        memory: p.podUsageMemoryBytes,
        snapshotId,
        clusterId,
      });
    }
    for (const n of rows.nodes) insertNode.run(snapshotId, n.nodeName, n.cpuMillicores, n.memoryBytes, n.measuredAt, n.windowMs);
    for (const k of rows.oomKills) {
      const added = insertOomKill.run(
        k.podUid,
        k.container,
        k.at,
        k.namespace,
        k.workloadKind,
        k.workloadName,
        k.pod,
        k.memoryLimitBytes,
        snapshotId,
        clusterId,
      ).changes;
      // A kill first seen after its hour was rolled up (the pod's status reached us late) still counts there.
      if (added > 0 && hourIsFinal.get(hourStart(k.at), clusterId) === 1) {
        const bumped = bumpOomKills.run(hourStart(k.at), k.namespace, k.workloadKind, k.workloadName, k.container, clusterId).changes;
        if (bumped === 0) {
          const acc = new WorkloadHourAccumulator();
          acc.addOomKill(k);
          for (const r of acc.finish()) upsertRollup.run({ ...r, source: 'metrics-server', clusterId });
        }
      }
    }
    const current = hourStart(takenAt);
    for (const hour of openHoursBefore.all(current, clusterId) as number[]) finalizeHour(hour, clusterId);
    const cut = Math.min(takenAt - w.retentionMs, current);
    pruneSamples.run(cut, clusterId);
    pruneNodeUsage.run(cut);
  };

  const rollupRow = (r: Record<string, unknown>): StoredWorkloadHour => ({
    hourStart: r.hour_start as number,
    namespace: r.namespace as string,
    workloadKind: r.workload_kind as string,
    workloadName: r.workload_name as string,
    container: r.container as string,
    samples: r.samples as number,
    pods: r.pods as number,
    cpuP50Millicores: r.cpu_p50_m as number,
    cpuP95Millicores: r.cpu_p95_m as number,
    cpuP99Millicores: r.cpu_p99_m as number,
    cpuMaxMillicores: r.cpu_max_m as number,
    cpuAvgMillicores: r.cpu_avg_m as number,
    memoryMaxBytes: r.memory_max_b as number,
    memoryAvgBytes: r.memory_avg_b as number,
    requestCpuMillicores: r.req_cpu_m as number | null,
    requestMemoryBytes: r.req_memory_b as number | null,
    limitCpuMillicores: (r.lim_cpu_m as number | null | undefined) ?? null,
    oomKills: r.oom_kills as number,
    source: r.source as StoredWorkloadHour['source'],
    final: true,
  });
  const storedHours = db.prepare(`
    SELECT * FROM usage_workload_hours WHERE hour_start >= @fromMs AND hour_start < @toMs AND (@namespace IS NULL OR namespace = @namespace)
      AND (@clusterId IS NULL OR cluster_id = @clusterId)
    ORDER BY hour_start, namespace, workload_kind, workload_name, container`);
  // An hour open in a cluster is computed from that cluster's samples (another cluster may have rolled it up already).
  const openHours = db
    .prepare(
      'SELECT hour_start, cluster_id FROM usage_hours WHERE final = 0 AND hour_start >= @fromMs AND hour_start < @toMs AND (@clusterId IS NULL OR cluster_id = @clusterId)',
    )
    .raw();
  const namespaceRows = db.prepare(`
    SELECT taken_at AS takenAt, namespace, nodepool AS nodePool, pods, pods_with_usage AS podsWithUsage,
      req_cpu_m AS requestCpuMillicores, req_memory_b AS requestMemoryBytes, req_cpu_m_with_usage AS requestCpuMillicoresWithUsage,
      req_memory_b_with_usage AS requestMemoryBytesWithUsage, usage_cpu_m AS usageCpuMillicores, usage_memory_b AS usageMemoryBytes
    FROM usage_namespaces WHERE taken_at >= @fromMs AND taken_at < @toMs AND (@namespace IS NULL OR namespace = @namespace)
      AND (@clusterId IS NULL OR cluster_id = @clusterId)
    ORDER BY taken_at, namespace, nodepool`);
  const nodePoolRows = db.prepare(`
    SELECT taken_at AS takenAt, nodepool AS nodePool, nodes, nodes_with_usage AS nodesWithUsage, pod_usage_cpu_m AS podUsageCpuMillicores,
      pod_usage_memory_b AS podUsageMemoryBytes, node_usage_cpu_m AS nodeUsageCpuMillicores, node_usage_memory_b AS nodeUsageMemoryBytes
    FROM usage_nodepools WHERE taken_at >= @fromMs AND taken_at < @toMs ORDER BY taken_at, nodepool`);
  const coverage = db.prepare(`
    SELECT CAST(TOTAL(COALESCE(fold_snapshots, 1)) AS INTEGER) AS snapshots,
      CAST(TOTAL(COALESCE(fold_available, state = 'available')) AS INTEGER) AS withUsage,
      MAX(CASE WHEN state = 'available' THEN taken_at END) AS lastUsageAt
    FROM usage_snapshots WHERE taken_at >= ? AND taken_at < ?`);

  const newestSampleSnapshot = db
    .prepare('SELECT MAX(taken_at) FROM usage_samples WHERE taken_at < @beforeMs AND (@clusterId IS NULL OR cluster_id = @clusterId)')
    .pluck();
  const placementAt = db.prepare(`
    SELECT namespace, workload_kind AS workloadKind, workload_name AS workloadName, container, COALESCE(nodepool, '') AS nodePool,
      COUNT(DISTINCT pod) AS pods, MAX(taken_at) AS takenAt
    FROM usage_samples WHERE taken_at = @takenAt AND (@clusterId IS NULL OR cluster_id = @clusterId)
    GROUP BY namespace, workload_kind, workload_name, container, COALESCE(nodepool, '')
    ORDER BY namespace, workload_kind, workload_name, container, nodePool`);

  const podUsageByNode = db.prepare(`
    SELECT node_name AS nodeName, SUM(cpu_m) AS usageCpuMillicores, SUM(memory_b) AS usageMemoryBytes
    FROM usage_samples WHERE taken_at = @takenAt AND (@clusterId IS NULL OR cluster_id = @clusterId) AND node_name IS NOT NULL
    GROUP BY node_name ORDER BY node_name`);
  const namespaceTeams = db.prepare(
    'SELECT name, team FROM namespaces WHERE @clusterId IS NULL OR cluster_id = @clusterId ORDER BY name, cluster_id',
  );

  return {
    addSnapshot,

    /**
     * Per node, the summed usage of the pods metrics-server reported at the snapshot taken at `takenAt` (none once
     * pruned), of one cluster (null: every cluster's at that instant).
     */
    podUsageByNode: (
      takenAt: number,
      clusterId: number | null = null,
    ): { nodeName: string; usageCpuMillicores: number; usageMemoryBytes: number }[] =>
      podUsageByNode.all({ takenAt, clusterId }) as { nodeName: string; usageCpuMillicores: number; usageMemoryBytes: number }[],

    /** Each namespace's team as the collector resolved it (null: none), in one cluster (null: every cluster, the last id's). */
    namespaceTeams: (clusterId: number | null = null): Map<string, string | null> =>
      new Map((namespaceTeams.all({ clusterId }) as { name: string; team: string | null }[]).map((r) => [r.name, r.team])),

    /**
     * A Prometheus backfill's rollups, in one transaction: rows land only where metrics-server has none for that
     * workload, container and hour (a backfill never replaces measured snapshots). Returns the rows written.
     */
    writeBackfill: db.transaction((rollups: WorkloadHourRollup[], status: PrometheusBackfillStatus, clusterId = 1): number => {
      let written = 0;
      for (const r of rollups)
        written += upsertRollup.run({ ...r, limitCpuMillicores: r.limitCpuMillicores ?? null, source: 'prometheus', clusterId }).changes;
      setting.run(clusterSetting(PROMETHEUS_STATUS_SETTING, clusterId), JSON.stringify({ ...status, rollupsWritten: written }));
      return written;
    }),

    /** Records a backfill that failed (nothing of it was written). */
    noteBackfillFailure: (status: PrometheusBackfillStatus, clusterId = 1): void => {
      setting.run(clusterSetting(PROMETHEUS_STATUS_SETTING, clusterId), JSON.stringify(status));
    },

    /**
     * Hourly rollups per workload × container over [fromMs, toMs): the stored (final) hours, plus hours still open
     * (no snapshot of a later hour yet) computed from their samples now, marked final: false.
     */
    workloadHours: (q: UsageRange): StoredWorkloadHour[] => {
      const namespace = q.namespace ?? null;
      const only = q.clusterId ?? null;
      const rows = (storedHours.all({ fromMs: q.fromMs, toMs: q.toMs, namespace, clusterId: only }) as Record<string, unknown>[]).map(
        rollupRow,
      );
      for (const [hour, clusterId] of openHours.all({ fromMs: hourStart(q.fromMs), toMs: q.toMs, clusterId: only }) as [number, number][]) {
        const acc = new WorkloadHourAccumulator();
        for (const r of samplesOfClusterHour.iterate(hour, hour + HOUR_MS, clusterId) as IterableIterator<SampleTuple>) {
          if (namespace !== null && r[1] !== namespace) continue;
          acc.add(sampleOf(r));
        }
        for (const k of oomKillsOfClusterHour.all(hour, hour + HOUR_MS, clusterId) as OomKillRow[])
          if (namespace === null || k.namespace === namespace) acc.addOomKill(k);
        for (const r of acc.finish()) rows.push({ ...r, source: 'metrics-server', final: false });
      }
      return rows.filter((r) => r.hourStart >= hourStart(q.fromMs));
    },

    /** Per namespace × NodePool per snapshot: usage beside requests. */
    namespaceUsage: (q: UsageRange): NamespaceUsageRow[] =>
      namespaceRows.all({
        fromMs: q.fromMs,
        toMs: q.toMs,
        namespace: q.namespace ?? null,
        clusterId: q.clusterId ?? null,
      }) as NamespaceUsageRow[],

    /** Per NodePool per snapshot: pod usage and node usage (NodeMetrics). */
    nodePoolUsage: (q: UsageRange): NodePoolUsageRow[] => nodePoolRows.all({ fromMs: q.fromMs, toMs: q.toMs }) as NodePoolUsageRow[],

    /** OOM kills that ended in [fromMs, toMs). */
    oomKills: (q: UsageRange): OomKillRow[] =>
      oomKillsBetween.all({
        fromMs: q.fromMs,
        toMs: q.toMs,
        namespace: q.namespace ?? null,
        clusterId: q.clusterId ?? null,
      }) as OomKillRow[],

    /**
     * Where each workload container runs at the newest snapshot with samples taken before `beforeMs`: its pods per
     * NodePool ('' = a node without one) then. Empty when no samples are kept (they are pruned after the retention).
     * `clusterId`: that cluster's newest snapshot and pods (null: the newest snapshot of any cluster).
     */
    workloadPlacement: (beforeMs: number, clusterId: number | null = null): WorkloadPlacementRow[] => {
      const takenAt = newestSampleSnapshot.get({ beforeMs, clusterId }) as number | null;
      return takenAt === null ? [] : (placementAt.all({ takenAt, clusterId }) as WorkloadPlacementRow[]);
    },

    /** How many snapshots in [fromMs, toMs) had usage, and the last one that did. */
    coverage: (fromMs: number, toMs: number): { snapshots: number; withUsage: number; lastUsageAt: number | null } =>
      coverage.get(fromMs, toMs) as { snapshots: number; withUsage: number; lastUsageAt: number | null },

    /** The last metrics-server status a snapshot recorded; null before any. */
    metricsStatus: (clusterId = 1): MetricsStatus | null => {
      const v = getSetting.get(clusterSetting(METRICS_STATUS_SETTING, clusterId)) as string | undefined;
      return v === undefined ? null : (JSON.parse(v) as MetricsStatus);
    },

    /** The cluster's last Prometheus backfill; null before any. */
    prometheusStatus: (clusterId = 1): PrometheusBackfillStatus | null => {
      const v = getSetting.get(clusterSetting(PROMETHEUS_STATUS_SETTING, clusterId)) as string | undefined;
      return v === undefined ? null : (JSON.parse(v) as PrometheusBackfillStatus);
    },

    /** Owners of every pod of the cluster ever listed, by `namespace/name`: a Prometheus series' workload. */
    podOwners: (clusterId = 1): Map<string, { ownerKind: string | null; ownerName: string | null; labels: Record<string, string> }> => {
      const out = new Map<string, { ownerKind: string | null; ownerName: string | null; labels: Record<string, string> }>();
      const rows = db
        .prepare(
          `SELECT p.namespace, p.name, p.owner_kind, p.owner_name, p.labels_json FROM pods p JOIN pod_rows r ON r.id = p.pod_id
           WHERE r.cluster_id = ? ORDER BY p.last_seen`,
        )
        .raw()
        .iterate(clusterId) as IterableIterator<[string, string, string | null, string | null, string | null]>;
      for (const [ns, name, kind, owner, labels] of rows)
        out.set(`${ns}/${name}`, {
          ownerKind: kind,
          ownerName: owner,
          labels: labels ? (JSON.parse(labels) as Record<string, string>) : {},
        });
      return out;
    },

    /**
     * Every cluster's container samples and per-node usage taken before `cutMs` deleted, as each snapshot's write does
     * for its own cluster (the store bench's fill).
     */
    pruneBefore: (cutMs: number): void => {
      db.prepare('DELETE FROM usage_sample_rows WHERE taken_at < ?').run(cutMs);
      while (pruneNodeUsage.run(cutMs).changes > 0);
    },
    /** Container samples kept now (what retention prunes). */
    sampleCount: (): number => db.prepare('SELECT COUNT(*) FROM usage_samples').pluck().get() as number,
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
