import type { KarpenterExplanation } from '../../db/repositories/karpenter-explanations-repository.js';
import { EVENT_REASON, karpenterSaid } from '../analytics/karpenter-said.js';
import { isoInstant } from '../analytics/range.js';
import {
  MAX_EXPLANATIONS,
  type KarpenterExplanationRow,
  type KarpenterExplanationsQuery,
  type KarpenterExplanationsResponse,
} from '../schemas/karpenter-explanations.js';
import { rangeOf, type RangeContext } from './analytics-range.js';

/** What the service reads: Karpenter's stored explanations in a range (db/repositories/karpenter-explanations-repository.ts). */
export interface ExplanationsSource {
  inRange(q: { fromMs: number; toMs: number; name?: string; clusterId?: number | null }): KarpenterExplanation[];
}

const toRow = (e: KarpenterExplanation): KarpenterExplanationRow => ({
  at: isoInstant(e.at),
  atMs: e.at,
  eventReason: EVENT_REASON[e.kind],
  kind: e.kind,
  nodeName: e.nodeName,
  nodeClaim: e.nodeClaim,
  nodePool: e.nodePool,
  decision: e.decision,
  nodesInCommand: e.nodesInCommand,
  savingsUsdPerHour: e.savings,
  rejection: e.rejection,
  score: e.score,
  threshold: e.threshold,
  k: e.k,
  savingsPercent: e.savingsPercent,
  disruptionPercent: e.disruptionPercent,
  cause: e.cause,
  said: karpenterSaid(e),
  message: e.message,
});

/** Karpenter's own explanations of consolidation, for the Consolidation page and the why-not table. */
export function createExplanationsService(source: ExplanationsSource, ctx: RangeContext) {
  return {
    list(q: KarpenterExplanationsQuery, opts: { allRows?: boolean; clusterId?: number | null } = {}): KarpenterExplanationsResponse {
      const range = rangeOf(ctx, q);
      const all = source
        .inRange({
          fromMs: range.fromMs,
          toMs: range.toMs,
          clusterId: opts.clusterId ?? null,
          ...(q.node === undefined ? {} : { name: q.node }),
        })
        .filter((e) => range.nodePool === undefined || e.nodePool === range.nodePool);
      const kept = opts.allRows === true || all.length <= MAX_EXPLANATIONS ? all : all.slice(all.length - MAX_EXPLANATIONS);
      return { from: isoInstant(range.fromMs), to: isoInstant(range.toMs), rows: kept.map(toRow), total: all.length };
    },
  };
}

export type ExplanationsService = ReturnType<typeof createExplanationsService>;
