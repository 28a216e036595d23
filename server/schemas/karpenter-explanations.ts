import { Type, type Static } from '@sinclair/typebox';
import { NODEPOOL_NAME_PATTERN, Nullable, rangeQueryProperties } from './common.js';

/**
 * GET /api/consolidation/karpenter-explanations: what Karpenter itself said about consolidation (v1.9.0+
 * ConsolidationCandidate / ConsolidationRejected, v1.14.0+ ConsolidationApproved, and Unconsolidatable), as the
 * collector stored them (db/migrations/0019 `karpenter_explanations`), one row per decision (the Node's and the
 * NodeClaim's copy of one event count once).
 */

/** A node name (or NodeClaim name) as Kubernetes allows it. */
const NODE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
export const MAX_EXPLANATIONS = 5000;

export const KarpenterExplanationsQuerySchema = Type.Object(
  {
    ...rangeQueryProperties,
    nodepool: Type.Optional(Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'Only this NodePool.' })),
    node: Type.Optional(Type.String({ pattern: NODE_NAME_PATTERN, maxLength: 253, description: 'Only this node or NodeClaim (by name).' })),
  },
  { additionalProperties: false },
);
export type KarpenterExplanationsQuery = Static<typeof KarpenterExplanationsQuerySchema>;

export const KarpenterExplanationRowSchema = Type.Object({
  /** ISO 8601 UTC. */
  at: Type.String(),
  atMs: Type.Number(),
  /** The event reason Karpenter wrote: ConsolidationCandidate | ConsolidationRejected | ConsolidationApproved | Unconsolidatable. */
  eventReason: Type.String(),
  kind: Type.Union([Type.Literal('candidate'), Type.Literal('rejected'), Type.Literal('approved'), Type.Literal('unconsolidatable')]),
  nodeName: Nullable(Type.String()),
  nodeClaim: Nullable(Type.String()),
  nodePool: Nullable(Type.String()),
  /** The command Karpenter considered: delete | replace. */
  decision: Nullable(Type.String()),
  nodesInCommand: Nullable(Type.Number()),
  /** Karpenter's estimate per hour as it printed it (two decimals). */
  savingsUsdPerHour: Nullable(Type.Number()),
  /** budget | scheduling | churn | unknown | score (ConsolidationRejected only). */
  rejection: Nullable(Type.String()),
  /** Balanced consolidation (v1.14+): the move's score and the threshold 1/k it was held to. */
  score: Nullable(Type.Number()),
  threshold: Nullable(Type.Number()),
  k: Nullable(Type.Number()),
  savingsPercent: Nullable(Type.Number()),
  disruptionPercent: Nullable(Type.Number()),
  /** Unconsolidatable: the ledger's name for Karpenter's sentence. */
  cause: Nullable(Type.String()),
  /** In short: "ConsolidationRejected (budget)", "score 0.31 < threshold 0.5", "Unconsolidatable: …". */
  said: Type.String(),
  message: Type.String(),
});
export type KarpenterExplanationRow = Static<typeof KarpenterExplanationRowSchema>;

export const KarpenterExplanationsResponseSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  /** Oldest first; at most MAX_EXPLANATIONS (the newest kept when there are more). */
  rows: Type.Array(KarpenterExplanationRowSchema),
  /** Rows in the range before the cut. */
  total: Type.Integer(),
});
export type KarpenterExplanationsResponse = Static<typeof KarpenterExplanationsResponseSchema>;
