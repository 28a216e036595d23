import type { Db } from '../open-db';

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

interface RawEvent {
  uid: string; at: number; reason: string; message: string; kind: string; name: string; node_name: string | null; nodeclaim: string | null;
  nodepool: string | null; instance_type: string | null; capacity_type: string | null; deleted_at: number | null;
}
interface RawGone {
  nodeclaim: string; node_name: string | null; nodepool: string | null; instance_type: string | null; capacity_type: string | null;
  deleted_at: number; disruption_reason: string;
}

export function createAnalyticsEventsRepository(db: Db) {
  // A Node event finds its NodeClaim through nodes.nodeclaim; a NodeClaim event finds its Node through the
  // node that names it (nodeclaims.node_name can be empty before registration).
  const events = db.prepare(`
    SELECT e.uid, e.at, e.reason, e.message, e.kind, e.name,
           CASE WHEN e.kind = 'Node' THEN e.name ELSE COALESCE(cn.name, c.node_name) END AS node_name,
           CASE WHEN e.kind = 'NodeClaim' THEN e.name ELSE n.nodeclaim END AS nodeclaim,
           COALESCE(n.nodepool, cn.nodepool, c.nodepool, nc.nodepool) AS nodepool,
           COALESCE(n.instance_type, cn.instance_type, c.instance_type, nc.instance_type) AS instance_type,
           COALESCE(n.capacity_type, cn.capacity_type, c.capacity_type, nc.capacity_type) AS capacity_type,
           COALESCE(n.deleted_at, cn.deleted_at, c.deleted_at, nc.deleted_at) AS deleted_at
    FROM events e
    LEFT JOIN nodes n ON e.kind = 'Node' AND n.name = e.name
    LEFT JOIN nodeclaims nc ON e.kind = 'Node' AND nc.name = n.nodeclaim
    LEFT JOIN nodeclaims c ON e.kind = 'NodeClaim' AND c.name = e.name
    LEFT JOIN nodes cn ON e.kind = 'NodeClaim' AND cn.nodeclaim = e.name
    WHERE e.at >= CAST(@fromMs AS INTEGER) AND e.at < CAST(@toMs AS INTEGER)
      AND e.reason IN (${DISRUPTION_EVENT_REASONS.map((r) => `'${r}'`).join(', ')})
      AND e.kind IN ('Node', 'NodeClaim')
    ORDER BY e.at, e.uid`);

  const gone = db.prepare(`
    SELECT c.name AS nodeclaim, COALESCE(c.node_name, n.name) AS node_name, c.nodepool, c.instance_type, c.capacity_type,
           c.deleted_at, c.disruption_reason
    FROM nodeclaims c LEFT JOIN nodes n ON n.nodeclaim = c.name
    WHERE c.deleted_at >= CAST(@fromMs AS INTEGER) AND c.deleted_at < CAST(@toMs AS INTEGER) AND c.disruption_reason IS NOT NULL
    ORDER BY c.deleted_at, c.name`);

  return {
    /** Disruption-related events in [fromMs, toMs), each joined with its Node and NodeClaim. */
    disruptionEvents(range: { fromMs: number; toMs: number }): EventJoinRow[] {
      return (events.all(range) as RawEvent[]).map((r) => ({
        uid: r.uid, atMs: r.at, reason: r.reason, message: r.message, kind: r.kind, name: r.name, nodeName: r.node_name,
        nodeClaim: r.nodeclaim, nodePool: r.nodepool, instanceType: r.instance_type, capacityType: r.capacity_type, nodeDeletedAtMs: r.deleted_at,
      }));
    },

    /** NodeClaims first missing in [fromMs, toMs) that carried a disruption reason. */
    goneNodeClaims(range: { fromMs: number; toMs: number }): GoneNodeClaimJoinRow[] {
      return (gone.all(range) as RawGone[]).map((r) => ({
        nodeClaim: r.nodeclaim, nodeName: r.node_name, nodePool: r.nodepool, instanceType: r.instance_type, capacityType: r.capacity_type,
        deletedAtMs: r.deleted_at, disruptionReason: r.disruption_reason,
      }));
    },
  };
}

export type AnalyticsEventsRepository = ReturnType<typeof createAnalyticsEventsRepository>;
