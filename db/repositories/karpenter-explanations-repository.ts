import { CONSOLIDATION_EVENT_REASONS, parseConsolidationEvent, type UnconsolidatableCause } from '../../core/karpenter/events.js';
import type { EventRecord } from '../../core/model.js';
import type { Db } from '../open-db.js';

/**
 * Karpenter's own explanations of consolidation (migration 0019 `karpenter_explanations`): written from the events
 * in the transaction of the snapshot (or events) that brought them, read per node, NodeClaim and time by the
 * Consolidation page and the why-not table.
 */

const REASONS: ReadonlySet<string> = new Set(CONSOLIDATION_EVENT_REASONS);

export function createExplanationWriter(db: Db) {
  // The node, NodeClaim and NodePool from whichever the event names (Karpenter writes one on each of the pair).
  const upsert = db.prepare(`
    INSERT INTO karpenter_explanations (event_uid, at, kind, object_kind, object_name, node_name, nodeclaim, nodepool, decision,
      nodes_in_command, replacements, savings, rejection, score, threshold, k, savings_percent, disruption_percent, cause, message, cluster_id)
    VALUES (@uid, @at, @kind, @objectKind, @objectName,
      CASE @objectKind WHEN 'Node' THEN @objectName WHEN 'NodeClaim' THEN (SELECT node_name FROM nodeclaims WHERE name = @objectName AND cluster_id = @clusterId) END,
      CASE @objectKind WHEN 'NodeClaim' THEN @objectName WHEN 'Node' THEN (SELECT nodeclaim FROM nodes WHERE name = @objectName AND cluster_id = @clusterId) END,
      CASE @objectKind WHEN 'NodePool' THEN @objectName
        WHEN 'Node' THEN (SELECT nodepool FROM nodes WHERE name = @objectName AND cluster_id = @clusterId)
        WHEN 'NodeClaim' THEN (SELECT nodepool FROM nodeclaims WHERE name = @objectName AND cluster_id = @clusterId) END,
      @decision, @nodesInCommand, @replacements, @savings, @rejection, @score, @threshold, @k, @savingsPercent, @disruptionPercent,
      @cause, @message, @clusterId)
    ON CONFLICT(event_uid) DO UPDATE SET at = excluded.at, kind = excluded.kind, decision = excluded.decision,
      nodes_in_command = excluded.nodes_in_command, replacements = excluded.replacements, savings = excluded.savings,
      rejection = excluded.rejection, score = excluded.score, threshold = excluded.threshold, k = excluded.k,
      savings_percent = excluded.savings_percent, disruption_percent = excluded.disruption_percent, cause = excluded.cause,
      message = excluded.message, node_name = COALESCE(excluded.node_name, karpenter_explanations.node_name),
      nodeclaim = COALESCE(excluded.nodeclaim, karpenter_explanations.nodeclaim),
      nodepool = COALESCE(excluded.nodepool, karpenter_explanations.nodepool)`);
  return {
    write(events: readonly EventRecord[], clusterId = 1): void {
      for (const e of events) {
        if (!REASONS.has(e.reason)) continue;
        const x = parseConsolidationEvent(e.reason, e.message);
        if (x === null) continue;
        const command = x.kind === 'candidate' || x.kind === 'rejected' ? x.command : null;
        const score = x.kind === 'approved' ? x : x.kind === 'rejected' ? x.score : null;
        upsert.run({
          uid: e.uid,
          at: e.at,
          kind: x.kind,
          objectKind: e.kind,
          objectName: e.name,
          decision: command?.decision ?? null,
          nodesInCommand: command?.nodesInCommand ?? null,
          replacements: command?.replacements ?? null,
          savings: x.kind === 'candidate' || x.kind === 'rejected' ? x.savings : null,
          rejection: x.kind === 'rejected' ? x.rejection : null,
          score: score?.score ?? null,
          threshold: score?.threshold ?? null,
          k: score?.k ?? null,
          savingsPercent: score?.savingsPercent ?? null,
          disruptionPercent: score?.disruptionPercent ?? null,
          cause: x.kind === 'unconsolidatable' ? x.cause : null,
          message: e.message,
          clusterId,
        });
      }
    },
  };
}

export interface KarpenterExplanation {
  at: number;
  kind: 'candidate' | 'rejected' | 'approved' | 'unconsolidatable';
  /** What the event was written on. */
  objectKind: string;
  objectName: string;
  nodeName: string | null;
  nodeClaim: string | null;
  nodePool: string | null;
  decision: 'delete' | 'replace' | null;
  nodesInCommand: number | null;
  replacements: number | null;
  /** Karpenter's estimate, per hour, as it printed it. */
  savings: number | null;
  rejection: string | null;
  score: number | null;
  threshold: number | null;
  k: number | null;
  savingsPercent: number | null;
  disruptionPercent: number | null;
  cause: UnconsolidatableCause | null;
  message: string;
}

interface Row {
  at: number;
  kind: KarpenterExplanation['kind'];
  object_kind: string;
  object_name: string;
  node_name: string | null;
  nodeclaim: string | null;
  nodepool: string | null;
  decision: KarpenterExplanation['decision'];
  nodes_in_command: number | null;
  replacements: number | null;
  savings: number | null;
  rejection: string | null;
  score: number | null;
  threshold: number | null;
  k: number | null;
  savings_percent: number | null;
  disruption_percent: number | null;
  cause: UnconsolidatableCause | null;
  message: string;
}

export function createKarpenterExplanationsRepository(db: Db) {
  // One row per decision: the pair of events Karpenter writes (on the Node and its NodeClaim) counts once, the
  // NodeClaim's kept (it outlives the node's name in the bill and the disruptions).
  const inRange = db.prepare(`
    SELECT * FROM karpenter_explanations e
    WHERE e.at >= @from AND e.at < @to AND (@name IS NULL OR e.node_name = @name OR e.nodeclaim = @name)
      AND (@clusterId IS NULL OR e.cluster_id = @clusterId)
      AND NOT (e.object_kind = 'Node' AND EXISTS (
        SELECT 1 FROM karpenter_explanations o
        WHERE o.object_kind = 'NodeClaim' AND o.nodeclaim = e.nodeclaim AND o.at = e.at AND o.kind = e.kind AND o.message = e.message
          AND o.cluster_id = e.cluster_id))
    ORDER BY e.at, e.nodepool, e.nodeclaim, e.node_name, e.kind`);
  return {
    /** Karpenter's explanations in [fromMs, toMs), optionally of one node or NodeClaim (by name), oldest first. */
    /** `clusterId`: that cluster's explanations; absent or null: every cluster's (a pair is paired within its cluster). */
    inRange(q: { fromMs: number; toMs: number; name?: string; clusterId?: number | null }): KarpenterExplanation[] {
      return (inRange.all({ from: q.fromMs, to: q.toMs, name: q.name ?? null, clusterId: q.clusterId ?? null }) as Row[]).map((r) => ({
        at: r.at,
        kind: r.kind,
        objectKind: r.object_kind,
        objectName: r.object_name,
        nodeName: r.node_name,
        nodeClaim: r.nodeclaim,
        nodePool: r.nodepool,
        decision: r.decision,
        nodesInCommand: r.nodes_in_command,
        replacements: r.replacements,
        savings: r.savings,
        rejection: r.rejection,
        score: r.score,
        threshold: r.threshold,
        k: r.k,
        savingsPercent: r.savings_percent,
        disruptionPercent: r.disruption_percent,
        cause: r.cause,
        message: r.message,
      }));
    },
  };
}
