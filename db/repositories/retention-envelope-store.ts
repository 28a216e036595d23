import type { Db } from '../open-db.js';
import { DAY_MS, HOUR_MS, WEEK_MS } from '../../core/time.js';
import { writeResourceDaysInBulk } from './cur-resource-lines.js';
import { createDisruptionsRepository } from './disruptions-repository.js';
import { QUARTER_DAY_MS } from './range-pieces.js';
import { NAMESPACE_MEANS, POOL_MEANS } from './retention-fold-repository.js';

/**
 * A retention-shaped store written in bulk SQL for `npm run bench -- --only retention` (issue 24): `months` of a
 * cluster of `nodes` nodes as the collector leaves it after retention — the last `rawDays` as 5-minute snapshots, the
 * rest as hourly ones (what a fold writes: per node the time-weighted means, fold_ms of the hour), with the rollups,
 * usage (per NodePool and namespace per snapshot, per node and container samples for the last `sampleHours` as the
 * collector's --usage-retention keeps both, workload-hours for all of it), every node, NodeClaim and pod seen (nodes replaced every 5 days, 30 pods
 * each), their disruption events and kept disruptions, the Cost Explorer bill, CUR days and spot prices. Generated, not
 * simulated: a year at the envelope in minutes. The shapes follow sandbox/scale (4 NodePools, 42 namespaces, 240
 * Deployments at the envelope); the figures are plausible, not a scenario's.
 */

export interface EnvelopeStoreSize {
  nodes: number;
  podsPerNode: number;
  /** End of the store (exclusive), epoch ms on the hour. */
  endMs: number;
  /** Whole history, from endMs back, days. */
  days: number;
  /** The last days as 5-minute snapshots. */
  rawDays: number;
  /**
   * The last days as hourly snapshots (the collector's --hourly-retention, migration 0030): the hourly snapshots of
   * the UTC days before `endMs` less these are folded into one per day, as retention leaves them. Omitted: hourly to
   * the start.
   */
  hourlyDays?: number;
  /** Container samples kept behind the end (the collector's --usage-retention). */
  sampleHours: number;
  /**
   * False: no usage at all (no usage_* rows, usage_pods 0), as the collector without --usage leaves a store — the store
   * bench's month — instead of writing the rows and deleting them. Omitted: usage written.
   */
  usage?: boolean;
  /** Workload containers with hourly usage rollups. */
  workloads: number;
  /** Namespaces (kube-system and monitoring on every NodePool, the others on general). */
  namespaces: number;
}

const NODE_LIFETIME_MS = 5 * DAY_MS;
/** Migration 0013's index, as it made it. */
const WORKLOAD_HOURS_INDEX = 'CREATE INDEX usage_workload_hours_hour ON usage_workload_hours (hour_start)';
const STEP_MS = 5 * 60_000;
/** The fill's page cache, KiB (a negative cache_size): 1 GiB, used only as far as the store's pages need it. */
const FILL_CACHE_KIB = -1024 * 1024;

/** The four NodePools of the scale scenario, by slot % 10. */
const POOLS = `
  SELECT 0 AS k, 'general' AS pool, 'on-demand' AS ct, 'm6i.2xlarge' AS it, 7910 AS cpu, 32212254720 AS mem, 58 AS pods, 0.384 AS usd UNION ALL
  SELECT 5, 'general', 'spot', 'm6i.2xlarge', 7910, 32212254720, 58, 0.141 UNION ALL
  SELECT 8, 'batch', 'spot', 'c6i.4xlarge', 15890, 29527900160, 234, 0.262 UNION ALL
  SELECT 9, 'system', 'on-demand', 'm6i.large', 1930, 7516192768, 29, 0.096`;

export interface EnvelopeStoreResult {
  rows: Record<string, number>;
  seconds: number;
}

