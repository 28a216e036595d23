import { Type, type Static } from '@sinclair/typebox';
import { IsoInstantQuery, Nullable } from './common.js';

/**
 * GET /api/nodepools/karpenter: what the Karpenter releases since v1.7 add to each NodePool, at one stored snapshot:
 * static NodePools (spec.replicas) and their fixed cost, limits.nodes, the NodeOverlay that prices each running node
 * type as Karpenter sees it, and the capacity reservations the EC2NodeClasses list.
 */

export const NodePoolKarpenterQuerySchema = Type.Object(
  { at: Type.Optional(IsoInstantQuery('The snapshot at or before this instant. Default: the newest.')) },
  { additionalProperties: false },
);
export type NodePoolKarpenterQuery = Static<typeof NodePoolKarpenterQuerySchema>;

export const NodePoolKarpenterResponseSchema = Type.Object({
  snapshotAt: Type.String(),
  currency: Type.String(),
  /** Karpenter's version as last collected (controller image or --karpenter-version); null when unknown. */
  karpenterVersion: Nullable(Type.String()),
  nodePools: Type.Array(
    Type.Object({
      name: Type.String(),
      /** spec.replicas: a static NodePool, never consolidated; null for a dynamic one. */
      replicas: Nullable(Type.Integer()),
      limitNodes: Nullable(Type.Number()),
      nodes: Type.Integer(),
      usdPerHour: Nullable(Type.Number()),
      /** Static pools: replicas × the mean price of its nodes per hour. */
      fixedUsdPerHour: Nullable(Type.Number()),
    }),
  ),
  overlays: Type.Array(
    Type.Object({
      name: Type.String(),
      weight: Type.Number(),
      /** spec.price or spec.priceAdjustment as written; null for a capacity-only overlay. */
      change: Nullable(Type.String()),
      applied: Type.Boolean(),
      reason: Nullable(Type.String()),
    }),
  ),
  /** Per NodePool × type × capacity type × zone running at the snapshot that an overlay prices. */
  overlayPrices: Type.Array(
    Type.Object({
      nodePool: Type.String(),
      instanceType: Type.String(),
      capacityType: Type.String(),
      zone: Type.String(),
      nodes: Type.Integer(),
      usdPerHour: Type.Number(),
      karpenterUsdPerHour: Type.Number(),
      overlay: Type.String(),
      change: Type.String(),
    }),
  ),
  reservations: Type.Array(
    Type.Object({
      id: Type.String(),
      nodeClass: Type.String(),
      nodePools: Type.Array(Type.String()),
      instanceType: Type.String(),
      zone: Type.String(),
      /** default (an ODCR) | capacity-block */
      reservationType: Type.String(),
      /** active | expiring */
      state: Type.String(),
      interruptible: Type.Boolean(),
      endTime: Nullable(Type.String()),
      nodes: Type.Integer(),
    }),
  ),
});
export type NodePoolKarpenterResponse = Static<typeof NodePoolKarpenterResponseSchema>;
