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

// One side of a change: the nodes of snapshot @a (of one NodePool when @nodePool is not null) whose name snapshot @b
// does not hold (all of them when @b is null), materialized once in node_id order (so TOTAL adds the prices in the
// order it always has), then counted, summed and the first @limit listed by name in the same statement.
//  - A row whose node_id @b also holds has a name @b holds: it is dropped on @b's keys alone, reading no node_dims row
//    (snapshot_node_rows is clustered by snapshot, so @b's keys are a few contiguous pages).
//  - Only the rest (the nodes that came or went, or changed what they are) is looked up by name, through node_dims_name
//    into @b's keys (a node_name never NULL: NOT EXISTS is NOT IN over @b's names).
// The NOT IN over @b's names it replaces read the node_dims row of every node of both snapshots, and did so in each of
// its two statements (totals, list): at 5,000 nodes with 13 months of node_dims (400,000 rows, one snapshot's spread
// over as many pages), 20,000 page reads a side through the 2 MB page cache (npm run bench, store-year:
// `GET /api/nodes/changes` p50 366 ms at every range; docs/benchmarks.md).
const MISSING = `
  WITH m AS MATERIALIZED (
    SELECT d.node_name, d.nodepool, d.instance_type, d.capacity_type, r.usd_per_hour
    FROM snapshot_node_rows r JOIN node_dims d ON d.id = r.node_id
    WHERE r.snapshot_id = @a
      AND r.node_id NOT IN (SELECT x.node_id FROM snapshot_node_rows x WHERE x.snapshot_id = @b)
      AND (@nodePool IS NULL OR COALESCE(d.nodepool, '') = @nodePool)
      AND NOT EXISTS (
        SELECT 1 FROM node_dims o CROSS JOIN snapshot_node_rows y ON y.snapshot_id = @b AND y.node_id = o.id WHERE o.node_name = d.node_name)
  )`;

/** A row of the side statement, raw: the totals, then the listed node's columns (NULL when none is listed). */
type SideRow = [
  count: number,
  usdPerHour: number,
  name: string | null,
  nodeClaim: string | null,
  nodePool: string | null,
  instanceType: string | null,
  capacityType: string | null,
  nodeUsdPerHour: number | null,
];

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
  // One row per listed node (at least one: the totals with a NULL name when none is listed), each carrying the totals.
  const side = db
    .prepare(
      `${MISSING},
    t AS (SELECT COUNT(*) AS count, TOTAL(usd_per_hour) AS usdPerHour FROM m)
    SELECT t.count, t.usdPerHour, l.* FROM t LEFT JOIN (
      SELECT a.node_name AS name, n.nodeclaim AS nodeClaim, COALESCE(a.nodepool, '') AS nodePool, a.instance_type AS instanceType,
             a.capacity_type AS capacityType, a.usd_per_hour AS usdPerHour
      FROM (SELECT * FROM m ORDER BY node_name LIMIT @limit) a
      LEFT JOIN nodes n ON n.name = a.node_name AND n.cluster_id = (SELECT cluster_id FROM snapshots WHERE id = @a)
    ) l
    ORDER BY l.name`,
    )
    .raw(true);

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
      const rows = side.all({ a, b, nodePool: nodePool ?? null, limit }) as SideRow[];
      const [count, usdPerHour] = rows[0];
      const nodes = rows
        .filter((r) => r[2] !== null)
        .map(([, , name, nodeClaim, nodePool, instanceType, capacityType, usd]) => ({
          name: name as string,
          nodeClaim,
          nodePool: nodePool as string,
          instanceType: instanceType as string,
          capacityType: capacityType as string,
          usdPerHour: usd,
        }));
      return { count, usdPerHour, nodes };
    },
  };
}

export type NodeAggregatesRepository = ReturnType<typeof createNodeAggregatesRepository>;
