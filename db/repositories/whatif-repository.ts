import type { NodePoolRecord } from '../../core/model.js';
import type { Db } from '../open-db.js';
import { CLUSTER_REGION_SETTING } from './runs-repository.js';

/**
 * All SQL the what-if engine reads: one stored snapshot as the cluster stood (its nodes with labels and allocatable,
 * the pods bound to them with their requests, the NodePools as last stored) and the prices in effect then.
 * Read-only: a what-if never writes.
 */

export interface WhatIfSnapshotRow {
  id: number;
  takenAt: number;
  currency: string;
}

export interface WhatIfNodeRow {
  name: string;
  nodePool: string | null;
  instanceType: string;
  capacityType: string;
  zone: string;
  createdAt: number;
  allocCpuMillicores: number;
  allocMemoryBytes: number;
  allocPods: number;
  allocGpu: number;
  /** status.capacity as stored (quantity strings); null for nodes collected before migration 0008. */
  capacity: Record<string, string> | null;
  labels: Record<string, string>;
  /** The node's price in the snapshot (its currency), and where it came from; null when it could not be priced. */
  storedPricePerHour: number | null;
}

export interface WhatIfPodRow {
  uid: string;
  namespace: string;
  name: string;
  nodeName: string;
  ownerKind: string | null;
  ownerName: string | null;
  cpuMillicores: number;
  memoryBytes: number;
  gpu: number;
  doNotDisrupt: boolean;
  createdAt: number;
  labels: Record<string, string>;
}

export interface WhatIfPrices {
  /** On-demand per hour by instance type, in effect at the snapshot. */
  onDemand: Map<string, number>;
  /** Spot per hour keyed `${instanceType}/${zone}`, in effect at the snapshot. */
  spot: Map<string, number>;
  currency: string | null;
}

interface RawNode {
  name: string;
  nodepool: string | null;
  instance_type: string;
  capacity_type: string;
  zone: string | null;
  created_at: number | null;
  alloc_cpu_m: number;
  alloc_memory_b: number;
  alloc_pods: number;
  alloc_gpu: number;
  capacity_json: string | null;
  labels_json: string | null;
  usd_per_hour: number | null;
}

interface RawPod {
  uid: string;
  namespace: string;
  name: string;
  node_name: string;
  owner_kind: string | null;
  owner_name: string | null;
  req_cpu_m: number;
  req_memory_b: number;
  req_gpu: number;
  do_not_disrupt: number;
  created_at: number;
  labels_json: string;
}

interface RawNodePool {
  name: string;
  weight: number | null;
  consolidation_policy: string | null;
  consolidate_after: string | null;
  capacity_types_json: string;
  requirements_json: string;
  limits_json: string;
  budgets_json: string;
  nodeclass: string | null;
  expire_after: string | null;
  taints_json: string;
}

const parse = <T>(text: string | null, fallback: T): T => (text === null ? fallback : (JSON.parse(text) as T));

