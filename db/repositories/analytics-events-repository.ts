import { DISRUPTION_EVENT_REASONS, REMOVAL_EVENT_REASONS } from '../../core/karpenter/events.js';
import type { DisruptionEventInput, NodeClaimInput } from '../../core/karpenter/disruptions.js';
import type { Db } from '../open-db.js';
import { lastSeenSql, NEWEST_SNAPSHOTS_SQL } from './node-sightings.js';

/**
 * Read SQL behind the disruptions: Karpenter's disruption events joined with the Node and NodeClaim they name, and
 * the NodeClaims a build needs (replacement candidates, the disrupted ones' conditions, those gone without an event).
 * What the rows mean is core/karpenter/disruptions.ts.
 */

const sqlList = (values: readonly string[]): string => values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');

/** One row of the events query as an array (raw mode: no per-row object from the driver), columns in DisruptionEventInput order. */
type RawEvent = [
  uid: string,
  at: number,
  reason: string,
  message: string,
  kind: string,
  name: string,
  nodeName: string | null,
  nodeClaim: string | null,
  nodePool: string | null,
  instanceType: string | null,
  capacityType: string | null,
  deletedAt: number | null,
];
type RawClaim = [
  name: string,
  nodePool: string | null,
  nodeName: string | null,
  instanceType: string | null,
  capacityType: string | null,
  createdAt: number,
  lastSeen: number,
  deletedAt: number | null,
  disruptionReason: string | null,
  disruptionAt: number | null,
  expireAfter: string | null,
  removalEventStored: number,
];

