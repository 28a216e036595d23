import type { Db } from '../open-db.js';
import { createDisruptionsRepository, type RefreshResult } from './disruptions-repository.js';
import { createRangeRollupWriter } from './range-rollups.js';
import { createUsageRepository, type UsageSnapshotWrite } from './usage-repository.js';
import type { KubeSnapshot, NamespaceRollup, NodePoolRecord, NodePoolRollup, SnapshotNode } from '../../core/model.js';
import { createExplanationWriter } from './karpenter-explanations-repository.js';
import { createObjectVersionWriter } from './object-versions.js';
import type { Currency } from '../../core/partitions.js';
import { createSnapshotNodeWriter } from './snapshot-node-rows.js';
import { createPodWriter, podSighting } from './pod-rows.js';
import { createNodeSightingWriter } from './node-sightings.js';

export interface SnapshotWrite {
  snapshot: KubeSnapshot;
  nodes: SnapshotNode[];
  nodePoolRollups: NodePoolRollup[];
  namespaceRollups: NamespaceRollup[];
  runId: number | null;
  /** The currency of every amount in the snapshot (buildSnapshotRows says it); USD when left out. */
  currency?: Currency;
  /** What the pods used (metrics.k8s.io), stored in the same transaction; absent when usage was not collected. */
  usage?: UsageSnapshotWrite;
  /** The cluster the snapshot is of (clusters.id, docs/clusters.md); default 1, a one-cluster ledger's. */
  clusterId?: number;
}

const json = (v: unknown): string => JSON.stringify(v);

/** Karpenter's version as last seen: `{version, source: image|flag, image?, seenAt}` (JSON). */
export const KARPENTER_VERSION_SETTING = 'karpenter.version';
/** Karpenter's version as last seen in one cluster: the first cluster's under the setting of old, each other's its own. */
export const karpenterVersionSetting = (clusterId: number): string =>
  clusterId === 1 ? KARPENTER_VERSION_SETTING : `${KARPENTER_VERSION_SETTING}.${clusterId}`;

export interface KubeRepositoryOptions {
  /** Told what keeping the disruptions current cost each write that changed them (npm run bench). */
  onDisruptionsRefreshed?: (r: RefreshResult) => void;
}

