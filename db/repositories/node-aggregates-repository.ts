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

// The nodes that went and came between snapshots @a and @b (either may be NULL: no snapshot, no nodes), both sides in
// one statement:
//  - ra / rb: the rows of one snapshot whose node_id the other does not hold, key and price only, materialized in
//    node_id order (so TOTAL adds the prices in the order it always has). A shared node_id is a node unchanged in name
//    and what it is: dropped on the other snapshot's keys alone (snapshot_node_rows is clustered by snapshot, so they
//    are a few contiguous pages).
//  - A row of ra whose name rb holds is a node whose dimensions changed (its nodepool label, say), not one that went.
//    Within a snapshot names are unique, so a name of ra can be held by @b only through rb, under another node_dims row
//    of the same name: both rows are then in node_dims_shared_names (migration 0034). So only the rows listed there
//    have their names read and matched (sa / sb: a handful); every other row of ra went, on its key alone.
//  - The NodePool filter applies to the side's own row after the match: a node whose label changed is in neither side.
//  - The counts and sums read no node_dims row (unless a NodePool is asked); the list reads the name of each changed
//    node to take the first @limit by name.
// Before (render34), every changed node's node_dims row was read and its name matched against the other side's: at
// 5,000 nodes every node changed between snapshots 30 or 90 days apart, 11,000 names read, indexed and probed a request
// against 2,000 at 1 day (npm run bench, store-year: `GET /api/nodes/changes` 90 d p50 34.0 ms to 1 d's 14.6 ms).
const CHANGES = `
  WITH ra AS MATERIALIZED (
    SELECT r.node_id, r.usd_per_hour FROM snapshot_node_rows r
    WHERE r.snapshot_id = @a AND r.node_id NOT IN (SELECT x.node_id FROM snapshot_node_rows x WHERE x.snapshot_id = @b)
  ),
  rb AS MATERIALIZED (
    SELECT r.node_id, r.usd_per_hour FROM snapshot_node_rows r
    WHERE r.snapshot_id = @b AND r.node_id NOT IN (SELECT x.node_id FROM snapshot_node_rows x WHERE x.snapshot_id = @a)
  ),
  sa AS MATERIALIZED (
    SELECT d.node_name FROM ra CROSS JOIN node_dims_shared_names s ON s.node_id = ra.node_id CROSS JOIN node_dims d ON d.id = ra.node_id
  ),
  sb AS MATERIALIZED (
    SELECT d.node_name FROM rb CROSS JOIN node_dims_shared_names s ON s.node_id = rb.node_id CROSS JOIN node_dims d ON d.id = rb.node_id
  ),
  ${[
    ['removed', 'ra', 'sb'],
    ['added', 'rb', 'sa'],
  ]
    .map(
      ([side, own, other]) => `${side} AS MATERIALIZED (
    SELECT o.node_id, o.usd_per_hour FROM ${own} o
    WHERE (o.node_id NOT IN (SELECT node_id FROM node_dims_shared_names)
           OR (SELECT d.node_name FROM node_dims d WHERE d.id = o.node_id) NOT IN (SELECT node_name FROM ${other}))
      AND (@nodePool IS NULL OR (SELECT COALESCE(d.nodepool, '') FROM node_dims d WHERE d.id = o.node_id) = @nodePool)
  )`,
    )
    .join(',\n  ')}
  ${['removed', 'added']
    .map(
      (side, i) => `
  SELECT ${i} AS side, t.count, t.usdPerHour, l.* FROM (SELECT COUNT(*) AS count, TOTAL(usd_per_hour) AS usdPerHour FROM ${side}) t
  LEFT JOIN (
    SELECT x.node_name AS name, n.nodeclaim AS nodeClaim, COALESCE(x.nodepool, '') AS nodePool, x.instance_type AS instanceType,
           x.capacity_type AS capacityType, x.usd_per_hour AS usdPerHour
    FROM (
      SELECT d.node_name, d.nodepool, d.instance_type, d.capacity_type, c.usd_per_hour
      FROM ${side} c CROSS JOIN node_dims d ON d.id = c.node_id ORDER BY d.node_name LIMIT @limit
    ) x
    LEFT JOIN nodes n ON n.name = x.node_name AND n.cluster_id = (SELECT cluster_id FROM snapshots WHERE id = ${i === 0 ? '@a' : '@b'})
  ) l`,
    )
    .join('\n  UNION ALL')}
  ORDER BY 1, 4`;

/**
 * A row of the changes statement, raw: the side (0 removed, 1 added), its totals, then the listed node's columns (NULL
 * when none is listed).
 */
type SideRow = [
  side: 0 | 1,
  count: number,
  usdPerHour: number,
  name: string | null,
  nodeClaim: string | null,
  nodePool: string | null,
  instanceType: string | null,
  capacityType: string | null,
  nodeUsdPerHour: number | null,
];

/** One side of a change: how many nodes, Σ their prices per hour (unknown counts 0), and the first few by name. */
export interface ChangedNodes {
  count: number;
  usdPerHour: number;
  nodes: ChangedNodeRow[];
}

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
  // Per side, one row per listed node (at least one: the totals with a NULL name when none is listed), each carrying the totals.
  const changes = db.prepare(CHANGES).raw(true);

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
     * The nodes of snapshot `a` that snapshot `b` does not hold by name (removed) and those of `b` that `a` does not
     * (added); a null snapshot holds no nodes. Of one NodePool when given; each side's first `limit` by name.
     */
    changes(
      a: number | null,
      b: number | null,
      nodePool: string | undefined,
      limit: number,
    ): { removed: ChangedNodes; added: ChangedNodes } {
      const rows = changes.all({ a, b, nodePool: nodePool ?? null, limit }) as SideRow[];
      const side = (which: 0 | 1): ChangedNodes => {
        const own = rows.filter((r) => r[0] === which);
        return {
          count: own[0][1],
          usdPerHour: own[0][2],
          nodes: own
            .filter((r) => r[3] !== null)
            .map(([, , , name, nodeClaim, nodePool, instanceType, capacityType, usd]) => ({
              name: name as string,
              nodeClaim,
              nodePool: nodePool as string,
              instanceType: instanceType as string,
              capacityType: capacityType as string,
              usdPerHour: usd,
            })),
        };
      };
      return { removed: side(0), added: side(1) };
    },
  };
}

export type NodeAggregatesRepository = ReturnType<typeof createNodeAggregatesRepository>;