export function createAnalyticsEventsRepository(db: Db) {
  // Two halves, each joining only what its kind needs: a Node event finds its NodeClaim through nodes.nodeclaim;
  // a NodeClaim event finds its Node through the node that names it (nodeclaims.node_name can be empty before
  // registration). Rows come back as arrays: at a month of a churning 1,000-node cluster (12k events) building
  // one object per row in the driver cost half the query (npm run bench, store).
  // A cluster's events name its own Nodes and NodeClaims (names clash across clusters: every join keeps the cluster).
  const inRange = `e.at >= CAST(@fromMs AS INTEGER) AND e.at < CAST(@toMs AS INTEGER) AND e.reason IN (${sqlList(DISRUPTION_EVENT_REASONS)})
    AND (@clusterId IS NULL OR e.cluster_id = @clusterId)`;
  const events = db
    .prepare(
      `
    SELECT e.uid, e.at, e.reason, e.message, e.kind, e.name, e.name, n.nodeclaim,
           COALESCE(n.nodepool, nc.nodepool), COALESCE(n.instance_type, nc.instance_type),
           COALESCE(n.capacity_type, nc.capacity_type), COALESCE(n.deleted_at, nc.deleted_at)
    FROM events e
    LEFT JOIN nodes n ON n.name = e.name AND n.cluster_id = e.cluster_id
    LEFT JOIN nodeclaims nc ON nc.name = n.nodeclaim AND nc.cluster_id = e.cluster_id
    WHERE ${inRange} AND e.kind = 'Node'
    UNION ALL
    SELECT e.uid, e.at, e.reason, e.message, e.kind, e.name, COALESCE(cn.name, c.node_name), e.name,
           COALESCE(cn.nodepool, c.nodepool), COALESCE(cn.instance_type, c.instance_type),
           COALESCE(cn.capacity_type, c.capacity_type), COALESCE(cn.deleted_at, c.deleted_at)
    FROM events e
    LEFT JOIN nodeclaims c ON c.name = e.name AND c.cluster_id = e.cluster_id
    LEFT JOIN nodes cn ON cn.nodeclaim = e.name AND cn.cluster_id = e.cluster_id
    WHERE ${inRange} AND e.kind IN ('NodeClaim', 'Machine')
    ORDER BY 2, 1`,
    )
    .raw(true);

  // The NodeClaims a build of [fromMs, toMs) needs: created in it (replacement candidates), gone in it, and those its
  // termination events name (their DisruptionReason condition dates the decision). A NodeClaim whose removal event
  // is stored, however far from its deletion (a drain held by a PodDisruptionBudget can take days), is that event's
  // disruption: were it counted as gone without one, a range (or a rebuild) holding the deletion but not the event
  // would count it a second time.
  const claims = db
    .prepare(
      `
    WITH ids(name, cluster_id) AS (
      SELECT name, cluster_id FROM nodeclaims WHERE created_at >= CAST(@fromMs AS INTEGER) AND created_at < CAST(@toMs AS INTEGER)
        AND (@clusterId IS NULL OR cluster_id = @clusterId)
      UNION SELECT name, cluster_id FROM nodeclaims WHERE deleted_at >= CAST(@fromMs AS INTEGER) AND deleted_at < CAST(@toMs AS INTEGER)
        AND (@clusterId IS NULL OR cluster_id = @clusterId)
      UNION SELECT e.name, e.cluster_id FROM events e WHERE ${inRange} AND e.kind IN ('NodeClaim', 'Machine')),
    newest AS (${NEWEST_SNAPSHOTS_SQL})
    SELECT c.name, c.nodepool, COALESCE(c.node_name, n.name), c.instance_type, c.capacity_type, c.created_at,
           ${lastSeenSql('c', 'newest.taken_at')},
           c.deleted_at, c.disruption_reason, c.disruption_at, c.expire_after,
           CASE WHEN c.deleted_at IS NULL THEN 0 ELSE EXISTS (
             SELECT 1 FROM events r
             WHERE r.reason IN (${sqlList(REMOVAL_EVENT_REASONS)})
               AND r.cluster_id = c.cluster_id
               AND ((r.kind IN ('NodeClaim', 'Machine') AND r.name = c.name) OR (r.kind = 'Node' AND r.name IN (c.node_name, n.name)))) END
    FROM ids JOIN nodeclaims c ON c.name = ids.name AND c.cluster_id = ids.cluster_id
    LEFT JOIN nodes n ON n.nodeclaim = c.name AND n.cluster_id = c.cluster_id
    LEFT JOIN newest ON newest.cluster_id = c.cluster_id
    ORDER BY c.created_at, c.name`,
    )
    .raw(true);

  return {
    /** Disruption-related events in [fromMs, toMs) of one cluster (absent: every cluster), each joined with its Node and NodeClaim. */
    disruptionEvents(range: { fromMs: number; toMs: number; clusterId?: number }): DisruptionEventInput[] {
      return (events.all({ fromMs: range.fromMs, toMs: range.toMs, clusterId: range.clusterId ?? null }) as RawEvent[]).map(
        ([uid, atMs, reason, message, kind, name, nodeName, nodeClaim, nodePool, instanceType, capacityType, nodeDeletedAtMs]) => ({
          uid,
          atMs,
          reason,
          message,
          kind,
          name,
          nodeName,
          nodeClaim,
          nodePool,
          instanceType,
          capacityType,
          nodeDeletedAtMs,
        }),
      );
    },

    /** NodeClaims of one cluster (absent: every cluster) created or gone in [fromMs, toMs), or named by its disruption events. */
    nodeClaims(range: { fromMs: number; toMs: number; clusterId?: number }): NodeClaimInput[] {
      return (claims.all({ fromMs: range.fromMs, toMs: range.toMs, clusterId: range.clusterId ?? null }) as RawClaim[]).map(
        ([
          name,
          nodePool,
          nodeName,
          instanceType,
          capacityType,
          createdAtMs,
          lastSeenMs,
          deletedAtMs,
          disruptionReason,
          disruptionAtMs,
          expireAfter,
          stored,
        ]) => ({
          name,
          nodePool,
          nodeName,
          instanceType,
          capacityType,
          createdAtMs,
          lastSeenMs,
          deletedAtMs,
          disruptionReason,
          disruptionAtMs,
          expireAfter,
          removalEventStored: stored === 1,
        }),
      );
    },
  };
}

export type AnalyticsEventsRepository = ReturnType<typeof createAnalyticsEventsRepository>;
