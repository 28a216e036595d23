import { Type, type Static } from '@sinclair/typebox';
import { IsoInstantQuery, Nullable, NODEPOOL_NAME_PATTERN } from './common.js';

/**
 * Try before doing (simulations over one stored snapshot): GET /api/whatif/balanced (a NodePool switched to
 * consolidationPolicy Balanced) and GET /api/whatif/overlay (a NodeOverlay priceAdjustment on every type).
 */

const CommandSchema = Nullable(
  Type.Object({
    action: Type.Union([Type.Literal('delete'), Type.Literal('replace')]),
    reason: Type.String(),
    method: Type.String(),
    candidates: Type.Array(
      Type.Object({ node: Type.String(), nodePool: Nullable(Type.String()), pods: Type.Integer(), usdPerHour: Nullable(Type.Number()) }),
    ),
    replacement: Nullable(
      Type.Object({ instanceType: Type.String(), capacityType: Type.String(), zone: Type.String(), usdPerHour: Type.Number() }),
    ),
    savingsUsdPerHour: Type.Number(),
    podsDisrupted: Type.Integer(),
    scores: Type.Array(
      Type.Object({
        nodePool: Type.String(),
        score: Type.Number(),
        threshold: Type.Number(),
        k: Type.Number(),
        savingsPercent: Type.Number(),
        disruptionPercent: Type.Number(),
        approved: Type.Boolean(),
        message: Type.String(),
      }),
    ),
  }),
);

const about = {
  simulation: Type.Literal(true),
  snapshotAt: Type.String(),
};

export const BalancedTryQuerySchema = Type.Object(
  {
    nodepool: Type.String({ pattern: NODEPOOL_NAME_PATTERN, maxLength: 253, description: 'The NodePool to switch to Balanced.' }),
    at: Type.Optional(IsoInstantQuery('The snapshot at or before this instant. Default: the newest.')),
  },
  { additionalProperties: false },
);
export type BalancedTryQuery = Static<typeof BalancedTryQuerySchema>;

export const BalancedTryResponseSchema = Type.Object({
  ...about,
  nodePool: Type.String(),
  policyToday: Type.String(),
  today: CommandSchema,
  balanced: CommandSchema,
  keptByScore: Type.Array(Type.Object({ node: Type.String(), reason: Type.String(), score: Type.Number(), threshold: Type.Number() })),
});
export type BalancedTryResponse = Static<typeof BalancedTryResponseSchema>;

export const OverlayTryQuerySchema = Type.Object(
  {
    priceAdjustment: Type.String({ maxLength: 20, description: 'As a NodeOverlay writes it: "-12%", "+5%", "-0.01".' }),
    at: Type.Optional(IsoInstantQuery('The snapshot at or before this instant. Default: the newest.')),
  },
  { additionalProperties: false },
);
export type OverlayTryQuery = Static<typeof OverlayTryQuerySchema>;

export const OverlayTryResponseSchema = Type.Object({
  ...about,
  priceAdjustment: Type.String(),
  real: CommandSchema,
  overlaid: CommandSchema,
  overlaidSavingsAtRealPricesUsdPerHour: Nullable(Type.Number()),
});
export type OverlayTryResponse = Static<typeof OverlayTryResponseSchema>;
