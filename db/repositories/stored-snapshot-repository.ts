import type { Db } from '../open-db.js';
import type { NodeSelectorRequirement } from '../../core/karpenter/requirements.js';
import { CLUSTER_REGION_SETTING } from './runs-repository.js';

/**
 * One stored snapshot as the scheduling engine needs it (server/analytics/snapshot-to-engine.ts turns it into engine
 * input): the NodePools as last written, the snapshot's nodes with their zone and price, and the pods bound to those
 * nodes then, with their effective requests. Only what the database keeps: pod affinity, tolerations and node taints
 * are not stored, so a re-pack from this sees requests, NodePool requirements and instance types only.
 */

export interface StoredNodePool {
  name: string;
  weight: number | null;
  requirements: NodeSelectorRequirement[];
  /** spec.limits as written ("100", "1000Gi"). */
  limits: Record<string, string>;
}

export interface StoredSnapshotNode {
  name: string;
  nodePool: string | null;
  instanceType: string;
  capacityType: string;
  zone: string;
  /** null: no price was known at the snapshot. */
  usdPerHour: number | null;
  allocCpuMillicores: number;
  allocMemoryBytes: number;
  allocPods: number;
}

export interface StoredSnapshotPod {
  namespace: string;
  name: string;
  nodeName: string;
  ownerKind: string | null;
  ownerName: string | null;
  labels: Record<string, string>;
  /** Effective pod requests (init containers and overhead counted) as the collector computed them. */
  reqCpuMillicores: number;
  reqMemoryBytes: number;
  reqGpu: number;
}

export interface StoredSnapshot {
  takenAt: number;
  /** The cluster's region as the collector recorded it; null when never recorded. */
  region: string | null;
  nodePools: StoredNodePool[];
  nodes: StoredSnapshotNode[];
  pods: StoredSnapshotPod[];
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function createStoredSnapshotRepository(db: Db) {
  const snapshotAt = db.prepare('SELECT id, taken_at FROM snapshots WHERE taken_at <= ? ORDER BY taken_at DESC LIMIT 1');
  const region = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const nodePools = db.prepare('SELECT name, weight, requirements_json, limits_json FROM nodepools ORDER BY name');
  const nodes = db.prepare(`
    SELECT sn.node_name, sn.nodepool, sn.instance_type, sn.capacity_type, COALESCE(n.zone, '') AS zone, sn.usd_per_hour,
           sn.alloc_cpu_m, sn.alloc_memory_b, sn.alloc_pods
    FROM snapshot_nodes sn LEFT JOIN nodes n ON n.name = sn.node_name
    WHERE sn.snapshot_id = ? ORDER BY sn.node_name`);
  // A pod row's first_seen / last_seen are the first and last snapshots that listed it, so it was there at `at`
  // when they bracket it; pods never move between nodes, so its node_name is the node it was on.
  const pods = db.prepare(`
    SELECT p.namespace, p.name, p.node_name, p.owner_kind, p.owner_name, p.labels_json, p.req_cpu_m, p.req_memory_b, p.req_gpu
    FROM pods p JOIN snapshot_nodes sn ON sn.snapshot_id = ? AND sn.node_name = p.node_name
    WHERE p.first_seen <= ? AND p.last_seen >= ?
    ORDER BY p.namespace, p.name`);

  return {
    /** The newest snapshot at or before `atMs` (default: the newest), or null before any. */
    storedSnapshotAt(atMs: number = Number.MAX_SAFE_INTEGER): StoredSnapshot | null {
      const s = snapshotAt.get(atMs) as { id: number; taken_at: number } | undefined;
      if (s === undefined) return null;
      const at = s.taken_at;
      return {
        takenAt: at,
        region: (region.get(CLUSTER_REGION_SETTING) as string | undefined) ?? null,
        nodePools: (nodePools.all() as { name: string; weight: number | null; requirements_json: string; limits_json: string }[]).map(
          (r) => ({
            name: r.name,
            weight: r.weight,
            requirements: parseJson<NodeSelectorRequirement[]>(r.requirements_json, []),
            limits: parseJson<Record<string, string>>(r.limits_json, {}),
          }),
        ),
        nodes: (
          nodes.all(s.id) as {
            node_name: string;
            nodepool: string | null;
            instance_type: string;
            capacity_type: string;
            zone: string;
            usd_per_hour: number | null;
            alloc_cpu_m: number;
            alloc_memory_b: number;
            alloc_pods: number;
          }[]
        ).map((r) => ({
          name: r.node_name,
          nodePool: r.nodepool === '' ? null : r.nodepool,
          instanceType: r.instance_type,
          capacityType: r.capacity_type,
          zone: r.zone,
          usdPerHour: r.usd_per_hour,
          allocCpuMillicores: r.alloc_cpu_m,
          allocMemoryBytes: r.alloc_memory_b,
          allocPods: r.alloc_pods,
        })),
        pods: (
          pods.all(s.id, at, at) as {
            namespace: string;
            name: string;
            node_name: string;
            owner_kind: string | null;
            owner_name: string | null;
            labels_json: string | null;
            req_cpu_m: number;
            req_memory_b: number;
            req_gpu: number;
          }[]
        ).map((r) => ({
          namespace: r.namespace,
          name: r.name,
          nodeName: r.node_name,
          ownerKind: r.owner_kind,
          ownerName: r.owner_name,
          labels: parseJson<Record<string, string>>(r.labels_json, {}),
          reqCpuMillicores: r.req_cpu_m,
          reqMemoryBytes: r.req_memory_b,
          reqGpu: r.req_gpu,
        })),
      };
    },
  };
}

export type StoredSnapshotRepository = ReturnType<typeof createStoredSnapshotRepository>;
