import { QueryParamError, isoInstant } from '../analytics/range.js';
import { TryInputError, tryBalanced, tryOverlay } from '../analytics/karpenter-try.js';
import type { BalancedTryQuery, BalancedTryResponse, OverlayTryQuery, OverlayTryResponse } from '../schemas/karpenter-try.js';
import { optionalInstant } from './analytics-range.js';
import type { WhatIfWorlds } from './whatif-world.js';

const asQueryError = <T>(run: () => T): T => {
  try {
    return run();
  } catch (err) {
    if (err instanceof TryInputError) throw new QueryParamError(err.param, err.message);
    throw err;
  }
};

/**
 * Balanced and overlay tries over a stored snapshot (run in the engine pool, as the what-ifs): the newest at or before
 * `at` of cluster `clusterId` (null: a one-cluster ledger's; the routes refuse null on a ledger of several).
 */
export function createKarpenterTryService(worlds: WhatIfWorlds) {
  return {
    balanced(q: BalancedTryQuery, clusterId: number | null = null): BalancedTryResponse {
      const w = worlds.load(optionalInstant('at', q.at), clusterId);
      const r = asQueryError(() => tryBalanced(w.world, w.context, q.nodepool));
      return { simulation: true, snapshotAt: isoInstant(w.world.takenAt), ...r };
    },
    overlay(q: OverlayTryQuery, clusterId: number | null = null): OverlayTryResponse {
      const w = worlds.load(optionalInstant('at', q.at), clusterId);
      const r = asQueryError(() => tryOverlay(w.world, w.context, q.priceAdjustment));
      return { simulation: true, snapshotAt: isoInstant(w.world.takenAt), ...r };
    },
  };
}

export type KarpenterTryService = ReturnType<typeof createKarpenterTryService>;
