import {
  checkOverlaySchema,
  consolidate,
  type EngineContext,
  nodePrice,
  prepare,
  provision,
} from '../../core/karpenter/scheduling/index.js';
import type { KubeNodeOverlay } from '../../core/karpenter/scheduling/kube-types.js';
import type { WhatIfWorld } from './whatif/repack.js';
import { replacementSummary, type ReplacementSummary } from './whatif/why-not.js';
import type { ConsolidationCommand } from '../../core/karpenter/scheduling/consolidation.js';

/**
 * Two things to try on a stored snapshot before doing them (issue 22): a NodePool switched to `consolidationPolicy:
 * Balanced` (v1.14: what Karpenter's next round would then save and disrupt, with its score per move), and a
 * NodeOverlay on every type ("our EDP discount is −12 %": Karpenter decides on the adjusted prices, the bill stays on
 * the real ones, and the difference is said). Pure: the engine over the world it is given.
 */

export type TryWorld = WhatIfWorld;

export interface CommandSummary {
  action: 'delete' | 'replace';
  reason: string;
  method: string;
  candidates: { node: string; nodePool: string | null; pods: number; usdPerHour: number | null }[];
  replacement: ReplacementSummary | null;
  /** Karpenter's estimate, at the prices it decides with. */
  savingsUsdPerHour: number;
  /** Pods the command evicts. */
  podsDisrupted: number;
  scores: {
    nodePool: string;
    score: number;
    threshold: number;
    k: number;
    savingsPercent: number;
    disruptionPercent: number;
    approved: boolean;
    message: string;
  }[];
}

const live = (ctx: EngineContext, node: string): number =>
  ctx.nodeByName.get(node)?.pods.filter((p) => p.phase !== 'Succeeded' && p.phase !== 'Failed').length ?? 0;

function summary(ctx: EngineContext, cmd: ConsolidationCommand | null): CommandSummary | null {
  if (cmd === null) return null;
  const candidates = cmd.candidates.map((c) => ({
    node: c.node.name,
    nodePool: c.node.nodePool,
    pods: live(ctx, c.node.name),
    usdPerHour: nodePrice(ctx, c.node),
  }));
  return {
    action: cmd.replacement === null ? 'delete' : 'replace',
    reason: cmd.reason,
    method: cmd.method,
    candidates,
    replacement: replacementSummary(cmd),
    savingsUsdPerHour: cmd.savingsUsdPerHour,
    podsDisrupted: candidates.reduce((s, c) => s + c.pods, 0),
    scores: cmd.scores.map((s) => ({
      nodePool: s.nodePool,
      score: s.score,
      threshold: s.threshold,
      k: s.k,
      savingsPercent: s.savingsFraction * 100,
      disruptionPercent: s.disruptionFraction * 100,
      approved: s.approved,
      message: s.message,
    })),
  };
}

function round(ctx: EngineContext) {
  return consolidate(ctx, provision(ctx));
}

export class TryInputError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

export interface BalancedTry {
  nodePool: string;
  policyToday: string;
  today: CommandSummary | null;
  balanced: CommandSummary | null;
  /** The NodePool's nodes Balanced keeps because a move's score is under the threshold. */
  keptByScore: { node: string; reason: string; score: number; threshold: number }[];
}

/** The next round today and with `nodePool` switched to Balanced (k = 2), nothing else changed. */
export function tryBalanced(world: TryWorld, today: EngineContext, nodePool: string): BalancedTry {
  const pool = world.objects.nodePools.find((np) => np.metadata.name === nodePool);
  if (pool === undefined) throw new TryInputError('nodepool', `${nodePool} is not a NodePool of the snapshot`);
  const nodePools = world.objects.nodePools.map((np) =>
    np === pool ? { ...np, spec: { ...np.spec, disruption: { ...np.spec.disruption, consolidationPolicy: 'Balanced' } } } : np,
  );
  const ctx = prepare({ nodePools, nodes: world.objects.nodes, pods: world.objects.pods, catalogue: world.catalogue, now: world.takenAt });
  const after = round(ctx);
  return {
    nodePool,
    policyToday: pool.spec.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
    today: summary(today, round(today).command),
    balanced: summary(ctx, after.command),
    keptByScore: after.unconsolidatable
      .filter((v) => v.node.nodePool === nodePool && v.score !== undefined && !v.score.approved)
      .map((v) => ({ node: v.node.name, reason: v.reason, score: v.score?.score ?? 0, threshold: v.score?.threshold ?? 0 })),
  };
}

export interface OverlayTry {
  priceAdjustment: string;
  /** The next round on the real prices (what the ledger estimates). */
  real: CommandSummary | null;
  /** The next round as Karpenter decides it with the overlay on every type. */
  overlaid: CommandSummary | null;
  /** The overlaid command's savings at the real prices (what the bill would show); null without a command. */
  overlaidSavingsAtRealPricesUsdPerHour: number | null;
}

/** The next round with a NodeOverlay `priceAdjustment` on every instance type (gate NodeOverlay on), against the real one. */
export function tryOverlay(world: TryWorld, real: EngineContext, priceAdjustment: string): OverlayTry {
  const overlay: KubeNodeOverlay = {
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name: 'what-if' },
    spec: { requirements: [], priceAdjustment, weight: 1 },
  };
  try {
    checkOverlaySchema(overlay);
  } catch (err) {
    throw new TryInputError('priceAdjustment', err instanceof Error ? err.message : String(err));
  }
  const ctx = prepare({
    nodePools: world.objects.nodePools,
    nodes: world.objects.nodes,
    pods: world.objects.pods,
    catalogue: world.catalogue,
    now: world.takenAt,
    featureGates: { nodeOverlay: true },
    nodeOverlays: [overlay],
  });
  const cmd = round(ctx).command;
  const overlaid = summary(ctx, cmd);
  let atReal: number | null = null;
  if (cmd !== null) {
    const candidates = cmd.candidates.reduce((s, c) => s + (nodePrice(real, c.node) ?? 0), 0);
    const r = cmd.replacement?.launch;
    const replacement =
      r === undefined
        ? 0
        : (world.catalogue
            .find((e) => e.name === r.instanceType.name)
            ?.offerings.find((o) => o.zone === r.zone && o.capacityType === r.capacityType)?.priceUsdPerHour ?? r.usdPerHour);
    atReal = candidates - replacement;
  }
  return { priceAdjustment, real: summary(real, round(real).command), overlaid, overlaidSavingsAtRealPricesUsdPerHour: atReal };
}
