import type { Db } from '../open-db.js';
import type { SnapshotWrite } from './kube-repository.js';
import { createPodWriter, podSighting, type PodSighting } from './pod-rows.js';

/**
 * The floor `npm run bench` measures the kube repository's ingest against: the same rows of a snapshot into the
 * same tables, one transaction per snapshot, with prepared statements, positional parameters, values flattened
 * beforehand (labels already JSON) and only the conflict handling the same rows need — no existence check, no
 * "gone" marking, no range rollups. Not used by the product.
 */

type Row = (string | number | null)[];

/** One snapshot as flat rows per table, ready to bind. */
export interface BareSnapshot {
  takenAt: number;
  runId: number | null;
  nodePools: Row[];
  namespaces: Row[];
  nodes: Row[];
  nodeClaims: Row[];
  /** Pods go through the product's own writer: since migration 0027 `pods` is a view no floor can UPSERT into. */
  pods: PodSighting[];
  events: Row[];
  snapshotNodes: Row[];
  nodePoolRollups: Row[];
  namespaceRollups: Row[];
  nodeCount: number;
  podCount: number;
}

const json = (v: unknown): string => JSON.stringify(v);

/** Flattening happens before the clock starts: the bare loop times SQLite, not the mapping. */
export function flattenSnapshot(w: SnapshotWrite): BareSnapshot {
  const s = w.snapshot;
  const at = s.takenAt;
  return {
    takenAt: at,
    runId: w.runId,
    nodePools: s.nodePools.map((np) => [
      np.name,
      np.weight,
      np.consolidationPolicy,
      np.consolidateAfter,
      json(np.capacityTypes),
      json(np.requirements),
      json(np.limits),
      json(np.budgets),
      np.nodeClass,
      at,
    ]),
    namespaces: s.namespaces.map((ns) => [ns.name, ns.team, json(ns.labels)]),
    nodes: s.nodes.map((n) => [
      n.name,
      n.nodeClaim,
      n.nodePool,
      n.instanceType,
      n.capacityType,
      n.zone,
      n.instanceId,
      n.createdAt,
      at,
      at,
      n.allocatable.cpuMillicores,
      n.allocatable.memoryBytes,
      n.allocatable.pods,
      n.allocatable.gpu,
      json(n.labels),
    ]),
    nodeClaims: s.nodeClaims.map((c) => [
      c.name,
      c.nodePool,
      c.nodeName,
      c.instanceType,
      c.capacityType,
      c.zone,
      c.instanceId,
      c.createdAt,
      at,
      at,
      c.disruptionReason,
      json(c.conditions),
    ]),
    pods: s.pods.map((p) => podSighting(p, at, 1)),
    events: s.events.map((e) => [e.uid, e.at, e.type, e.reason, e.message, e.kind, e.name, e.namespace]),
    snapshotNodes: w.nodes.map((n) => [
      n.nodeName,
      n.nodePool,
      n.capacityType,
      n.instanceType,
      n.allocatable.cpuMillicores,
      n.allocatable.memoryBytes,
      n.allocatable.pods,
      n.allocatable.gpu,
      n.requested.cpuMillicores,
      n.requested.memoryBytes,
      n.requested.pods,
      n.requested.gpu,
      n.usdPerHour,
      n.priceSource,
    ]),
    nodePoolRollups: w.nodePoolRollups.map((r) => [
      at,
      r.nodePool,
      r.capacityType,
      r.nodes,
      r.allocatable.cpuMillicores,
      r.allocatable.memoryBytes,
      r.allocatable.pods,
      r.allocatable.gpu,
      r.requested.cpuMillicores,
      r.requested.memoryBytes,
      r.requested.pods,
      r.requested.gpu,
      r.usdPerHour,
      r.costWeighted?.cpuUsdPerHour ?? null,
      r.costWeighted?.memoryUsdPerHour ?? null,
      r.costWeighted?.podsUsdPerHour ?? null,
      r.costWeighted?.gpuUsdPerHour ?? null,
      r.costWeighted?.gpuNodesUsdPerHour ?? null,
      r.onDemandUsdPerHour ?? null,
    ]),
    namespaceRollups: w.namespaceRollups.map((r) => [
      at,
      r.namespace,
      r.nodePool,
      r.team,
      r.pods,
      r.cpuMillicores,
      r.memoryBytes,
      r.usdPerHour,
      r.cpuShareUsdPerHour ?? null,
      r.memoryShareUsdPerHour ?? null,
      r.awsSplitCostUsdPerHour ?? null,
      r.awsUnusedCostUsdPerHour ?? null,
      r.openCostUsdPerHour ?? null,
      r.usagePods ?? null,
    ]),
    nodeCount: s.nodes.length,
    podCount: s.pods.length,
  };
}