/** Fills an empty, migrated ledger file; `log` says each table as it goes. */
export function fillEnvelopeStore(db: Db, size: EnvelopeStoreSize, log: (m: string) => void = () => {}): EnvelopeStoreResult {
  const t0 = performance.now();
  const start = size.endMs - size.days * DAY_MS;
  const rawStart = size.endMs - size.rawDays * DAY_MS;
  const p = {
    n: size.nodes,
    start,
    rawStart,
    end: size.endMs,
    life: NODE_LIFETIME_MS,
    pods: size.podsPerNode,
    sampleFrom: size.endMs - size.sampleHours * HOUR_MS,
    workloads: size.workloads,
    teams: size.namespaces - 2,
  };
  const run = (what: string, sql: string): void => {
    const t = performance.now();
    db.prepare(sql).run(p);
    log(`${what} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  };
  db.pragma('foreign_keys = OFF');
  // A page cache of up to 1 GiB (main and temp) for the fill: at SQLite's default 2 MB the 5,000-node fill re-read its
  // pages from the OS about 40 times over (83 GB of read() for a file of 2 GB), most of its CPU system time. Restored after.
  const cacheWas = [db.pragma('main.cache_size', { simple: true }), db.pragma('temp.cache_size', { simple: true })];
  db.pragma(`main.cache_size = ${FILL_CACHE_KIB}`);
  db.pragma(`temp.cache_size = ${FILL_CACHE_KIB}`);
  db.exec('DROP TABLE IF EXISTS temp.seq; DROP TABLE IF EXISTS temp.slots; DROP TABLE IF EXISTS temp.gens');
  const span = Math.max(size.nodes, Math.ceil((size.endMs - start) / STEP_MS) + 10, size.namespaces * 10, size.workloads);
  db.exec(`CREATE TEMP TABLE seq (i INTEGER PRIMARY KEY)`);
  db.prepare(`WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i + 1 < ?) INSERT INTO temp.seq SELECT i FROM r`).run(
    span,
  );
  // Each slot holds one node at a time, replaced every 5 days, the slots' replacements spread evenly over time.
  db.exec(`
    CREATE TEMP TABLE slots AS
    SELECT s.i AS s, pl.pool, pl.ct, pl.it, pl.cpu, pl.mem, pl.pods, pl.usd, (s.i * ${NODE_LIFETIME_MS / 1000}) / ${size.nodes} * 1000 AS off,
           'us-east-1' || char(97 + s.i % 6) AS zone
    FROM temp.seq s JOIN (${POOLS}) pl ON pl.k = (SELECT MAX(k) FROM (${POOLS}) WHERE k <= s.i % 10)
    WHERE s.i < ${size.nodes}`);
  const gen = (t: string) => `((${t} + sl.off) / ${NODE_LIFETIME_MS})`;
  db.transaction(() => {
    run(
      'snapshots',
      `WITH RECURSIVE t(x) AS (SELECT @start UNION ALL SELECT x + CASE WHEN x < @rawStart THEN ${HOUR_MS} ELSE ${STEP_MS} END FROM t
         WHERE x + CASE WHEN x < @rawStart THEN ${HOUR_MS} ELSE ${STEP_MS} END < @end)
       INSERT INTO snapshots (taken_at, node_count, pod_count, fold_ms, fold_snapshots, fold_span_ms)
       SELECT x, @n, @n * @pods, CASE WHEN x < @rawStart THEN ${HOUR_MS} END, CASE WHEN x < @rawStart THEN 12 END,
         CASE WHEN x < @rawStart THEN ${HOUR_MS} END FROM t`,
    );
    // Every node, NodeClaim and pod ever seen: each slot's generations over the whole history.
    run(
      'generations',
      `CREATE TEMP TABLE gens AS
       SELECT sl.s, sl.pool, sl.ct, sl.it, sl.cpu, sl.mem, sl.pods, sl.zone, g.i + ${gen('@start')} AS g,
         MAX(@start, (g.i + ${gen('@start')}) * ${NODE_LIFETIME_MS} - sl.off) AS born,
         MIN(@end, (g.i + ${gen('@start')} + 1) * ${NODE_LIFETIME_MS} - sl.off) AS died
       FROM temp.slots sl JOIN temp.seq g ON g.i <= (@end - @start) / ${NODE_LIFETIME_MS} + 1
       WHERE (g.i + ${gen('@start')}) * ${NODE_LIFETIME_MS} - sl.off < @end`,
    );
    const gname = `printf('ip-10-%d-%d-%d.ec2.internal', g.s / 256, g.s % 256, g.g % 1000)`;
    // What each node is (migration 0026's node_dims): one row per slot and generation a snapshot falls in (named as
    // the nodes are: the generation's integer part), its id kept beside it.
    const istart = 'CAST(@start AS INTEGER)';
    const iend = 'CAST(@end AS INTEGER)';
    db.exec('DROP TABLE IF EXISTS temp.dims');
    run(
      'the nodes of each slot',
      `CREATE TEMP TABLE dims AS
       SELECT sl.s, sl.pool, sl.ct, sl.it, sl.cpu, sl.mem, sl.pods, q.i + (${istart} + sl.off) / ${NODE_LIFETIME_MS} AS gi, NULL AS dim
       FROM temp.slots sl
         JOIN temp.seq q ON q.i <= (${iend} + sl.off) / ${NODE_LIFETIME_MS} - (${istart} + sl.off) / ${NODE_LIFETIME_MS}`,
    );
    const dname = `printf('ip-10-%d-%d-%d.ec2.internal', x.s / 256, x.s % 256, x.gi % 1000)`;
    run(
      'node_dims',
      `INSERT INTO node_dims (node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, price_source,
         price_currency)
       SELECT ${dname}, x.pool, x.ct, x.it, x.cpu, x.mem, x.pods, 0, 'pricing-api', 'USD' FROM temp.dims x ORDER BY x.s, x.gi`,
    );
    run('node ids', `UPDATE temp.dims AS x SET dim = (SELECT d.id FROM node_dims d WHERE d.node_name = ${dname})`);
    db.exec('CREATE INDEX temp.dims_slot ON dims (s, gi)');
    // Requests move with the hour of day and the slot; an hourly row holds means (REAL), a 5-minute one integers.
    run(
      'snapshot_node_rows',
      `INSERT INTO snapshot_node_rows (snapshot_id, node_id, req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, fold_ms, fold_snapshots)
       SELECT s.id, g.dim,
         CASE WHEN s.fold_ms IS NULL THEN CAST(sl.cpu * (0.45 + ((sl.s * 7 + s.taken_at / ${HOUR_MS}) % 40) / 100.0) AS INTEGER)
              ELSE sl.cpu * (0.45 + ((sl.s * 7 + s.taken_at / ${HOUR_MS}) % 40) / 100.0) + 0.37 END,
         CASE WHEN s.fold_ms IS NULL THEN CAST(sl.mem * (0.35 + ((sl.s * 3 + s.taken_at / ${HOUR_MS}) % 30) / 100.0) AS INTEGER)
              ELSE sl.mem * (0.35 + ((sl.s * 3 + s.taken_at / ${HOUR_MS}) % 30) / 100.0) + 0.5 END,
         @pods, 0, sl.usd * (1 + ((s.taken_at / ${HOUR_MS} + sl.s) % 7) / 100.0), s.fold_ms, s.fold_snapshots
       FROM snapshots s CROSS JOIN temp.slots sl JOIN temp.dims g ON g.s = sl.s AND g.gi = ${gen('s.taken_at')} ORDER BY s.id, g.dim`,
    );
    run(
      'snapshot_nodepools',
      `INSERT INTO snapshot_nodepools (snapshot_id, taken_at, nodepool, capacity_type, nodes, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu,
         req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, cpu_eff_usd_per_hour, memory_eff_usd_per_hour, pods_eff_usd_per_hour,
         gpu_eff_usd_per_hour, gpu_nodes_usd_per_hour, on_demand_usd_per_hour)
       SELECT n.snapshot_id, s.taken_at, n.nodepool, n.capacity_type, COUNT(*), SUM(n.alloc_cpu_m), SUM(n.alloc_memory_b), SUM(n.alloc_pods), 0,
         SUM(n.req_cpu_m), SUM(n.req_memory_b), SUM(n.req_pods), 0, SUM(n.usd_per_hour), SUM(n.usd_per_hour * n.req_cpu_m / n.alloc_cpu_m),
         SUM(n.usd_per_hour * n.req_memory_b / n.alloc_memory_b), SUM(n.usd_per_hour * n.req_pods / n.alloc_pods), 0, 0,
         CASE WHEN n.capacity_type = 'spot' THEN SUM(n.usd_per_hour) * 2.7 ELSE SUM(n.usd_per_hour) END
       FROM snapshot_nodes n JOIN snapshots s ON s.id = n.snapshot_id GROUP BY n.snapshot_id, n.nodepool, n.capacity_type`,
    );
    // Namespaces: the teams' on the general NodePool, kube-system and monitoring on every one, sharing its cost.
    run(
      'snapshot_namespaces',
      `WITH ns AS (SELECT i, CASE i WHEN 0 THEN 'kube-system' WHEN 1 THEN 'monitoring' ELSE printf('team%d-app%d', (i - 2) / 4 + 1, i) END AS name,
                          CASE WHEN i < 2 THEN 'platform' ELSE printf('team%d', (i - 2) / 4 + 1) END AS team
                   FROM temp.seq WHERE i < ${size.namespaces})
       INSERT INTO snapshot_namespaces (snapshot_id, taken_at, namespace, nodepool, team, pods, req_cpu_m, req_memory_b, usd_per_hour,
         cpu_share_usd_per_hour, memory_share_usd_per_hour, aws_split_cost_usd_per_hour, aws_unused_cost_usd_per_hour, opencost_usd_per_hour, usage_pods)
       SELECT p.snapshot_id, p.taken_at, ns.name, p.nodepool, ns.team, p.nodes * @pods / (@teams + 0.0), p.req_cpu_m / (@teams + 1.0),
         p.req_memory_b / (@teams + 1.0), p.usd_per_hour / (@teams + 1.0), p.cpu_eff_usd_per_hour / (@teams + 1.0),
         p.memory_eff_usd_per_hour / (@teams + 1.0), p.usd_per_hour / (@teams + 5.0), p.usd_per_hour / 400.0, p.usd_per_hour / (@teams + 3.0),
         ${size.usage === false ? '0' : 'p.nodes * @pods / (@teams + 0.0)'}
       FROM (SELECT snapshot_id, taken_at, nodepool, SUM(nodes) AS nodes, SUM(req_cpu_m) AS req_cpu_m, SUM(req_memory_b) AS req_memory_b,
                    SUM(usd_per_hour) AS usd_per_hour, SUM(cpu_eff_usd_per_hour) AS cpu_eff_usd_per_hour, SUM(memory_eff_usd_per_hour) AS memory_eff_usd_per_hour
             FROM snapshot_nodepools GROUP BY snapshot_id, nodepool) p
       JOIN ns ON (ns.i < 2 OR p.nodepool = 'general')`,
    );
    // The hour rollups from the snapshots (each stands for its fold_ms, a 5-minute one for 5 minutes), then quarter days
    // (migration 0033), days and weeks.
    const h = `(COALESCE(s.fold_ms, ${STEP_MS}) / 3600000.0)`;
    const k = `COALESCE(s.fold_snapshots, 1)`;
    run(
      'rollup_spans',
      `INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_taken, snapshots_weighted, hours)
       SELECT ${HOUR_MS}, (s.taken_at / ${HOUR_MS}) * ${HOUR_MS}, SUM(${k}), SUM(${k}), SUM(${h}) FROM snapshots s GROUP BY 2`,
    );
    run(
      'rollup_nodepools',
      `INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m, snap_alloc_memory_b,
         snap_req_memory_b, snap_usd_per_hour, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours, alloc_memory_b_hours, req_memory_b_hours,
         alloc_pods_hours, req_pods_hours, cw_cpu_usd, cw_memory_usd, cw_pods_usd, on_demand_usd)
       SELECT ${HOUR_MS}, (p.taken_at / ${HOUR_MS}) * ${HOUR_MS}, p.nodepool, p.capacity_type, SUM(${k} * p.nodes), SUM(${k} * p.alloc_cpu_m),
         SUM(${k} * p.req_cpu_m), SUM(${k} * p.alloc_memory_b), SUM(${k} * p.req_memory_b), SUM(${k} * p.usd_per_hour), SUM(${h} * p.nodes),
         SUM(${h} * p.usd_per_hour), SUM(${h} * p.alloc_cpu_m), SUM(${h} * p.req_cpu_m), SUM(${h} * p.alloc_memory_b), SUM(${h} * p.req_memory_b),
         SUM(${h} * p.alloc_pods), SUM(${h} * p.req_pods), SUM(${h} * p.cpu_eff_usd_per_hour), SUM(${h} * p.memory_eff_usd_per_hour),
         SUM(${h} * p.pods_eff_usd_per_hour), SUM(${h} * p.on_demand_usd_per_hour)
       FROM snapshot_nodepools p JOIN snapshots s ON s.id = p.snapshot_id GROUP BY 2, 3, 4`,
    );
    run(
      'rollup_namespaces',
      `INSERT INTO rollup_namespaces (span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd, memory_share_usd,
         aws_split_cost_usd, aws_unused_cost_usd, opencost_usd, pod_hours, usage_pod_hours)
       SELECT ${HOUR_MS}, (n.taken_at / ${HOUR_MS}) * ${HOUR_MS}, n.namespace, n.nodepool, n.team, MAX(n.taken_at), SUM(${h} * n.usd_per_hour),
         SUM(${h} * n.cpu_share_usd_per_hour), SUM(${h} * n.memory_share_usd_per_hour), SUM(${h} * n.aws_split_cost_usd_per_hour),
         SUM(${h} * n.aws_unused_cost_usd_per_hour), SUM(${h} * n.opencost_usd_per_hour), SUM(${h} * n.pods), SUM(${h} * n.usage_pods)
       FROM snapshot_namespaces n JOIN snapshots s ON s.id = n.snapshot_id GROUP BY 2, 3, 4`,
    );
    for (const span of [QUARTER_DAY_MS, DAY_MS, WEEK_MS]) {
      run(
        `rollups of ${span / HOUR_MS} hours`,
        `INSERT INTO rollup_spans (span_ms, bucket_ms, snapshots_taken, snapshots_weighted, hours)
         SELECT ${span}, (bucket_ms / ${span}) * ${span}, SUM(snapshots_taken), SUM(snapshots_weighted), SUM(hours) FROM rollup_spans WHERE span_ms = ${HOUR_MS} GROUP BY 2`,
      );
      db.prepare(
        `INSERT INTO rollup_nodepools (span_ms, bucket_ms, nodepool, capacity_type, snap_nodes, snap_alloc_cpu_m, snap_req_cpu_m, snap_alloc_memory_b,
           snap_req_memory_b, snap_usd_per_hour, node_hours, cost_usd, alloc_cpu_m_hours, req_cpu_m_hours, alloc_memory_b_hours, req_memory_b_hours,
           alloc_pods_hours, req_pods_hours, cw_cpu_usd, cw_memory_usd, cw_pods_usd, on_demand_usd)
         SELECT ${span}, (bucket_ms / ${span}) * ${span}, nodepool, capacity_type, SUM(snap_nodes), SUM(snap_alloc_cpu_m), SUM(snap_req_cpu_m),
           SUM(snap_alloc_memory_b), SUM(snap_req_memory_b), SUM(snap_usd_per_hour), SUM(node_hours), SUM(cost_usd), SUM(alloc_cpu_m_hours),
           SUM(req_cpu_m_hours), SUM(alloc_memory_b_hours), SUM(req_memory_b_hours), SUM(alloc_pods_hours), SUM(req_pods_hours), SUM(cw_cpu_usd),
           SUM(cw_memory_usd), SUM(cw_pods_usd), SUM(on_demand_usd)
         FROM rollup_nodepools WHERE span_ms = ${HOUR_MS} GROUP BY 2, 3, 4`,
      ).run();
      db.prepare(
        `INSERT INTO rollup_namespaces (span_ms, bucket_ms, namespace, nodepool, team, newest_at, request_share_usd, cpu_share_usd, memory_share_usd,
           aws_split_cost_usd, aws_unused_cost_usd, opencost_usd, pod_hours, usage_pod_hours)
         SELECT ${span}, (bucket_ms / ${span}) * ${span}, namespace, nodepool, team, MAX(newest_at), SUM(request_share_usd), SUM(cpu_share_usd),
           SUM(memory_share_usd), SUM(aws_split_cost_usd), SUM(aws_unused_cost_usd), SUM(opencost_usd), SUM(pod_hours), SUM(usage_pod_hours)
         FROM rollup_namespaces WHERE span_ms = ${HOUR_MS} GROUP BY 2, 3, 4`,
      ).run();
    }
    // Usage: per snapshot (an hourly one sums its 12), per node and per container for the last hours only (the collector
    // prunes both at --usage-retention; folding keeps node usage per NodePool), workload-hours for all of it.
    if (size.usage !== false) writeUsage();
    run('node_names', `INSERT OR IGNORE INTO node_names (name) SELECT node_name FROM node_dims ORDER BY id`);
    if (size.usage !== false) writeNodeUsage();
    /** Usage per snapshot, NodePool and namespace. */
    function writeUsage(): void {
      run(
        'usage_snapshots',
        `INSERT INTO usage_snapshots (snapshot_id, taken_at, state, message, pods_with_usage, fold_snapshots, fold_available)
       SELECT id, taken_at, 'available', NULL, pod_count * COALESCE(fold_snapshots, 1), fold_snapshots, fold_snapshots FROM snapshots`,
      );
      run(
        'usage_nodepools',
        `INSERT INTO usage_nodepools (snapshot_id, taken_at, nodepool, nodes, nodes_with_usage, pod_usage_cpu_m, pod_usage_memory_b, node_usage_cpu_m,
         node_usage_memory_b, fold_snapshots, alloc_cpu_m, alloc_memory_b)
       SELECT p.snapshot_id, p.taken_at, p.nodepool, SUM(p.nodes) * ${k}, SUM(p.nodes) * ${k}, SUM(p.req_cpu_m) * 0.61 * ${k},
         CAST(SUM(p.req_memory_b) * 0.7 AS INTEGER) * ${k}, SUM(p.req_cpu_m) * 0.66 * ${k}, CAST(SUM(p.req_memory_b) * 0.76 AS INTEGER) * ${k},
         s.fold_snapshots, CASE WHEN s.fold_ms IS NOT NULL THEN SUM(p.alloc_cpu_m) * ${k} END,
         CASE WHEN s.fold_ms IS NOT NULL THEN SUM(p.alloc_memory_b) * ${k} END
       FROM snapshot_nodepools p JOIN snapshots s ON s.id = p.snapshot_id GROUP BY p.snapshot_id, p.nodepool`,
      );
      run(
        'usage_namespaces',
        `INSERT INTO usage_namespaces (snapshot_id, taken_at, namespace, nodepool, pods, pods_with_usage, req_cpu_m, req_memory_b, req_cpu_m_with_usage,
         req_memory_b_with_usage, usage_cpu_m, usage_memory_b, fold_snapshots)
       SELECT n.snapshot_id, n.taken_at, n.namespace, n.nodepool, CAST(n.pods * ${k} AS INTEGER), CAST(n.pods * ${k} AS INTEGER),
         CAST(n.req_cpu_m * ${k} AS INTEGER), CAST(n.req_memory_b * ${k} AS INTEGER), CAST(n.req_cpu_m * ${k} AS INTEGER),
         CAST(n.req_memory_b * ${k} AS INTEGER), n.req_cpu_m * 0.6 * ${k}, CAST(n.req_memory_b * 0.7 * ${k} AS INTEGER), s.fold_snapshots
       FROM snapshot_namespaces n JOIN snapshots s ON s.id = n.snapshot_id`,
      );
    }
    /** Usage per node and container (by node name id) and the workload-hours. */
    function writeNodeUsage(): void {
      run(
        'usage_node_rows',
        `INSERT INTO usage_node_rows (snapshot_id, name_id, cpu_m, memory_b, measured_at, window_ms)
       SELECT n.snapshot_id, nn.id, n.req_cpu_m * 0.66, CAST(n.req_memory_b * 0.76 AS INTEGER), s.taken_at - 12000, 15000
       FROM snapshots s JOIN snapshot_nodes n ON n.snapshot_id = s.id JOIN node_names nn ON nn.name = n.node_name
       WHERE s.fold_ms IS NULL AND s.taken_at >= @sampleFrom
       ORDER BY n.snapshot_id, nn.id`,
      );
      run(
        'usage_samples',
        `INSERT INTO usage_samples (snapshot_id, taken_at, namespace, workload_kind, workload_name, container, pod, node_name, nodepool, cpu_m, memory_b,
         req_cpu_m, req_memory_b, lim_cpu_m, measured_at, window_ms)
       SELECT s.id, s.taken_at, printf('team%d-app%d', (q.i % @teams) / 4 + 1, q.i % @teams + 2), 'Deployment', printf('app-%d', q.i % @workloads), 'app',
         printf('app-%d-%x', q.i % @workloads, q.i), n.node_name, n.nodepool, 80 + q.i % 300, 100000000 + (q.i % 50) * 4000000, 250, 268435456, 1000,
         s.taken_at - 12000, 15000
       FROM snapshots s JOIN snapshot_nodes n ON n.snapshot_id = s.id JOIN temp.seq q ON q.i < @pods
       WHERE s.taken_at >= @sampleFrom AND s.fold_ms IS NULL`,
      );
      // In the table's key order (the workloads sorted by namespace and name, each's hours in turn: no sort of the rows),
      // its hour index made after, sorted once. Written hour by hour, the rows went to 240 places of the key's b-tree at
      // once, their pages spilled and written again.
      db.exec(
        `CREATE TEMP TABLE workloads (k INTEGER PRIMARY KEY, i INTEGER, namespace TEXT, name TEXT);
       INSERT INTO temp.workloads (i, namespace, name)
       SELECT i, printf('team%d-app%d', (i % ${p.teams}) / 4 + 1, i % ${p.teams} + 2), printf('app-%d', i) FROM temp.seq WHERE i < ${p.workloads}
       ORDER BY 2, 3;
       DROP INDEX usage_workload_hours_hour`,
      );
      run(
        'usage_workload_hours',
        `INSERT INTO usage_workload_hours (hour_start, namespace, workload_kind, workload_name, container, samples, pods, cpu_p50_m, cpu_p95_m, cpu_p99_m,
         cpu_max_m, cpu_avg_m, memory_max_b, memory_avg_b, req_cpu_m, req_memory_b, lim_cpu_m, oom_kills, source)
       SELECT r.bucket_ms, w.namespace, 'Deployment', w.name, 'app', 12 * 20, 20,
         100 + w.i % 90 + (r.bucket_ms / ${HOUR_MS}) % 24, 180 + w.i % 90, 190 + w.i % 90, 210 + w.i % 90, 120 + w.i % 90, 300000000 + w.i * 1000,
         250000000.5 + w.i, 250, 268435456, 1000, 0, 'metrics-server'
       FROM temp.workloads w CROSS JOIN rollup_spans r WHERE r.span_ms = ${HOUR_MS} ORDER BY w.k, r.bucket_ms`,
      );
      db.exec(`${WORKLOAD_HOURS_INDEX}; DROP TABLE temp.workloads`);
      run('usage_hours', `INSERT INTO usage_hours (hour_start, final) SELECT bucket_ms, 1 FROM rollup_spans WHERE span_ms = ${HOUR_MS}`);
    }
    if (size.hourlyDays !== undefined) {
      const t = performance.now();
      const days = foldDaysInBulk(db, Math.floor((size.endMs - size.hourlyDays * DAY_MS) / DAY_MS) * DAY_MS);
      log(`${days} days folded from their hours (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    }
    const claim = `printf('%s-%05d', g.pool, g.s * 97 + g.g % 97)`;
    run(
      'nodes',
      `INSERT OR IGNORE INTO nodes (name, nodeclaim, nodepool, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen,
         deleted_at, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, labels_json, capacity_json)
       SELECT ${gname}, ${claim}, g.pool, g.it, g.ct, g.zone, printf('i-%017x', g.s * 100000 + g.g), g.born, g.born, g.died - ${STEP_MS},
         CASE WHEN g.died < @end THEN g.died END, g.cpu, g.mem, g.pods, 0,
         json_object('karpenter.sh/nodepool', g.pool, 'karpenter.sh/capacity-type', g.ct, 'node.kubernetes.io/instance-type', g.it,
                     'topology.kubernetes.io/zone', g.zone),
         json_object('cpu', '8', 'memory', '32386356Ki', 'pods', '58')
       FROM temp.gens g`,
    );
    run(
      'nodeclaims',
      `INSERT OR IGNORE INTO nodeclaims (name, nodepool, node_name, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen,
         deleted_at, disruption_reason, conditions_json)
       SELECT ${claim}, g.pool, ${gname}, g.it, g.ct, g.zone, printf('i-%017x', g.s * 100000 + g.g), g.born - 60000, g.born, g.died - ${STEP_MS},
         CASE WHEN g.died < @end THEN g.died END, CASE WHEN g.died < @end THEN 'Underutilized' END, '[]'
       FROM temp.gens g`,
    );
    // Pods in migration 0027's narrow layout: what a workload's pods share once (pod_dims), per pod its uid (16 bytes),
    // the part of its name after its ReplicaSet's, its node (node_names) and when it was seen (pod_rows).
    const ns = `printf('team%d-app%d', (q.i % @teams) / 4 + 1, q.i % @teams + 2)`;
    const rs = `printf('app-%d-7d9f8b6c5', q.i % @workloads)`;
    run('node_names of pods', `INSERT OR IGNORE INTO node_names (name) SELECT ${gname} FROM temp.gens g ORDER BY g.born`);
    run(
      'pod_dims',
      `INSERT INTO pod_dims (namespace, owner_kind, owner_name, team, req_cpu_m, req_memory_b, req_gpu, do_not_disrupt, labels_json)
       SELECT DISTINCT ${ns}, 'ReplicaSet', ${rs}, printf('team%d', (q.i % @teams) / 4 + 1), 250, 268435456, 0, 0,
         json_object('app', printf('app-%d', q.i % @workloads))
       FROM temp.seq q WHERE q.i < @pods ORDER BY 1, 3`,
    );
    run(
      'pod_rows',
      `INSERT INTO pod_rows (uid, dims_id, name, name_suffix, node_id, created_at, first_seen, last_seen)
       SELECT unhex(printf('%08x%04x40008000%012x', g.s, q.i, g.g)), d.id, NULL, printf('%05x', (g.s * 131 + g.g) % 1048576), nn.id, g.born,
         g.born, g.died - ${STEP_MS}
       FROM temp.gens g JOIN temp.seq q ON q.i < @pods JOIN node_names nn ON nn.name = ${gname}
         JOIN pod_dims d ON d.namespace = ${ns} AND d.owner_name = ${rs}
       ORDER BY g.born, g.s, q.i`,
    );
    // Each replacement: Karpenter's DisruptionTerminating and DisruptionLaunching events, and the disruption kept from them.
    run(
      'events',
      `INSERT OR IGNORE INTO events (uid, at, type, reason, message, kind, name, namespace)
       SELECT printf('ev-%d-%d-%d', g.s, g.g, e.i), g.died - 120000 + e.i * 1000, 'Normal',
         CASE e.i WHEN 0 THEN 'DisruptionTerminating' ELSE 'DisruptionLaunching' END,
         CASE e.i WHEN 0 THEN 'Disrupting Node: Underutilized' ELSE 'Launching NodeClaim: Underutilized' END,
         CASE e.i WHEN 0 THEN 'Node' ELSE 'NodeClaim' END, CASE e.i WHEN 0 THEN ${gname} ELSE ${claim} END, NULL
       FROM temp.gens g JOIN temp.seq e ON e.i < 2 WHERE g.died < @end`,
    );
    run(
      'disruptions',
      `INSERT INTO disruptions (id, at, node_name, nodeclaim, nodepool, reason, action, source, spot_interrupted, instance_type, capacity_type,
         replacements_json, message, blocked, seq)
       SELECT printf('%d-%s', g.died - 120000, ${claim}), g.died - 120000, ${gname}, ${claim}, g.pool, 'Underutilized', 'replace', 'event', 0, g.it,
         g.ct, '[]', 'Disrupting Node: Underutilized', 0, ROW_NUMBER() OVER (ORDER BY g.died, g.s)
       FROM temp.gens g WHERE g.died < @end`,
    );
    createDisruptionsRepository(db).recountQuarters(start);
    db.prepare('UPDATE disruptions_state SET dirty_from_ms = NULL WHERE id = 1').run();
    // The bill: Cost Explorer per day, NodePool and purchase type; CUR per month, day and instance; spot prices hourly.
    run(
      'cost_lines',
      `INSERT INTO cost_lines (source, granularity, period_start, period_start_ms, group_by, nodepool, dimension_value, unblended_usd, amortized_usd,
         usage_quantity, usage_unit, estimated, fetched_at, currency, net_unblended_usd, net_amortized_usd)
       SELECT 'cost-explorer', 'DAILY', strftime('%Y-%m-%d', r.bucket_ms / 1000, 'unixepoch'), r.bucket_ms, 'PURCHASE_TYPE', r.nodepool,
         CASE r.capacity_type WHEN 'spot' THEN 'Spot Instances' ELSE 'On Demand Instances' END, SUM(r.cost_usd) * 1.02, SUM(r.cost_usd) * 0.93,
         SUM(r.node_hours), 'Hrs', 0, @end, 'USD', SUM(r.cost_usd) * 1.0, SUM(r.cost_usd) * 0.91
       FROM rollup_nodepools r WHERE r.span_ms = ${DAY_MS} GROUP BY r.bucket_ms, r.nodepool, r.capacity_type`,
    );
    run(
      'cur_periods',
      `INSERT INTO cur_periods (source, billing_period, period_start_ms, imported_at, files, cur_rows, unblended_usd, amortized_usd, unattributed_lines,
         unattributed_usd, nodeclaim_filled_lines, split_lines)
       SELECT 's3://bench/cur/ledger', strftime('%Y-%m', bucket_ms / 1000, 'unixepoch'), MIN(bucket_ms), @end, 4, 0, 0, 0, 0, 0, 0, 0
       FROM rollup_spans WHERE span_ms = ${DAY_MS} GROUP BY 2`,
    );
    // CUR resource days, one per node and UTC day it ran, straight into migration 0031's narrow tables (as the importer's
    // createResourceLinesWriter does) and not through the cur_resource_daily view's INSERT trigger (four lookups a row):
    // the rows in the order the trigger was fed them (by node, then day), keys made in the order it made them, each
    // figure stored as the trigger stores it (NULL when equal to the one it usually equals, day NULL when day_ms's date).
    // The days a node ran: a range on rollup_spans' key (bucket_ms > born - a day), not a scan of every day per node.
    run(
      'cur_resource_daily',
      `CREATE TEMP TABLE curdays AS
       SELECT 's3://bench/cur/ledger' AS source, strftime('%Y-%m', d.bucket_ms / 1000, 'unixepoch') AS billing_period,
         strftime('%Y-%m-%d', d.bucket_ms / 1000, 'unixepoch') AS day, d.bucket_ms AS day_ms, printf('i-%017x', g.s * 100000 + g.g) AS resource_id,
         'Usage' AS line_item_type, printf('BoxUsage:%s', g.it) AS usage_type, 'AmazonEC2' AS product_code, 'RunInstances' AS operation,
         'instances' AS category, 'ledger' AS cluster, g.pool AS nodepool, ${claim} AS nodeclaim, 'tag' AS attributed_by, '' AS commitment_arn,
         0.384 * 24 AS unblended_usd, 0.384 * 24 AS amortized_usd, 0.384 * 24 AS net_unblended_usd, 0.384 * 24 AS net_amortized_usd,
         24 AS usage_amount, 0.384 * 24 AS public_on_demand_usd, 24 AS line_count
       FROM temp.gens g JOIN rollup_spans d ON d.span_ms = ${DAY_MS} AND d.bucket_ms > g.born - ${DAY_MS} AND d.bucket_ms < g.died
       ORDER BY g.rowid, d.bucket_ms`,
    );
    writeResourceDaysInBulk(db, 'temp.curdays');
    db.exec('DROP TABLE temp.curdays');
    run(
      'cur_namespace_daily',
      `INSERT INTO cur_namespace_daily (source, billing_period, day, day_ms, cluster, nodepool, namespace, split_cost_usd, unused_cost_usd,
         net_split_cost_usd, net_unused_cost_usd, public_on_demand_split_cost_usd, public_on_demand_unused_cost_usd, vcpu_hours, memory_gb_hours,
         pod_count, line_count)
       SELECT 's3://bench/cur/ledger', strftime('%Y-%m', r.bucket_ms / 1000, 'unixepoch'), strftime('%Y-%m-%d', r.bucket_ms / 1000, 'unixepoch'),
         r.bucket_ms, 'ledger', r.nodepool, r.namespace, r.aws_split_cost_usd, r.aws_unused_cost_usd, r.aws_split_cost_usd, r.aws_unused_cost_usd,
         r.aws_split_cost_usd, r.aws_unused_cost_usd, r.pod_hours / 4, r.pod_hours, CAST(r.pod_hours / 24 AS INTEGER), CAST(r.pod_hours / 12 AS INTEGER)
       FROM rollup_namespaces r WHERE r.span_ms = ${DAY_MS}`,
    );
    run(
      'prices',
      `INSERT OR IGNORE INTO prices (kind, region, instance_type, zone, effective_at, usd_per_hour, source, currency)
       SELECT 'spot', 'us-east-1', t.it, 'us-east-1' || char(97 + z.i), r.bucket_ms, t.usd * (0.9 + ((r.bucket_ms / ${HOUR_MS} + z.i) % 20) / 100.0),
         'spot-history', 'USD'
       FROM rollup_spans r JOIN (SELECT DISTINCT it, usd FROM temp.slots WHERE ct = 'spot') t JOIN temp.seq z ON z.i < 6
       WHERE r.span_ms = ${HOUR_MS}`,
    );
  })();
  db.exec('DROP TABLE temp.gens; DROP TABLE temp.dims; DROP TABLE temp.slots; DROP TABLE temp.seq');
  db.pragma('foreign_keys = ON');
  // The day fold deleted 23 of every 24 hourly rows before the boundary: the file packed as retention's vacuum leaves it.
  if (size.hourlyDays !== undefined) db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma(`main.cache_size = ${cacheWas[0]}`);
  db.pragma(`temp.cache_size = ${cacheWas[1]}`);
  const rows: Record<string, number> = {};
  for (const t of db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[])
    rows[t] = db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number;
  return { rows, seconds: (performance.now() - t0) / 1000 };
}