/** All SQL for the Kubernetes side: objects seen, snapshots and their rollups, and the disruptions they change. */
export function createKubeRepository(db: Db, opts: KubeRepositoryOptions = {}) {
  const upsertNodePool = db.prepare(`
    INSERT INTO nodepools (name, weight, consolidation_policy, consolidate_after, capacity_types_json, requirements_json, limits_json, budgets_json, nodeclass, expire_after, taints_json, updated_at, cluster_id)
    VALUES (@name, @weight, @consolidationPolicy, @consolidateAfter, @capacityTypes, @requirements, @limits, @budgets, @nodeClass, @expireAfter, @taints, @at, @clusterId)
    ON CONFLICT(name, cluster_id) DO UPDATE SET weight=excluded.weight, consolidation_policy=excluded.consolidation_policy,
      consolidate_after=excluded.consolidate_after, capacity_types_json=excluded.capacity_types_json,
      requirements_json=excluded.requirements_json, limits_json=excluded.limits_json, budgets_json=excluded.budgets_json,
      nodeclass=excluded.nodeclass, expire_after=excluded.expire_after, taints_json=excluded.taints_json, updated_at=excluded.updated_at`);
  const upsertNamespace = db.prepare(`
    INSERT INTO namespaces (name, team, labels_json, cluster_id) VALUES (?, ?, ?, ?)
    ON CONFLICT(name, cluster_id) DO UPDATE SET team=excluded.team, labels_json=excluded.labels_json`);
  // Nodes and NodeClaims listed again as they were write nothing; those no longer listed are closed before the gone
  // marks (db/repositories/node-sightings.ts).
  const sightings = createNodeSightingWriter(db);
  const markNodesGone = db.prepare('UPDATE nodes SET deleted_at = ? WHERE deleted_at IS NULL AND last_seen < ? AND cluster_id = ?');
  // A NodeClaim a watch saw deleted since the last snapshot: its final conditions (last_seen stays the last snapshot's).
  const finalNodeClaim = db.prepare(`
    UPDATE nodeclaims SET disruption_reason=@disruptionReason, disruption_at=@disruptionAt,
      expire_after=COALESCE(@expireAfter, expire_after), conditions_json=@conditions
    WHERE name=@name AND cluster_id=@clusterId AND deleted_at IS NULL AND last_seen < @at`);
  const markNodeClaimsGone = db.prepare(
    'UPDATE nodeclaims SET deleted_at = ? WHERE deleted_at IS NULL AND last_seen < ? AND cluster_id = ?',
  );
  // A pod's finish and binding are kept as first seen (a reader at t leaves out pods finished by t and takes pods not
  // yet bound at t as pending); its annotations and scheduling spec as last seen (tolerations may be added). Written in
  // migration 0027's narrow layout (db/repositories/pod-rows.ts).
  const upsertPod = createPodWriter(db);
  const insertPodSpec = db.prepare('INSERT OR IGNORE INTO pod_specs (hash, spec_json) VALUES (?, ?)');
  const upsertEvent = db.prepare(`
    INSERT INTO events (uid, at, type, reason, message, kind, name, namespace, cluster_id)
    VALUES (@uid, @at, @type, @reason, @message, @kind, @name, @namespace, @clusterId)
    ON CONFLICT(uid) DO UPDATE SET at=excluded.at, message=excluded.message`);
  const insertSnapshot = db.prepare(
    'INSERT INTO snapshots (taken_at, run_id, node_count, pod_count, currency, kinds_json, cluster_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const objects = createObjectVersionWriter(db);
  const explanations = createExplanationWriter(db);
  const setSetting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  // Node rows in migration 0026's narrow layout (what the node is once, its requests and price per snapshot).
  const writeSnapshotNode = createSnapshotNodeWriter(db);
  const insertNodePoolRollup = db.prepare(`
    INSERT INTO snapshot_nodepools (snapshot_id, taken_at, nodepool, capacity_type, nodes, alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu,
      req_cpu_m, req_memory_b, req_pods, req_gpu, usd_per_hour,
      cpu_eff_usd_per_hour, memory_eff_usd_per_hour, pods_eff_usd_per_hour, gpu_eff_usd_per_hour, gpu_nodes_usd_per_hour, on_demand_usd_per_hour,
      rp_requested_usd_per_hour, rp_cpu_usd_per_hour, rp_gpu_usd_per_hour, cluster_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertNamespaceRollup = db.prepare(`
    INSERT INTO snapshot_namespaces (snapshot_id, taken_at, namespace, nodepool, team, pods, req_cpu_m, req_memory_b, usd_per_hour,
      cpu_share_usd_per_hour, memory_share_usd_per_hour, aws_split_cost_usd_per_hour, aws_unused_cost_usd_per_hour, opencost_usd_per_hour,
      usage_pods, cluster_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const snapshotExists = db.prepare('SELECT id FROM snapshots WHERE taken_at = ? AND cluster_id = ?').pluck();

  // Hour and day rollups for range reads (migration 0006), settled in the same transaction.
  const rangeRollups = createRangeRollupWriter(db);
  const usage = createUsageRepository(db);
  const disruptions = createDisruptionsRepository(db);

  /** One snapshot is one transaction: a failure leaves no partial snapshot behind. Returns the snapshot id. */
  const writeSnapshot = db.transaction((w: SnapshotWrite): number => {
    const { snapshot: s } = w;
    const at = s.takenAt;
    const clusterId = w.clusterId ?? 1;
    if (snapshotExists.get(at, clusterId) !== undefined) throw new Error(`a snapshot at ${new Date(at).toISOString()} is already stored`);
    for (const np of s.nodePools) upsertNodePool.run({ ...nodePoolParams(np, at), clusterId });
    for (const ns of s.namespaces) upsertNamespace.run(ns.name, ns.team, json(ns.labels), clusterId);
    // This snapshot's nodes and NodeClaims only: a snapshot whose transaction failed left its sightings behind.
    sightings.forget();
    for (const n of s.nodes) sightings.node(n, at, clusterId);
    for (const c of s.nodeClaims) sightings.claim(c, at, clusterId);
    sightings.closeGone(clusterId, at);
    markNodesGone.run(at, at, clusterId);
    for (const c of s.goneNodeClaims ?? []) {
      finalNodeClaim.run({
        name: c.name,
        at,
        disruptionReason: c.disruptionReason,
        disruptionAt: c.disruptionAt ?? null,
        expireAfter: c.expireAfter ?? null,
        conditions: json(c.conditions),
        clusterId,
      });
    }
    markNodeClaimsGone.run(at, at, clusterId);
    const specsWritten = new Set<string>();
    // This snapshot's pods only: a snapshot whose transaction failed before its closeGone left its sightings behind.
    upsertPod.forget();
    for (const p of s.pods) {
      // A ref without its JSON: the watch cache dropped it once a snapshot stored it (pod_specs has it).
      if (p.scheduling?.json !== undefined && !specsWritten.has(p.scheduling.hash)) {
        specsWritten.add(p.scheduling.hash);
        insertPodSpec.run(p.scheduling.hash, p.scheduling.json);
      }
      upsertPod(podSighting(p, at, clusterId));
    }
    upsertPod.closeGone(clusterId, at);
    for (const e of s.events) upsertEvent.run({ ...e, clusterId });
    explanations.write(s.events, clusterId);
    if (s.objects !== undefined && s.kinds !== undefined) objects.write(at, s.objects, s.kinds, clusterId);
    if (s.karpenterVersion !== undefined) setSetting.run(karpenterVersionSetting(clusterId), json({ ...s.karpenterVersion, seenAt: at }));
    const currency = w.currency ?? 'USD';
    const id = Number(
      insertSnapshot.run(at, w.runId, s.nodes.length, s.pods.length, currency, s.kinds === undefined ? null : json(s.kinds), clusterId)
        .lastInsertRowid,
    );
    for (const n of w.nodes) {
      if (n.currency !== currency) throw new Error(`node ${n.nodeName} is priced in ${n.currency} in a snapshot in ${currency}`);
      writeSnapshotNode(id, {
        nodeName: n.nodeName,
        nodePool: n.nodePool,
        capacityType: n.capacityType,
        instanceType: n.instanceType,
        allocCpuM: n.allocatable.cpuMillicores,
        allocMemoryB: n.allocatable.memoryBytes,
        allocPods: n.allocatable.pods,
        allocGpu: n.allocatable.gpu,
        reqCpuM: n.requested.cpuMillicores,
        reqMemoryB: n.requested.memoryBytes,
        reqPods: n.requested.pods,
        reqGpu: n.requested.gpu,
        usdPerHour: n.usdPerHour,
        priceSource: n.priceSource,
        priceCurrency: n.currency,
      });
    }
    for (const r of w.nodePoolRollups) {
      insertNodePoolRollup.run(
        id,
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
        r.relativePrice?.requestedUsdPerHour ?? null,
        r.relativePrice?.cpuUsdPerHour ?? null,
        r.relativePrice?.gpuUsdPerHour ?? null,
        clusterId,
      );
    }
    for (const r of w.namespaceRollups) {
      insertNamespaceRollup.run(
        id,
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
        clusterId,
      );
    }
    rangeRollups.addSnapshot(id, at, clusterId);
    if (w.usage) usage.addSnapshot(id, at, w.usage, clusterId);
    // The disruptions these events and NodeClaims change, in the same transaction: a reader never sees a snapshot
    // without them, and never has to write to bring them up to date.
    const refreshed = disruptions.refresh();
    if (refreshed !== null) opts.onDisruptionsRefreshed?.(refreshed);
    return id;
  });

  return {
    writeSnapshot,
    /** Events alone (and the disruptions they change), in one transaction. */
    upsertEvents: db.transaction((events: KubeSnapshot['events']) => {
      for (const e of events) upsertEvent.run({ ...e, clusterId: 1 });
      explanations.write(events, 1);
      const refreshed = disruptions.refresh();
      if (refreshed !== null) opts.onDisruptionsRefreshed?.(refreshed);
    }),
    /** The newest snapshot's time, of every cluster or of one. */
    latestSnapshotAt: (clusterId?: number): number | null =>
      ((clusterId === undefined
        ? db.prepare('SELECT MAX(taken_at) FROM snapshots').pluck().get()
        : db.prepare('SELECT MAX(taken_at) FROM snapshots WHERE cluster_id = ?').pluck().get(clusterId)) as number | null) ?? null,
    snapshotCount: (): number => db.prepare('SELECT COUNT(*) FROM snapshots').pluck().get() as number,
    /** Distinct instance types ever seen, with their zones: what spot history to fetch. */
    instanceMarkets: (): { instanceType: string; zone: string }[] =>
      db.prepare("SELECT DISTINCT instance_type AS instanceType, zone FROM nodes WHERE capacity_type = 'spot'").all() as {
        instanceType: string;
        zone: string;
      }[],
  };
}

export type KubeRepository = ReturnType<typeof createKubeRepository>;

function nodePoolParams(np: NodePoolRecord, at: number) {
  return {
    name: np.name,
    weight: np.weight,
    consolidationPolicy: np.consolidationPolicy,
    consolidateAfter: np.consolidateAfter,
    capacityTypes: json(np.capacityTypes),
    requirements: json(np.requirements),
    limits: json(np.limits),
    budgets: json(np.budgets),
    nodeClass: np.nodeClass,
    expireAfter: np.expireAfter ?? null,
    taints: json(np.taints ?? []),
    at,
  };
}
