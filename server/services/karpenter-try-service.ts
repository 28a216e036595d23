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

/** Balanced and overlay tries over a stored snapshot (run in the engine pool, as the what-ifs). */
export function createKarpenterTryService(worlds: WhatIfWorlds) {
  return {
    balanced(q: BalancedTryQuery): BalancedTryResponse {
      const w = worlds.load(optionalInstant('at', q.at));
      const r = asQueryError(() => tryBalanced(w.world, w.context, q.nodepool));
      return { simulation: true, snapshotAt: isoInstant(w.world.takenAt), ...r };
    },
    overlay(q: OverlayTryQuery): OverlayTryResponse {
      const w = worlds.load(optionalInstant('at', q.at));
      const r = asQueryError(() => tryOverlay(w.world, w.context, q.priceAdjustment));
      return { simulation: true, snapshotAt: isoInstant(w.world.takenAt), ...r };
    },
  };
}

export type KarpenterTryService = ReturnType<typeof createKarpenterTryService>;