/** Bytes per table and its indexes (SQLite's dbstat: every page, free space included). */
export function tableBytes(db: Db): Record<string, number> {
  const rows = db
    .prepare(
      `SELECT COALESCE(m.tbl_name, d.name) AS t, SUM(d.pgsize) AS bytes FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY 1 ORDER BY 2 DESC`,
    )
    .all() as { t: string; bytes: number }[];
  return Object.fromEntries(rows.map((r) => [r.t, r.bytes]));
}

const sumsOf = (cols: readonly string[]): string => cols.map((c) => `SUM(x.${c})`).join(', ');

/**
 * The day fold of migration 0030 in bulk SQL, for the generated store: every hourly snapshot (fold_span_ms of an hour)
 * taken before `boundaryMs` (a UTC day's start) folded into its UTC day's, as db/repositories/retention-fold-repository.ts
 * leaves it one snapshot at a time — the day's first hourly snapshot becomes the day's (its id kept, moved to the day's
 * start, fold_span_ms of a day), standing for the sum of their fold_ms and fold_snapshots; snapshots, NodePool and
 * namespace rows hold means weighted by each hourly snapshot's fold_ms (a row absent from an hour counts 0 for it), each
 * node row its means over its own fold_ms; the usage rows are sums. Equal to the fold's result to float noise (the fold
 * blends means one snapshot at a time; this divides sums once): retention-envelope-store.test.ts compares the two.
 * Returns the days folded.
 */