export function createWhatIfRepository(db: Db) {
  const snapshotAtOrBefore = db.prepare(
    'SELECT id, taken_at AS takenAt, currency FROM snapshots WHERE taken_at <= ? ORDER BY taken_at DESC LIMIT 1',
  );
  // The snapshot's own row gives what the node was then (type, capacity type, allocatable, price); nodes gives what
  // never changes (labels, zone, creation time).
  const nodesOf = db.prepare(`
    SELECT sn.node_name AS name, sn.nodepool, sn.instance_type, sn.capacity_type, n.zone, n.created_at,
           sn.alloc_cpu_m, sn.alloc_memory_b, sn.alloc_pods, sn.alloc_gpu, n.capacity_json, n.labels_json, sn.usd_per_hour
    FROM snapshot_nodes sn LEFT JOIN nodes n ON n.name = sn.node_name
    WHERE sn.snapshot_id = ? ORDER BY sn.node_name`);
  // A pod is bound for life, so the pods of a snapshot are those seen on both sides of its time, on one of its nodes.
  const podsOf = db.prepare(`
    SELECT p.uid, p.namespace, p.name, p.node_name, p.owner_kind, p.owner_name, p.req_cpu_m, p.req_memory_b, p.req_gpu,
           p.do_not_disrupt, p.created_at, p.labels_json
    FROM pods p JOIN snapshot_nodes sn ON sn.snapshot_id = @id AND sn.node_name = p.node_name
    WHERE p.first_seen <= @at AND p.last_seen >= @at
    ORDER BY p.namespace, p.name`);
  const nodePools = db.prepare('SELECT * FROM nodepools ORDER BY name');
  const setting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  // The newest price at or before the snapshot, per type (on-demand) and per type and zone (spot).
  const pricesAt = db.prepare(`
    SELECT p.kind, p.instance_type AS instanceType, p.zone, p.usd_per_hour AS price, p.currency
    FROM prices p
    JOIN (SELECT kind, instance_type, zone, MAX(effective_at) AS at FROM prices
          WHERE region = @region AND effective_at <= @at GROUP BY kind, instance_type, zone) latest
      ON latest.kind = p.kind AND latest.instance_type = p.instance_type AND latest.zone = p.zone AND latest.at = p.effective_at
    WHERE p.region = @region`);

  return {
    /** The newest snapshot at or before `at` (default: the newest), or null when there is none. */
    snapshot(at = Number.MAX_SAFE_INTEGER): WhatIfSnapshotRow | null {
      return (snapshotAtOrBefore.get(at) as WhatIfSnapshotRow | undefined) ?? null;
    },
    nodes(snapshotId: number): WhatIfNodeRow[] {
      return (nodesOf.all(snapshotId) as RawNode[]).map((r) => ({
        name: r.name,
        nodePool: r.nodepool,
        instanceType: r.instance_type,
        capacityType: r.capacity_type,
        zone: r.zone ?? '',
        createdAt: r.created_at ?? 0,
        allocCpuMillicores: r.alloc_cpu_m,
        allocMemoryBytes: r.alloc_memory_b,
        allocPods: r.alloc_pods,
        allocGpu: r.alloc_gpu,
        capacity: parse<Record<string, string> | null>(r.capacity_json, null),
        labels: parse<Record<string, string>>(r.labels_json, {}),
        storedPricePerHour: r.usd_per_hour,
      }));
    },
    pods(snapshot: WhatIfSnapshotRow): WhatIfPodRow[] {
      return (podsOf.all({ id: snapshot.id, at: snapshot.takenAt }) as RawPod[]).map((r) => ({
        uid: r.uid,
        namespace: r.namespace,
        name: r.name,
        nodeName: r.node_name,
        ownerKind: r.owner_kind,
        ownerName: r.owner_name,
        cpuMillicores: r.req_cpu_m,
        memoryBytes: r.req_memory_b,
        gpu: r.req_gpu,
        doNotDisrupt: r.do_not_disrupt === 1,
        createdAt: r.created_at,
        labels: parse<Record<string, string>>(r.labels_json, {}),
      }));
    },
    /** The NodePools as last stored (the table keeps the newest spec of each, not its history). */
    nodePools(): NodePoolRecord[] {
      return (nodePools.all() as RawNodePool[]).map((r) => ({
        name: r.name,
        weight: r.weight,
        consolidationPolicy: r.consolidation_policy,
        consolidateAfter: r.consolidate_after,
        capacityTypes: parse<string[]>(r.capacity_types_json, []),
        requirements: parse<NodePoolRecord['requirements']>(r.requirements_json, []),
        limits: parse<Record<string, string>>(r.limits_json, {}),
        budgets: parse<NodePoolRecord['budgets']>(r.budgets_json, []),
        nodeClass: r.nodeclass,
        expireAfter: r.expire_after,
        taints: parse<NonNullable<NodePoolRecord['taints']>>(r.taints_json, []),
      }));
    },
    /** The region the pricing collector priced the cluster in, or null before it ran. */
    clusterRegion(): string | null {
      return (setting.get(CLUSTER_REGION_SETTING) as string | undefined) ?? null;
    },
    /** Stored on-demand and spot prices in effect at `at` in a region. */
    pricesAt(region: string, at: number): WhatIfPrices {
      const onDemand = new Map<string, number>();
      const spot = new Map<string, number>();
      let currency: string | null = null;
      for (const r of pricesAt.all({ region, at }) as {
        kind: string;
        instanceType: string;
        zone: string;
        price: number;
        currency: string;
      }[]) {
        currency = r.currency;
        if (r.kind === 'spot') spot.set(`${r.instanceType}/${r.zone}`, r.price);
        else onDemand.set(r.instanceType, r.price);
      }
      return { onDemand, spot, currency };
    },
  };
}

export type WhatIfRepository = ReturnType<typeof createWhatIfRepository>;
