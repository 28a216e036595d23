import { Type, type Static } from '@sinclair/typebox';
import { FormatSchema, IsoInstantQuery, NODEPOOL_NAME_PATTERN, Nullable, rangeQueryProperties } from './common.js';

/**
 * What the dashboard used to compute from every node (a 5,000-row /api/nodes answer, 3.8 MB at the envelope),
 * answered by the server as aggregates instead:
 * GET /api/nodes/mix (instance types per NodePool at a snapshot, for the NodePool cards) and
 * GET /api/nodes/changes (the nodes that went and came across a range, for the consolidation comparison).
 */

export const NodeMixQuerySchema = Type.Object(
  {
    at: Type.Optional(IsoInstantQuery('The snapshot at or before this instant. Default: the newest snapshot.')),
    nodepool: Type.Optional(Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'Only this NodePool.' })),
    format: Type.Optional(FormatSchema),
  },
  { additionalProperties: false },
);
export type NodeMixQuery = Static<typeof NodeMixQuerySchema>;

export const NodeMixRowSchema = Type.Object({
  /** '' = nodes not launched by Karpenter. */
  nodePool: Type.String(),
  instanceType: Type.String(),
  /** Nodes of this NodePool and instance type in the snapshot. */
  nodes: Type.Integer(),
  /** Of those, on spot. */
  spotNodes: Type.Integer(),
  /** In a ledger of several clusters asked without ?cluster=: the cluster (each at its own newest snapshot). */
  cluster: Type.Optional(Type.String()),
});
export type NodeMixRow = Static<typeof NodeMixRowSchema>;

export const NodeMixResponseSchema = Type.Object({
  /** The snapshot counted, ISO 8601 UTC; null when there is none at or before `at`. */
  snapshotAt: Nullable(Type.String()),
  /** By NodePool (name order), then most nodes first, ties by instance type. */
  rows: Type.Array(NodeMixRowSchema),
});
export type NodeMixResponse = Static<typeof NodeMixResponseSchema>;

/** At most this many nodes listed on each side; the counts and prices cover them all. */
export const NODE_CHANGES_LIST_MAX = 500;

export const NodeChangesQuerySchema = Type.Object(
  {
    from: rangeQueryProperties.from,
    to: rangeQueryProperties.to,
    nodepool: rangeQueryProperties.nodepool,
    limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: NODE_CHANGES_LIST_MAX,
        description: `Nodes listed per side, by name. Default ${NODE_CHANGES_LIST_MAX}.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type NodeChangesQuery = Static<typeof NodeChangesQuerySchema>;

export const ChangedNodeSchema = Type.Object({
  name: Type.String(),
  nodeClaim: Nullable(Type.String()),
  /** '' = not launched by Karpenter. */
  nodePool: Type.String(),
  instanceType: Type.String(),
  capacityType: Type.String(),
  /** Its price per hour in that snapshot, in the data's currency; null when no price was known. */
  usdPerHour: Nullable(Type.Number()),
});
export type ChangedNode = Static<typeof ChangedNodeSchema>;

export const NodeChangeSideSchema = Type.Object({
  /** Every node on this side. */
  count: Type.Integer(),
  /** Σ their prices per hour (unknown prices count 0). */
  usdPerHour: Type.Number(),
  /** The first `limit` of them by name. */
  nodes: Type.Array(ChangedNodeSchema),
});
export type NodeChangeSide = Static<typeof NodeChangeSideSchema>;

export const NodeChangesResponseSchema = Type.Object({
  /** The last snapshot before `from`, ISO 8601 UTC; null when there is none. */
  beforeAt: Nullable(Type.String()),
  /** The last snapshot before `to`, ISO 8601 UTC; null when there is none. */
  afterAt: Nullable(Type.String()),
  /** In the snapshot before `from` and not in the one before `to`. */
  removed: NodeChangeSideSchema,
  /** In the snapshot before `to` and not in the one before `from`. */
  added: NodeChangeSideSchema,
});
export type NodeChangesResponse = Static<typeof NodeChangesResponseSchema>;
