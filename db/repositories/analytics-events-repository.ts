import type { Db } from '../open-db.js';

/**
 * Read SQL behind consolidation events: Karpenter's disruption events joined with the Node and NodeClaim
 * they name, and NodeClaims gone with a disruption reason (for disruptions whose events expired).
 */

export const DISRUPTION_EVENT_REASONS = ['DisruptionTerminating', 'DisruptionLaunching', 'SpotInterrupted', 'DisruptionBlocked'] as const;

/** An event row joined with the Node / NodeClaim it names. */
export interface EventJoinRow {
  uid: string;
  atMs: number;
  /** Kubernetes event reason: one of DISRUPTION_EVENT_REASONS. */
  reason: string;
  message: string;
  /** Kind of the involved object: Node | NodeClaim. */
  kind: string;
  name: string;
  nodeName: string | null;
  nodeClaim: string | null;
  nodePool: string | null;
  instanceType: string | null;
  capacityType: string | null;
  nodeDeletedAtMs: number | null;
}

/** A NodeClaim gone with a disruption reason (conditions), for disruptions whose events expired. */
export interface GoneNodeClaimJoinRow {
  nodeClaim: string;
  nodeName: string | null;
  nodePool: string | null;
  instanceType: string | null;
  capacityType: string | null;
  deletedAtMs: number;
  disruptionReason: string;
}

/** One row of the events query as an array (raw mode: no per-row object from the driver), columns in EventJoinRow order. */
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
interface RawGone {
  nodeclaim: string;
  node_name: string | null;
  nodepool: string | null;
  instance_type: string | null;
  capacity_type: string | null;
  deleted_at: number;
  disruption_reason: string;
}

export function createAnalyticsEventsRepository(db: Db) {
  // Two halves, each joining only what its kind needs: a Node event finds its NodeClaim through nodes.nodeclaim;
  // a NodeClaim event finds its Node through the node that names it (nodeclaims.node_name can be empty before
  // registration). Rows come back as arrays: at a month of a churning 1,000-node cluster (12k events) building
  // one object per row in the driver cost half the query (npm run bench, store).
  const inRange = `e.at >= CAST(@fromMs AS INTEGER) AND e.at < CAST(@toMs AS INTEGER)
      AND e.reason IN (${DISRUPTION_EVENT_REASONS.map((r) => `'${r}'`).join(', ')})`;
  const events = db
    .prepare(
      `
    SELECT e.uid, e.at, e.reason, e.message, e.kind, e.name, e.name, n.nodeclaim,
           COALESCE(n.nodepool, nc.nodepool), COALESCE(n.instance_type, nc.instance_type),
           COALESCE(n.capacity_type, nc.capacity_type), COALESCE(n.deleted_at, nc.deleted_at)
    FROM events e
    LEFT JOIN nodes n ON n.name = e.name
    LEFT JOIN nodeclaims nc ON nc.name = n.nodeclaim
    WHERE ${inRange} AND e.kind = 'Node'
    UNION ALL
    SELECT e.uid, e.at, e.reason, e.message, e.kind, e.name, COALESCE(cn.name, c.node_name), e.name,
           COALESCE(cn.nodepool, c.nodepool), COALESCE(cn.instance_type, c.instance_type),
           COALESCE(cn.capacity_type, c.capacity_type), COALESCE(cn.deleted_at, c.deleted_at)
    FROM events e
    LEFT JOIN nodeclaims c ON c.name = e.name
    LEFT JOIN nodes cn ON cn.nodeclaim = e.name
    WHERE ${inRange} AND e.kind = 'NodeClaim'
    ORDER BY 2, 1`,
    )
    .raw(true);

  // A NodeClaim whose removal event is stored, however far from its deletion (a drain held by a PodDisruptionBudget
  // can take days), is that event's disruption: were it read here, a range (or a rebuild) holding the deletion but
  // not the event would count it a second time.
  const gone = db.prepare(`
    SELECT c.name AS nodeclaim, COALESCE(c.node_name, n.name) AS node_name, c.nodepool, c.instance_type, c.capacity_type,
           c.deleted_at, c.disruption_reason
    FROM nodeclaims c LEFT JOIN nodes n ON n.nodeclaim = c.name
    WHERE c.deleted_at >= CAST(@fromMs AS INTEGER) AND c.deleted_at < CAST(@toMs AS INTEGER) AND c.disruption_reason IS NOT NULL
      AND NOT EXISTS (
        SELECT 1 FROM events e
        WHERE e.reason IN ('DisruptionTerminating', 'SpotInterrupted')
          AND ((e.kind = 'NodeClaim' AND e.name = c.name) OR (e.kind = 'Node' AND e.name IN (c.node_name, n.name))))
    ORDER BY c.deleted_at, c.name`);

  return {
    /** Disruption-related events in [fromMs, toMs), each joined with its Node and NodeClaim. */
    disruptionEvents(range: { fromMs: number; toMs: number }): EventJoinRow[] {
      return (events.all(range) as RawEvent[]).map(
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

    /** NodeClaims first missing in [fromMs, toMs) that carried a disruption reason, and whose removal event is not stored. */
    goneNodeClaims(range: { fromMs: number; toMs: number }): GoneNodeClaimJoinRow[] {
      return (gone.all(range) as RawGone[]).map((r) => ({
        nodeClaim: r.nodeclaim,
        nodeName: r.node_name,
        nodePool: r.nodepool,
        instanceType: r.instance_type,
        capacityType: r.capacity_type,
        deletedAtMs: r.deleted_at,
        disruptionReason: r.disruption_reason,
      }));
    },
  };
}

export type AnalyticsEventsRepository = ReturnType<typeof createAnalyticsEventsRepository>;
