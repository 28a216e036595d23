import { BLOCKED_EVENT_REASONS, DISRUPTION_EVENT_REASONS } from '../../core/karpenter/events.js';
import type { Db } from '../open-db.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { lastSeenSql } from './node-sightings.js';

/**
 * All SQL for what explains a bill line: the nodes (joined with their NodeClaims) alive in a window, the NodePools'
 * requirements, each node's first snapshot (the pods it was launched for), the disruption events around them,
 * and how far the snapshots reach. Rows only: the bill service turns them into explainer facts.
 */

export interface BillNodeRow {
  name: string;
  nodeClaim: string | null;
  nodePool: string | null;
  instanceType: string;
  capacityType: string;
  zone: string;
  instanceId: string | null;
  nodeCreatedAt: number;
  claimCreatedAt: number | null;
  firstSeen: number;
  lastSeen: number;
  deletedAt: number | null;
  disruptionReason: string | null;
  allocCpuM: number;
  allocMemoryB: number;
  allocPods: number;
  labelsJson: string;
}

export interface BillNodePoolRow {
  name: string;
  capacityTypesJson: string;
  requirementsJson: string;
}

export interface BillLaunchRow {
  nodeName: string;
  takenAt: number;
  reqCpuM: number;
  reqMemoryB: number;
  reqPods: number;
}

export interface BillLaunchPodRow {
  nodeName: string;
  namespace: string;
  name: string;
  ownerKind: string | null;
  reqCpuM: number;
  reqMemoryB: number;
}

export interface BillEventRow {
  at: number;
  reason: string;
  message: string;
  kind: string;
  name: string;
}

export interface BillPriceRow {
  kind: 'on-demand' | 'spot';
  instanceType: string;
  zone: string;
  effectiveAt: number;
  usdPerHour: number;
  source: string;
}

export interface SnapshotCoverage {
  firstMs: number | null;
  lastMs: number | null;
  count: number;
}

/** The events that say why NodeClaims came and went (listed beside the reasons; blocked attempts left out). */
export const LIFECYCLE_EVENT_REASONS = DISRUPTION_EVENT_REASONS.filter((r) => !BLOCKED_EVENT_REASONS.some((b) => b === r));

