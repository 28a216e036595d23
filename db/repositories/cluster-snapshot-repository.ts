import type { ClusterObjects } from '../../core/karpenter/scheduling/kube-types.js';
import {
  VERSIONED_KINDS,
  type KarpenterVersionRecord,
  type KindState,
  type NodePoolRecord,
  type PodSchedulingSpec,
  type PodVolumeRecord,
} from '../../core/model.js';
import type { Db } from '../open-db.js';
import {
  clusterObjectsFromRows,
  type SnapshotKinds,
  type SnapshotNodeRow,
  type SnapshotPodRow,
  type StoredBody,
} from './cluster-snapshot-objects.js';
import { karpenterVersionSetting } from './kube-repository.js';
import { createObjectVersionReader } from './object-versions.js';
import { CLUSTER_REGION_SETTING } from './runs-repository.js';

/**
 * The one reader of a stored snapshot as the cluster Karpenter saw then (issue 21): `clusterObjectsAt(at)` gives the
 * newest snapshot at or before `at` as ClusterObjects (core/karpenter/scheduling/kube-types.ts), with what pricing
 * needs (each node's price as stored, the region) and what the snapshot lacks. Read-only. The mapping from rows to
 * objects is pure, in cluster-snapshot-objects.ts (see there for what each object carries and what older rows give).
 *
 * At the snapshot's time t: its nodes (snapshot_nodes), with taints, cordon and allocatable as their version at t;
 * the pods listed at t, bound to one of those nodes by t (else pending at t), finished ones as Succeeded or Failed with
 * their finish time; the NodePools,
 * PodDisruptionBudgets, DaemonSets, PVCs, PVs, StorageClasses, CSINodes, EC2NodeClasses and NodeOverlays as their
 * versions at t.
 */

export interface NodePrice {
  instanceType: string;
  capacityType: string;
  zone: string;
  /** Per hour in the snapshot's currency; null when the collector could not price it. */
  pricePerHour: number | null;
  source: string | null;
}

export interface ClusterSnapshot {
  snapshot: { id: number; takenAt: number; currency: string };
  objects: ClusterObjects;
  /** Each node's price as the snapshot stored it, by node name. */
  nodePrices: Record<string, NodePrice>;
  /** The cluster's region as the pricing collector recorded it; null before it ran. */
  region: string | null;
  /** Karpenter's version as last seen (its controller's image, or --karpenter-version), when seen. */
  karpenterVersion: (KarpenterVersionRecord & { seenAt: number }) | null;
  /** Per versioned kind, whether the snapshot read it (null: taken before migration 0019). */
  kinds: Readonly<Record<string, KindState>> | null;
  /** What the snapshot lacks and what stands in for it, in words (empty when complete). */
  gaps: string[];
}

interface RawNode {
  name: string;
  nodepool: string | null;
  instance_type: string;
  capacity_type: string;
  zone: string | null;
  instance_id: string | null;
  created_at: number | null;
  alloc_cpu_m: number;
  alloc_memory_b: number;
  alloc_pods: number;
  alloc_gpu: number;
  capacity_json: string | null;
  labels_json: string | null;
  usd_per_hour: number | null;
  price_source: string | null;
}