/** Rows a snapshot writes (the same count for the repository and the bare loop). */
export const rowsOf = (b: BareSnapshot): number =>
  b.nodePools.length +
  b.namespaces.length +
  b.nodes.length +
  b.nodeClaims.length +
  b.pods.length +
  b.events.length +
  1 +
  b.snapshotNodes.length +
  b.nodePoolRollups.length +
  b.namespaceRollups.length;

export function createBareIngest(db: Db) {
  const nodePool =
    db.prepare(`INSERT INTO nodepools (name, weight, consolidation_policy, consolidate_after, capacity_types_json, requirements_json, limits_json, budgets_json, nodeclass, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name, cluster_id) DO UPDATE SET updated_at=excluded.updated_at`);
  const namespace = db.prepare(
    'INSERT INTO namespaces (name, team, labels_json) VALUES (?, ?, ?) ON CONFLICT(name, cluster_id) DO UPDATE SET team=excluded.team',
  );
  const node =
    db.prepare(`INSERT INTO nodes (name, nodeclaim, nodepool, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen,
      alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, labels_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(name, cluster_id) DO UPDATE SET last_seen=excluded.last_seen`);
  const nodeClaim =
    db.prepare(`INSERT INTO nodeclaims (name, nodepool, node_name, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen, disruption_reason, conditions_json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name, cluster_id) DO UPDATE SET last_seen=excluded.last_seen`);
  const pod = createPodWriter(db);
  const event = db.prepare(
    'INSERT INTO events (uid, at, type, reason, message, kind, name, namespace) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uid) DO NOTHING',
  );
  const snapshot = db.prepare('INSERT INTO snapshots (taken_at, run_id, node_count, pod_count) VALUES (?, ?, ?, ?)');
  const snapshotNode =
    db.prepare(`INSERT INTO snapshot_nodes (snapshot_id, node_name, nodepool, capacity_type, instance_type, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu,
      req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, price_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const poolRollup =
    db.prepare(`INSERT INTO snapshot_nodepools (snapshot_id, taken_at, nodepool, capacity_type, nodes, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu,
      req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour, cpu_eff_usd_per_hour, memory_eff_usd_per_hour, pods_eff_usd_per_hour, gpu_eff_usd_per_hour,
      gpu_nodes_usd_per_hour, on_demand_usd_per_hour) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const namespaceRollup =
    db.prepare(`INSERT INTO snapshot_namespaces (snapshot_id, taken_at, namespace, nodepool, team, pods, req_cpu_m, req_memory_b, usd_per_hour,
      cpu_share_usd_per_hour, memory_share_usd_per_hour, aws_split_cost_usd_per_hour, aws_unused_cost_usd_per_hour, opencost_usd_per_hour,
      usage_pods) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return {
    write: db.transaction((b: BareSnapshot): void => {
      for (const r of b.nodePools) nodePool.run(r);
      for (const r of b.namespaces) namespace.run(r);
      for (const r of b.nodes) node.run(r);
      for (const r of b.nodeClaims) nodeClaim.run(r);
      for (const p of b.pods) pod(p);
      for (const r of b.events) event.run(r);
      const id = snapshot.run(b.takenAt, b.runId, b.nodeCount, b.podCount).lastInsertRowid;
      for (const r of b.snapshotNodes) snapshotNode.run(id, ...r);
      for (const r of b.nodePoolRollups) poolRollup.run(id, ...r);
      for (const r of b.namespaceRollups) namespaceRollup.run(id, ...r);
    }),
  };
}