export function createBillContextRepository(db: Db) {
  const nodesIn = db.prepare(`
    SELECT n.name, n.nodeclaim AS nodeClaim, n.nodepool AS nodePool, n.instance_type AS instanceType, n.capacity_type AS capacityType,
      n.zone, COALESCE(n.instance_id, c.instance_id) AS instanceId, n.created_at AS nodeCreatedAt, c.created_at AS claimCreatedAt,
      n.first_seen AS firstSeen, ${lastSeenSql('n', 'newest.taken_at')} AS lastSeen, n.deleted_at AS deletedAt, c.disruption_reason AS disruptionReason,
      n.alloc_cpu_m AS allocCpuM, n.alloc_memory_b AS allocMemoryB, n.alloc_pods AS allocPods, n.labels_json AS labelsJson
    FROM nodes n LEFT JOIN nodeclaims c ON c.name = n.nodeclaim AND c.cluster_id = n.cluster_id
      LEFT JOIN (SELECT MAX(taken_at) AS taken_at FROM snapshots WHERE cluster_id = @clusterId) newest
    WHERE MIN(n.created_at, COALESCE(c.created_at, n.created_at)) < @toMs AND (n.deleted_at IS NULL OR n.deleted_at > @fromMs)
      AND n.cluster_id = @clusterId
    ORDER BY n.name`);
  const nodePools = db.prepare(
    `SELECT name, capacity_types_json AS capacityTypesJson, requirements_json AS requirementsJson FROM nodepools WHERE cluster_id = ? ORDER BY name`,
  );
  // The first snapshot of a node is the one taken at its first_seen; past the raw retention, the hourly snapshot
  // of that hour (migration 0021: its requests are the node's means over the hour); past the hourly retention, the
  // daily snapshot of that UTC day (migration 0030).
  const launch = db.prepare(`
    SELECT sn.node_name AS nodeName, s.taken_at AS takenAt, sn.req_cpu_m AS reqCpuM, sn.req_memory_b AS reqMemoryB, sn.req_pods AS reqPods
    FROM nodes n JOIN snapshots s ON s.cluster_id = n.cluster_id AND (s.taken_at = n.first_seen
      OR (s.taken_at = (n.first_seen / ${HOUR_MS}) * ${HOUR_MS} AND s.fold_ms IS NOT NULL)
      OR (s.taken_at = (n.first_seen / ${DAY_MS}) * ${DAY_MS} AND s.fold_span_ms = ${DAY_MS}))
    JOIN snapshot_nodes sn ON sn.snapshot_id = s.id AND sn.node_name = n.name
    WHERE n.name = ? AND n.cluster_id = ? ORDER BY s.taken_at DESC LIMIT 1`);
  // A pod is bound to one node for its life; those seen on it at its first snapshot are the ones it was launched for.
  const launchPods = db.prepare(`
    SELECT p.node_name AS nodeName, p.namespace, p.name, p.owner_kind AS ownerKind, p.req_cpu_m AS reqCpuM, p.req_memory_b AS reqMemoryB
    FROM pods p JOIN pod_rows r ON r.id = p.pod_id JOIN nodes n ON n.name = p.node_name AND n.cluster_id = r.cluster_id
    WHERE p.node_name = ? AND r.cluster_id = ? AND p.first_seen <= n.first_seen AND p.last_seen >= n.first_seen
    ORDER BY p.req_cpu_m DESC, p.namespace, p.name`);
  const events = db.prepare(`
    SELECT at, reason, message, kind, name FROM events
    WHERE at >= @fromMs AND at <= @toMs AND cluster_id = @clusterId AND reason IN (${LIFECYCLE_EVENT_REASONS.map((r) => `'${r}'`).join(', ')})
    ORDER BY at, kind, name`);
  // Snapshots taken (an hourly one counts the snapshots it folds).
  const coverage = db.prepare(
    `SELECT MIN(taken_at) AS firstMs, MAX(taken_at) AS lastMs, CAST(TOTAL(COALESCE(fold_snapshots, 1)) AS INTEGER) AS count FROM snapshots
     WHERE cluster_id = ?`,
  );
  // Per market, the points a span in [@fromMs, @toMs) can be priced at (server/explain/price-timeline.ts): the one in
  // effect at @fromMs (the last at or before it; else the market's first, which a span before the history pays), then
  // every later one before @toMs. Not the whole history: a year of spot prices for one day's line.
  const prices = db.prepare(`
    WITH market AS (
      SELECT kind, instance_type, zone, COALESCE(MAX(CASE WHEN effective_at <= @fromMs THEN effective_at END), MIN(effective_at)) AS anchor_at
      FROM prices WHERE region = @region AND instance_type IN (SELECT value FROM json_each(@types))
      GROUP BY kind, instance_type, zone)
    SELECT p.kind, p.instance_type AS instanceType, p.zone, p.effective_at AS effectiveAt, p.usd_per_hour AS usdPerHour, p.source
    FROM market m JOIN prices p ON p.kind = m.kind AND p.region = @region AND p.instance_type = m.instance_type AND p.zone = m.zone
      AND p.effective_at >= m.anchor_at AND p.effective_at < MAX(@toMs, m.anchor_at + 1)
    ORDER BY p.kind, p.instance_type, p.zone, p.effective_at`);

  // Every read is of one cluster (`clusterId`): its nodes, NodeClaims, NodePools, events and snapshots, never joined
  // by name to another cluster's (two clusters may both have a NodePool `default` or a node `ip-10-0-1-5…`).
  return {
    /** Nodes whose billed life (from the NodeClaim's creation) overlaps [fromMs, toMs). */
    nodesOverlapping: (fromMs: number, toMs: number, clusterId: number): BillNodeRow[] =>
      nodesIn.all({ fromMs, toMs, clusterId }) as BillNodeRow[],
    nodePools: (clusterId: number): BillNodePoolRow[] => nodePools.all(clusterId) as BillNodePoolRow[],
    /** Per node: its first snapshot's requests and the pods on it then. Nodes never snapshotted are absent. */
    launches(nodeNames: readonly string[], clusterId: number): { launches: BillLaunchRow[]; pods: BillLaunchPodRow[] } {
      const out: { launches: BillLaunchRow[]; pods: BillLaunchPodRow[] } = { launches: [], pods: [] };
      for (const name of nodeNames) {
        const l = launch.get(name, clusterId) as BillLaunchRow | undefined;
        if (!l) continue;
        out.launches.push(l);
        out.pods.push(...(launchPods.all(name, clusterId) as BillLaunchPodRow[]));
      }
      return out;
    },
    lifecycleEvents: (fromMs: number, toMs: number, clusterId: number): BillEventRow[] =>
      events.all({ fromMs, toMs, clusterId }) as BillEventRow[],
    snapshotCoverage: (clusterId: number): SnapshotCoverage => coverage.get(clusterId) as SnapshotCoverage,
    /**
     * Price history of a region for these instance types only (all zones), sorted by time per market, as far as it
     * prices [fromMs, toMs): from the point in effect at fromMs (else the market's first) to the last before toMs.
     */
    priceRows: (region: string, instanceTypes: readonly string[], fromMs: number, toMs: number): BillPriceRow[] =>
      prices.all({ region, types: JSON.stringify(instanceTypes), fromMs, toMs }) as BillPriceRow[],
  };
}

export type BillContextRepository = ReturnType<typeof createBillContextRepository>;
