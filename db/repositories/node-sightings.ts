import type { Db } from '../open-db.js';
import type { NodeClaimRecord, NodeRecord } from '../../core/model.js';
import { OPEN_LAST_SEEN } from './pod-rows.js';

/*
 * Nodes' and NodeClaims' last sighting left open, as pods' is (pod-rows.ts, OPEN_LAST_SEEN): while its cluster's
 * newest snapshot lists a node, nodes.last_seen holds OPEN_LAST_SEEN, and a node listed again as it was is not written
 * at all (issue 24: every snapshot rewrote every node's and NodeClaim's row, and the NodeClaims' instance-id and
 * deleted_at index entries, ~300 of the 391 pages a 1,000-node snapshot wrote). The first snapshot that no longer
 * lists it closes it at the cluster's snapshot before (the last that did). A node gone and back is opened again; its
 * first_seen stays its first sighting ever, as before.
 *
 * Readers that show the value read it through lastSeenSql (the cluster's newest snapshot for an open row: what the
 * row held before). Readers that compare it (`last_seen < @at` in the gone marks, `last_seen < @cut` in retention) or
 * order by it within a cluster answer as before without it, for any @at up to the cluster's newest snapshot.
 */

/**
 * SQL for `alias`.last_seen as it reads: an open row's is its cluster's newest snapshot. `newestSql` is that instant,
 * e.g. a scalar subquery over the snapshots of a bound cluster, or a column of a per-cluster CTE (newestSnapshotsCte).
 */
export const lastSeenSql = (alias: string, newestSql: string): string =>
  `CASE ${alias}.last_seen WHEN ${OPEN_LAST_SEEN} THEN ${newestSql} ELSE ${alias}.last_seen END`;

/** A CTE body: per cluster, its newest snapshot's instant (`cluster_id`, `taken_at`). */
export const NEWEST_SNAPSHOTS_SQL = 'SELECT cluster_id, MAX(taken_at) AS taken_at FROM snapshots GROUP BY cluster_id';

interface StoredNode {
  nodeclaim: string | null;
  capacity_json: string | null;
  deleted_at: number | null;
  last_seen: number;
}

interface StoredClaim {
  node_name: string | null;
  instance_id: string | null;
  disruption_reason: string | null;
  disruption_at: number | null;
  expire_after: string | null;
  conditions_json: string;
  deleted_at: number | null;
  last_seen: number;
}

export interface NodeSightingWriter {
  /** A node listed by the snapshot at `at`: written only when new, reopened or changed. */
  node(n: NodeRecord, at: number, clusterId: number): void;
  /** A NodeClaim listed by the snapshot at `at`: written only when new, reopened or changed. */
  claim(c: NodeClaimRecord, at: number, clusterId: number): void;
  /**
   * After a snapshot's nodes and NodeClaims: the cluster's open ones it did not list are closed at the cluster's
   * snapshot before `at` (the last that listed them); the gone marks then see them as before. Returns how many of
   * each were closed.
   */
  closeGone(clusterId: number, at: number): { nodes: number; nodeClaims: number };
  /** Forgets the sightings since the last closeGone (a snapshot whose transaction failed). */
  forget(): void;
}