function foldDaysInBulk(db: Db, boundaryMs: number): number {
  db.exec('DROP TABLE IF EXISTS temp.dayfold');
  db.prepare(
    `CREATE TEMP TABLE dayfold AS
     SELECT s.id, (s.taken_at / ${DAY_MS}) * ${DAY_MS} AS day, s.fold_ms AS ms,
       FIRST_VALUE(s.id) OVER (PARTITION BY s.cluster_id, s.taken_at / ${DAY_MS} ORDER BY s.taken_at) AS f,
       SUM(s.fold_ms) OVER (PARTITION BY s.cluster_id, s.taken_at / ${DAY_MS}) AS day_ms
     FROM snapshots s WHERE s.fold_span_ms = ${HOUR_MS} AND s.taken_at < ?`,
  ).run(boundaryMs);
  db.exec('CREATE UNIQUE INDEX temp.dayfold_id ON dayfold (id)');
  /** A mean over the day of a snapshot-level value, each hourly snapshot weighing its fold_ms. */
  const mean = (c: string): string => `SUM(x.${c} * CAST(d.ms AS REAL)) / d.day_ms`;
  const byDay = 'FROM temp.dayfold d JOIN';
  const folded: [string, string][] = [
    [
      'snapshot_node_rows',
      `INSERT INTO temp.folded_snapshot_node_rows SELECT d.f, x.node_id, ${[
        'req_cpu_m',
        'req_memory_b',
        'req_pods',
        'req_gpu',
        'usd_per_hour',
      ]
        .map((c) => `SUM(x.${c} * CAST(x.fold_ms AS REAL)) / SUM(x.fold_ms)`)
        .join(', ')}, SUM(x.fold_ms), SUM(x.fold_snapshots)
       ${byDay} snapshot_node_rows x ON x.snapshot_id = d.id GROUP BY d.f, x.node_id`,
    ],
    [
      'snapshot_nodepools',
      `INSERT INTO temp.folded_snapshot_nodepools SELECT d.f, d.day, x.nodepool, x.capacity_type, ${POOL_MEANS.map(mean).join(
        ', ',
      )}, MAX(x.cluster_id)
       ${byDay} snapshot_nodepools x ON x.snapshot_id = d.id GROUP BY d.f, x.nodepool, x.capacity_type`,
    ],
    [
      'snapshot_namespaces',
      `INSERT INTO temp.folded_snapshot_namespaces SELECT d.f, d.day, x.namespace, x.nodepool, MAX(x.team), ${NAMESPACE_MEANS.map(
        mean,
      ).join(', ')}, MAX(x.cluster_id)
       ${byDay} snapshot_namespaces x ON x.snapshot_id = d.id GROUP BY d.f, x.namespace, x.nodepool`,
    ],
    [
      'usage_snapshots',
      `INSERT INTO temp.folded_usage_snapshots SELECT d.f, d.day,
         CASE WHEN SUM(x.state = 'available') > 0 THEN 'available' ELSE MAX(x.state) END, NULL, SUM(x.pods_with_usage),
         SUM(COALESCE(x.fold_snapshots, 1)), SUM(COALESCE(x.fold_available, x.state = 'available')), MAX(x.cluster_id)
       ${byDay} usage_snapshots x ON x.snapshot_id = d.id GROUP BY d.f`,
    ],
    [
      'usage_namespaces',
      `INSERT INTO temp.folded_usage_namespaces SELECT d.f, d.day, x.namespace, x.nodepool, ${sumsOf([
        'pods',
        'pods_with_usage',
        'req_cpu_m',
        'req_memory_b',
        'req_cpu_m_with_usage',
        'req_memory_b_with_usage',
        'usage_cpu_m',
        'usage_memory_b',
      ])}, SUM(COALESCE(x.fold_snapshots, 1)), MAX(x.cluster_id)
       ${byDay} usage_namespaces x ON x.snapshot_id = d.id GROUP BY d.f, x.namespace, x.nodepool`,
    ],
    [
      'usage_nodepools',
      `INSERT INTO temp.folded_usage_nodepools SELECT d.f, d.day, x.nodepool, ${sumsOf([
        'nodes',
        'nodes_with_usage',
        'pod_usage_cpu_m',
        'pod_usage_memory_b',
        'node_usage_cpu_m',
        'node_usage_memory_b',
      ])}, SUM(COALESCE(x.fold_snapshots, 1)), SUM(x.alloc_cpu_m), SUM(x.alloc_memory_b), MAX(x.cluster_id)
       ${byDay} usage_nodepools x ON x.snapshot_id = d.id GROUP BY d.f, x.nodepool`,
    ],
  ];
  for (const [table, insert] of folded) {
    db.exec(`DROP TABLE IF EXISTS temp.folded_${table}; CREATE TEMP TABLE folded_${table} AS SELECT * FROM main.${table} WHERE 0`);
    db.exec(insert);
    db.exec(`DELETE FROM main.${table} WHERE snapshot_id IN (SELECT id FROM temp.dayfold)`);
    db.exec(`INSERT INTO main.${table} SELECT * FROM temp.folded_${table} ORDER BY 1, 2, 3; DROP TABLE temp.folded_${table}`);
  }
  // Hourly snapshots hold no container samples, node usage or OOM kills (the hour fold deleted or moved them).
  for (const t of ['usage_samples', 'usage_node_rows', 'usage_oom_kills'])
    if ((db.prepare(`SELECT COUNT(*) FROM ${t} WHERE snapshot_id IN (SELECT id FROM temp.dayfold)`).pluck().get() as number) > 0)
      throw new Error(`the generated store has ${t} rows of hourly snapshots: the bulk day fold does not fold them`);
  db.exec(`
    UPDATE snapshots AS s SET taken_at = a.day, fold_span_ms = ${DAY_MS}, fold_ms = a.day_ms, fold_snapshots = a.n, node_count = a.nodes,
      pod_count = a.pods, run_id = a.run
    FROM (SELECT d.f, d.day, d.day_ms, SUM(x.fold_snapshots) AS n, ${mean('node_count')} AS nodes, ${mean('pod_count')} AS pods, MAX(x.run_id) AS run
          ${byDay} snapshots x ON x.id = d.id GROUP BY d.f) a
    WHERE s.id = a.f;
    DELETE FROM snapshots WHERE id IN (SELECT id FROM temp.dayfold WHERE id <> f)`);
  const days = db.prepare('SELECT COUNT(DISTINCT f) FROM temp.dayfold').pluck().get() as number;
  db.exec('DROP TABLE temp.dayfold');
  return days;
}
