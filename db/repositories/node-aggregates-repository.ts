import type { Db } from '../open-db.js';

/**
 * Read SQL behind the node aggregates (server/services/node-aggregates-service.ts): counts and lists over one or two
 * snapshots' nodes by the (snapshot, node) key, so an answer costs its own rows, not the cluster's (the instance mix of
 * 5,000 nodes is a few dozen rows; the nodes that went between two snapshots usually a handful).
 * Times are epoch ms UTC; prices per hour in the data's currency.
 */

export interface NodeMixCount {
  /** '' = not launched by Karpenter. */
  nodePool: string;
  instanceType: string;
  nodes: number;
  spotNodes: number;
}

export interface ChangedNodeRow {
  name: string;
  nodeClaim: string | null;
  nodePool: string;
  instanceType: string;
  capacityType: string;
  usdPerHour: number | null;
}

/** A snapshot by its id and time. */
export interface SnapshotRef {
  id: number;
  takenAtMs: number;
}

// One side of a change: nodes of snapshot @a (of one NodePool when @nodePool is not null) not in snapshot @b (none when
// @b is null). @b's names are read once into a list SQLite indexes for the query (NOT IN over an uncorrelated
// subquery): the correlated NOT EXISTS it replaces went through snapshot_nodes' join (migration 0026) once per node of
// @a, 2.8 s for two 1,000-node snapshots a day apart against 2.4 ms now, the same counts and sums (npm run bench,
// store: `GET /api/nodes/changes` 1 d p50 850 ms). node_name is never NULL, so NOT IN has no NULL to trip on.
const ONE_SIDE = `
  FROM snapshot_nodes a
  WHERE a.snapshot_id = @a AND (@nodePool IS NULL OR COALESCE(a.nodepool, '') = @nodePool)
    AND a.node_name NOT IN (SELECT b.node_name FROM snapshot_nodes b WHERE b.snapshot_id = @b)`;

export function createNodeAggregatesRepository(db: Db) {
  const atOrBefore = db.prepare(
    `SELECT id, taken_at AS takenAtMs FROM snapshots WHERE taken_at <= CAST(@atMs AS INTEGER) AND (@clusterId IS NULL OR cluster_id = @clusterId)
     ORDER BY taken_at DESC LIMIT 1`,
  );
  const clusters = db.prepare('SELECT id, name FROM clusters ORDER BY id');
  const mix = db.prepare(`
    SELECT COALESCE(nodepool, '') AS nodePool, instance_type AS instanceType, COUNT(*) AS nodes,
           SUM(capacity_type = 'spot') AS spotNodes
    FROM snapshot_nodes
    WHERE snapshot_id = @id AND (@nodePool IS NULL OR COALESCE(nodepool, '') = @nodePool)
    GROUP BY 1, 2
    ORDER BY 1, 3 DESC, 2`);
  const sideTotals = db.prepare(`SELECT COUNT(*) AS count, TOTAL(a.usd_per_hour) AS usdPerHour ${ONE_SIDE}`);
  const sideList = db.prepare(`
    SELECT a.node_name AS name, n.nodeclaim AS nodeClaim, COALESCE(a.nodepool, '') AS nodePool, a.instance_type AS instanceType,
           a.capacity_type AS capacityType, a.usd_per_hour AS usdPerHour
    FROM (SELECT a.* ${ONE_SIDE} ORDER BY a.node_name LIMIT @limit) a
    LEFT JOIN nodes n ON n.name = a.node_name AND n.cluster_id = (SELECT cluster_id FROM snapshots WHERE id = @a)
    ORDER BY a.node_name`);

  return {
    /** The snapshot taken at or before `atMs` (default: the newest), or null. */
    snapshotAtOrBefore(atMs: number = Number.MAX_SAFE_INTEGER, clusterId: number | null = null): SnapshotRef | null {
      return (atOrBefore.get({ atMs, clusterId }) as SnapshotRef | undefined) ?? null;
    },
    /** Each cluster of the ledger, by id. */
    clusters: (): { id: number; name: string }[] => clusters.all() as { id: number; name: string }[],

    /** Nodes per NodePool and instance type in the snapshot: by NodePool, most nodes first, ties by type. */
    mix(snapshotId: number, nodePool: string | undefined): NodeMixCount[] {
      return mix.all({ id: snapshotId, nodePool: nodePool ?? null }) as NodeMixCount[];
    },

    /**
     * The nodes of snapshot `a` that snapshot `b` does not hold (all of them when `b` is null), of one NodePool when
     * given: how many, Σ their prices per hour (unknown counts 0), and the first `limit` by name.
     */
    missingFrom(
      a: number,
      b: number | null,
      nodePool: string | undefined,
      limit: number,
    ): { count: number; usdPerHour: number; nodes: ChangedNodeRow[] } {
      const params = { a, b, nodePool: nodePool ?? null };
      const totals = sideTotals.get(params) as { count: number; usdPerHour: number };
      const nodes = limit === 0 || totals.count === 0 ? [] : (sideList.all({ ...params, limit }) as ChangedNodeRow[]);
      return { count: totals.count, usdPerHour: totals.usdPerHour, nodes };
    },
  };
}

export type NodeAggregatesRepository = ReturnType<typeof createNodeAggregatesRepository>;