export function createNodeSightingWriter(db: Db): NodeSightingWriter {
  const storedNode = db.prepare('SELECT nodeclaim, capacity_json, deleted_at, last_seen FROM nodes WHERE name = ? AND cluster_id = ?');
  const upsertNode = db.prepare(`
    INSERT INTO nodes (name, nodeclaim, nodepool, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen,
      alloc_cpu_m, alloc_memory_b, alloc_pods, alloc_gpu, labels_json, capacity_json, cluster_id)
    VALUES (@name, @nodeClaim, @nodePool, @instanceType, @capacityType, @zone, @instanceId, @createdAt, @at, ${OPEN_LAST_SEEN},
      @cpu, @mem, @pods, @gpu, @labels, @capacity, @clusterId)
    ON CONFLICT(name, cluster_id) DO UPDATE SET last_seen=excluded.last_seen, nodeclaim=excluded.nodeclaim, deleted_at=NULL,
      capacity_json=COALESCE(excluded.capacity_json, nodes.capacity_json)`);
  const storedClaim = db.prepare(`
    SELECT node_name, instance_id, disruption_reason, disruption_at, expire_after, conditions_json, deleted_at, last_seen
    FROM nodeclaims WHERE name = ? AND cluster_id = ?`);
  // The disruption condition as last seen, not as once seen: Karpenter clears DisruptionReason from candidates whose
  // command failed or went stale (disruption/controller.go ClearNodeClaimsCondition), and such a NodeClaim was not disrupted.
  const upsertClaim = db.prepare(`
    INSERT INTO nodeclaims (name, nodepool, node_name, instance_type, capacity_type, zone, instance_id, created_at, first_seen, last_seen,
      disruption_reason, disruption_at, expire_after, conditions_json, cluster_id)
    VALUES (@name, @nodePool, @nodeName, @instanceType, @capacityType, @zone, @instanceId, @createdAt, @at, ${OPEN_LAST_SEEN},
      @disruptionReason, @disruptionAt, @expireAfter, @conditions, @clusterId)
    ON CONFLICT(name, cluster_id) DO UPDATE SET last_seen=excluded.last_seen, node_name=excluded.node_name, instance_id=excluded.instance_id,
      disruption_reason=excluded.disruption_reason, disruption_at=excluded.disruption_at,
      expire_after=COALESCE(excluded.expire_after, nodeclaims.expire_after), conditions_json=excluded.conditions_json, deleted_at=NULL`);
  const openNodes = db.prepare('SELECT name, first_seen FROM nodes WHERE cluster_id = ? AND last_seen = ?').raw();
  const openClaims = db.prepare('SELECT name, first_seen FROM nodeclaims WHERE cluster_id = ? AND last_seen = ?').raw();
  const closeNode = db.prepare('UPDATE nodes SET last_seen = ? WHERE name = ? AND cluster_id = ?');
  const closeClaim = db.prepare('UPDATE nodeclaims SET last_seen = ? WHERE name = ? AND cluster_id = ?');
  const previousSnapshot = db.prepare('SELECT MAX(taken_at) FROM snapshots WHERE cluster_id = ? AND taken_at < ?').pluck();
  /** Names listed since the last closeGone, per cluster. */
  const seenNodes = new Map<number, Set<string>>();
  const seenClaims = new Map<number, Set<string>>();
  const see = (m: Map<number, Set<string>>, clusterId: number, name: string): void => {
    const s = m.get(clusterId) ?? new Set<string>();
    s.add(name);
    m.set(clusterId, s);
  };
  const json = (v: unknown): string => JSON.stringify(v);

  const node = (n: NodeRecord, at: number, clusterId: number): void => {
    see(seenNodes, clusterId, n.name);
    const capacity = n.capacity === undefined ? null : json(n.capacity);
    const old = storedNode.get(n.name, clusterId) as StoredNode | undefined;
    if (
      old !== undefined &&
      old.last_seen === OPEN_LAST_SEEN &&
      old.deleted_at === null &&
      old.nodeclaim === n.nodeClaim &&
      (capacity === null || capacity === old.capacity_json)
    )
      return;
    upsertNode.run({
      name: n.name,
      nodeClaim: n.nodeClaim,
      nodePool: n.nodePool,
      instanceType: n.instanceType,
      capacityType: n.capacityType,
      zone: n.zone,
      instanceId: n.instanceId,
      createdAt: n.createdAt,
      at,
      cpu: n.allocatable.cpuMillicores,
      mem: n.allocatable.memoryBytes,
      pods: n.allocatable.pods,
      gpu: n.allocatable.gpu,
      labels: json(n.labels),
      capacity,
      clusterId,
    });
  };

  const claim = (c: NodeClaimRecord, at: number, clusterId: number): void => {
    see(seenClaims, clusterId, c.name);
    const conditions = json(c.conditions);
    const disruptionAt = c.disruptionAt ?? null;
    const expireAfter = c.expireAfter ?? null;
    const old = storedClaim.get(c.name, clusterId) as StoredClaim | undefined;
    if (
      old !== undefined &&
      old.last_seen === OPEN_LAST_SEEN &&
      old.deleted_at === null &&
      old.node_name === c.nodeName &&
      old.instance_id === c.instanceId &&
      old.disruption_reason === c.disruptionReason &&
      old.disruption_at === disruptionAt &&
      (expireAfter ?? old.expire_after) === old.expire_after &&
      old.conditions_json === conditions
    )
      return;
    upsertClaim.run({
      name: c.name,
      nodePool: c.nodePool,
      nodeName: c.nodeName,
      instanceType: c.instanceType,
      capacityType: c.capacityType,
      zone: c.zone,
      instanceId: c.instanceId,
      createdAt: c.createdAt,
      at,
      disruptionReason: c.disruptionReason,
      disruptionAt,
      expireAfter,
      conditions,
      clusterId,
    });
  };

  const close = (
    open: typeof openNodes,
    update: typeof closeNode,
    seen: Map<number, Set<string>>,
    clusterId: number,
    prev: number | null,
  ): number => {
    const listed = seen.get(clusterId);
    let closed = 0;
    for (const [name, firstSeen] of open.all(clusterId, OPEN_LAST_SEEN) as [string, number][]) {
      if (listed?.has(name) === true) continue;
      // Opened by a write no snapshot followed (none lists it after its first sighting): closed where first seen.
      update.run(Math.max(prev ?? firstSeen, firstSeen), name, clusterId);
      closed += 1;
    }
    return closed;
  };

  return {
    node,
    claim,
    closeGone(clusterId, at) {
      const prev = previousSnapshot.get(clusterId, at) as number | null;
      const closed = {
        nodes: close(openNodes, closeNode, seenNodes, clusterId, prev),
        nodeClaims: close(openClaims, closeClaim, seenClaims, clusterId, prev),
      };
      seenNodes.delete(clusterId);
      seenClaims.delete(clusterId);
      return closed;
    },
    forget() {
      seenNodes.clear();
      seenClaims.clear();
    },
  };
}