interface RawPod {
  uid: string;
  namespace: string;
  name: string;
  node_name: string | null;
  owner_kind: string | null;
  owner_name: string | null;
  req_cpu_m: number;
  req_memory_b: number;
  req_gpu: number;
  do_not_disrupt: number;
  created_at: number;
  labels_json: string | null;
  scheduled_at: number | null;
  started_at: number | null;
  do_not_disrupt_value: string | null;
  deletion_cost: string | null;
  volumes_json: string | null;
  spec_hash: string | null;
  phase: string;
  finished_at: number | null;
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

const parse = <T>(text: string | null, fallback: T): T => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** A finished row's phase: Succeeded or Failed as stored (rows marked finished carry one of them). */
const terminalPhase = (phase: string): 'Succeeded' | 'Failed' => (phase === 'Failed' ? 'Failed' : 'Succeeded');

const POD_COLUMNS = `p.uid, p.namespace, p.name, p.node_name, p.owner_kind, p.owner_name, p.req_cpu_m, p.req_memory_b, p.req_gpu,
  p.do_not_disrupt, p.created_at, p.labels_json, p.scheduled_at, p.started_at, p.do_not_disrupt_value, p.deletion_cost,
  p.volumes_json, p.spec_hash, p.phase, p.finished_at`;
/** What a read of a snapshot may leave out. */
export interface ClusterReadOptions {
  /**
   * false: read no pods (objects.pods is empty, and `gaps` says so). For readers that never look at pods (the
   * NodePools page's static pools, limits, overlays and reservations): at the envelope the pods are nearly all of a
   * read (150,000 rows and their specs).
   */
  pods?: boolean;
  /**
   * false: each node carries only the labels its snapshot row gives (NodePool, instance type, capacity type, zone,
   * hostname) and no status.capacity: the stored labels (about 1.2 KB a node, 6 MB at the envelope) are not read or
   * parsed. For readers that look at nodes only by those (the NodePools page's counts and prices).
   */
  nodeLabels?: boolean;
  /** false: the Node versions (taints, cordon, allocatable as collected) are not read; each node has its NodePool's taints. */
  nodeVersions?: boolean;
  /** Only these of the other versioned kinds (PodDisruptionBudget, ..., NodeOverlay) are read; default: every one. */
  kinds?: readonly string[];
  /** The newest snapshot at or before `at` of this cluster (clusters.id); absent or null: of any cluster. */
  clusterId?: number | null;
}

/** The versioned kinds read as they are (NodePools and Nodes are merged with their rows). */
const OTHER_KINDS = VERSIONED_KINDS.filter((k) => k !== 'NodePool' && k !== 'Node');

export function createClusterSnapshotRepository(db: Db) {
  const snapshotAt = db.prepare(
    `SELECT id, taken_at, currency, kinds_json, cluster_id FROM snapshots
     WHERE taken_at <= @at AND (@clusterId IS NULL OR cluster_id = @clusterId) ORDER BY taken_at DESC LIMIT 1`,
  );
  // A ledger of several clusters (docs/clusters.md): every read below keeps to the snapshot's cluster. A one-cluster
  // ledger reads as before (its every row is cluster 1), without the per-pod check.
  const clusterCount = db.prepare('SELECT COUNT(*) FROM clusters').pluck();
  const ofCluster = 'EXISTS (SELECT 1 FROM pod_rows r WHERE r.id = p.pod_id AND r.cluster_id = @cluster)';
  // What the node was then comes from the snapshot's own row (type, capacity type, allocatable, price); what never
  // changes (labels, zone, creation time, capacity) from nodes.
  const nodesOf = db.prepare(`
    SELECT sn.node_name AS name, sn.nodepool, sn.instance_type, sn.capacity_type, n.zone, n.instance_id, n.created_at,
           sn.alloc_cpu_m, sn.alloc_memory_b, sn.alloc_pods, sn.alloc_gpu, n.capacity_json, n.labels_json, sn.usd_per_hour, sn.price_source
    FROM snapshot_nodes sn LEFT JOIN nodes n ON n.name = sn.node_name AND n.cluster_id = @clusterId
    WHERE sn.snapshot_id = @id ORDER BY sn.node_name`);
  // The same without the stored labels and capacity (ClusterReadOptions.nodeLabels false).
  const nodesLightOf = db.prepare(`
    SELECT sn.node_name AS name, sn.nodepool, sn.instance_type, sn.capacity_type, n.zone, n.instance_id, n.created_at,
           sn.alloc_cpu_m, sn.alloc_memory_b, sn.alloc_pods, sn.alloc_gpu, NULL AS capacity_json, NULL AS labels_json, sn.usd_per_hour, sn.price_source
    FROM snapshot_nodes sn LEFT JOIN nodes n ON n.name = sn.node_name AND n.cluster_id = @clusterId
    WHERE sn.snapshot_id = @id ORDER BY sn.node_name`);
  // Both read as arrays: at 5,000 nodes better-sqlite3's object per row cost more than the query.
  nodesOf.raw(true);
  nodesLightOf.raw(true);
  const nodeCol = Object.fromEntries(nodesOf.columns().map((c, i) => [c.name, i])) as Record<keyof RawNode, number>;
  const rawNode = (a: unknown[]): RawNode => {
    const c = nodeCol;
    return {
      name: a[c.name] as string,
      nodepool: a[c.nodepool] as string | null,
      instance_type: a[c.instance_type] as string,
      capacity_type: a[c.capacity_type] as string,
      zone: a[c.zone] as string | null,
      instance_id: a[c.instance_id] as string | null,
      created_at: a[c.created_at] as number | null,
      alloc_cpu_m: a[c.alloc_cpu_m] as number,
      alloc_memory_b: a[c.alloc_memory_b] as number,
      alloc_pods: a[c.alloc_pods] as number,
      alloc_gpu: a[c.alloc_gpu] as number,
      capacity_json: a[c.capacity_json] as string | null,
      labels_json: a[c.labels_json] as string | null,
      usd_per_hour: a[c.usd_per_hour] as number | null,
      price_source: a[c.price_source] as string | null,
    };
  };
  // A pod row is seen (listed) from first_seen to last_seen; bound for life once scheduled_at (NULL before 0019: bound
  // since first seen); finished from finished_at, and listed finished until its Job or node goes, as the API server
  // lists it (Karpenter sees it too: its finish restarts the node's consolidateAfter clock). Bound pods: through their
  // node's row of the snapshot.
  const boundPodsSql = (one: boolean) => `
    SELECT ${POD_COLUMNS}
    FROM snapshot_nodes sn JOIN pods p ON p.node_name = sn.node_name
    WHERE sn.snapshot_id = @id AND p.first_seen <= @at AND p.last_seen >= @at${one ? '' : ` AND ${ofCluster}`}`;
  const boundPods = db.prepare(boundPodsSql(true));
  const boundPodsOfCluster = db.prepare(boundPodsSql(false));
  // Pending then: never bound (node_id: migration 0027's pod_rows_node finds them; the view's node_name would scan), or
  // bound after (the partial index pod_rows_bound_late keeps these few at hand).
  const pendingPodsSql = (one: boolean) => `
    SELECT ${POD_COLUMNS}
    FROM pods p
    WHERE p.node_id IS NULL AND p.first_seen <= @at AND p.last_seen >= @at${one ? '' : ` AND ${ofCluster}`}
    UNION ALL
    SELECT ${POD_COLUMNS}
    FROM pods p
    WHERE p.scheduled_at IS NOT NULL AND p.scheduled_at > p.first_seen AND p.scheduled_at > @at
      AND p.first_seen <= @at AND p.last_seen >= @at${one ? '' : ` AND ${ofCluster}`}`;
  const pendingPods = db.prepare(pendingPodsSql(true));
  const pendingPodsOfCluster = db.prepare(pendingPodsSql(false));
  const nodePools = db.prepare('SELECT * FROM nodepools WHERE cluster_id = ? ORDER BY name');
  const namespaces = db.prepare('SELECT name, labels_json FROM namespaces WHERE cluster_id = ? ORDER BY name');
  const setting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const regionOfCluster = db.prepare('SELECT region FROM clusters WHERE id = ?').pluck();
  const versions = createObjectVersionReader(db);

  const specJson = db.prepare('SELECT spec_json FROM pod_specs WHERE hash = ?').pluck();

  // Each distinct spec read and parsed once per read (a Deployment's replicas share it; the objects are read-only).
  const specReader = () => {
    const parsed = new Map<string, PodSchedulingSpec | null>();
    return (hash: string | null): PodSchedulingSpec | null => {
      if (hash === null) return null;
      let spec = parsed.get(hash);
      if (spec === undefined) {
        spec = parse<PodSchedulingSpec | null>((specJson.get(hash) as string | undefined) ?? null, null);
        parsed.set(hash, spec);
      }
      return spec;
    };
  };

  const podRow = (r: RawPod, bound: boolean, t: number, specOf: (hash: string | null) => PodSchedulingSpec | null): SnapshotPodRow => ({
    uid: r.uid,
    namespace: r.namespace,
    name: r.name,
    nodeName: bound ? r.node_name : null,
    ownerKind: r.owner_kind,
    ownerName: r.owner_name,
    cpuMillicores: r.req_cpu_m,
    memoryBytes: r.req_memory_b,
    gpu: r.req_gpu,
    doNotDisrupt: r.do_not_disrupt === 1,
    createdAt: r.created_at,
    labels: parse<Record<string, string>>(r.labels_json, {}),
    doNotDisruptValue: r.do_not_disrupt_value,
    deletionCost: r.deletion_cost,
    startedAt: r.started_at,
    volumes: parse<PodVolumeRecord[] | null>(r.volumes_json, null),
    spec: specOf(r.spec_hash),
    // finished by t: its terminal phase as stored (a row finished later was still running or pending then)
    finished: r.finished_at !== null && r.finished_at <= t ? { phase: terminalPhase(r.phase), at: r.finished_at } : null,
  });

  return {
    /**
     * Which snapshot `clusterObjectsAt(at)` would read (its id and time), without reading it: one indexed row, for
     * readers that keep what they made of a snapshot by its id (the engine's prepared worlds).
     */
    snapshotAt(at: number = Number.MAX_SAFE_INTEGER, clusterId: number | null = null): { id: number; takenAt: number } | null {
      const s = snapshotAt.get({ at, clusterId }) as { id: number; taken_at: number } | undefined;
      return s === undefined ? null : { id: s.id, takenAt: s.taken_at };
    },

    /** The cluster at the newest snapshot at or before `at` (default: the newest), or null before any. */
    clusterObjectsAt(at: number = Number.MAX_SAFE_INTEGER, options: ClusterReadOptions = {}): ClusterSnapshot | null {
      const s = snapshotAt.get({ at, clusterId: options.clusterId ?? null }) as
        { id: number; taken_at: number; currency: string; kinds_json: string | null; cluster_id: number } | undefined;
      if (s === undefined) return null;
      const t = s.taken_at;
      const cluster = s.cluster_id;
      const one = (clusterCount.get() as number) <= 1;
      const kinds = parse<SnapshotKinds>(s.kinds_json, null);
      const withLabels = options.nodeLabels !== false;
      const rawNodes = ((withLabels ? nodesOf : nodesLightOf).all({ id: s.id, clusterId: s.cluster_id }) as unknown[][]).map(rawNode);
      const nodes: SnapshotNodeRow[] = rawNodes.map((r) => ({
        name: r.name,
        nodePool: r.nodepool === '' ? null : r.nodepool,
        instanceType: r.instance_type,
        capacityType: r.capacity_type,
        zone: r.zone ?? '',
        instanceId: r.instance_id,
        createdAt: r.created_at ?? 0,
        allocCpuMillicores: r.alloc_cpu_m,
        allocMemoryBytes: r.alloc_memory_b,
        allocPods: r.alloc_pods,
        allocGpu: r.alloc_gpu,
        capacity: parse<Record<string, string> | null>(r.capacity_json, null),
        labels: parse<Record<string, string>>(r.labels_json, {}),
      }));
      const withPods = options.pods !== false;
      const pods: SnapshotPodRow[] = [];
      const seen = new Set<string>();
      const specOf = specReader();
      for (const r of withPods
        ? ((one ? boundPods.all({ id: s.id, at: t }) : boundPodsOfCluster.all({ id: s.id, at: t, cluster })) as RawPod[])
        : []) {
        const bound = r.scheduled_at === null || r.scheduled_at <= t;
        if (!bound) continue; // bound after t: the pending query has it
        seen.add(r.uid);
        pods.push(podRow(r, true, t, specOf));
      }
      for (const r of withPods ? ((one ? pendingPods.all({ at: t }) : pendingPodsOfCluster.all({ at: t, cluster })) as RawPod[]) : []) {
        if (seen.has(r.uid)) continue;
        seen.add(r.uid);
        pods.push(podRow(r, false, t, specOf));
      }
      pods.sort((a, b) =>
        a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1,
      );
      const objectsOf = (kind: string): StoredBody[] => versions.objectsAt(kind, t, cluster);
      const read = (kind: string): boolean => kinds?.[kind]?.state === 'ok';
      const withNodeVersions = options.nodeVersions !== false;
      const otherKinds = options.kinds === undefined ? OTHER_KINDS : OTHER_KINDS.filter((k) => options.kinds?.includes(k));
      const rows = {
        takenAt: t,
        kinds,
        nodes,
        nodeSpecs: new Map(withNodeVersions && read('Node') ? objectsOf('Node').map((o) => [o.name, o.body] as const) : []),
        pods,
        nodePools: read('NodePool') ? objectsOf('NodePool') : null,
        latestNodePools: (nodePools.all(cluster) as RawNodePool[]).map((r): NodePoolRecord => ({
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
        })),
        namespaces: (namespaces.all(cluster) as { name: string; labels_json: string | null }[]).map((r) => ({
          name: r.name,
          labels: parse<Record<string, string>>(r.labels_json, {}),
        })),
        objects: Object.fromEntries(otherKinds.filter(read).map((k) => [k, objectsOf(k)])),
      };
      const { objects, gaps } = clusterObjectsFromRows(rows);
      if (!withPods) gaps.push('Pods: not read (a read without pods)');
      if (!withLabels) gaps.push("Nodes: only their snapshot row's labels (a read without the stored labels)");
      if (!withNodeVersions && read('Node')) gaps.push('Nodes: versions not read (a read without them; NodePool taints stand in)');
      if (options.kinds !== undefined)
        gaps.push(
          `Not read (a read of ${otherKinds.join(', ') || 'no other kind'} only): ${OTHER_KINDS.filter((k) => !otherKinds.includes(k)).join(', ')}`,
        );
      const nodePrices: Record<string, NodePrice> = {};
      for (const r of rawNodes)
        nodePrices[r.name] = {
          instanceType: r.instance_type,
          capacityType: r.capacity_type,
          zone: r.zone ?? '',
          pricePerHour: r.usd_per_hour,
          source: r.price_source,
        };
      return {
        snapshot: { id: s.id, takenAt: t, currency: s.currency },
        objects,
        nodePrices,
        // The snapshot's own cluster's region (two clusters of a ledger may be in two regions); a cluster declared
        // without one (a one-cluster ledger collected by --context) reads the region the prices were collected for.
        region:
          (regionOfCluster.get(cluster) as string | null | undefined) ??
          (setting.get(CLUSTER_REGION_SETTING) as string | undefined) ??
          null,
        karpenterVersion: parse<(KarpenterVersionRecord & { seenAt: number }) | null>(
          (setting.get(karpenterVersionSetting(cluster)) as string | undefined) ?? null,
          null,
        ),
        kinds,
        gaps,
      };
    },
  };
}

export type ClusterSnapshotRepository = ReturnType<typeof createClusterSnapshotRepository>;
