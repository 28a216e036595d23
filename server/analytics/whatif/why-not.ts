import { consolidate, type EngineContext, nodePrice, provision } from '../../../core/karpenter/scheduling/index.js';
import type { ConsolidationCommand } from '../../../core/karpenter/scheduling/consolidation.js';

/**
 * Why not consolidated: the engine's next consolidation round on the snapshot as it stood (its time is the round's
 * now, so consolidateAfter and do-not-disrupt durations count to it). Each node either takes part in the command
 * Karpenter would run next (delete or replace, with its share of the savings) or stays, with the reason in
 * Karpenter's own words where Karpenter has them. Pure.
 */

/** The node a consolidation command launches in place of its candidates. */
export interface ReplacementSummary {
  instanceType: string;
  capacityType: string;
  zone: string;
  usdPerHour: number;
}

export interface NodeDecision {
  node: string;
  nodePool: string | null;
  instanceType: string | null;
  capacityType: string | null;
  zone: string | null;
  pods: number;
  /** What keeping the node costs per hour at the catalogue; null when the catalogue cannot price it. */
  usdPerHour: number | null;
  decision: 'delete' | 'replace' | 'keep';
  /** The command's reason (Empty, Underutilized) and method, or the reason the node stays. */
  reason: string;
  wording: 'karpenter' | 'ledger';
}

export interface WhyNotResult {
  nodes: NodeDecision[];
  command: {
    action: 'delete' | 'replace';
    reason: string;
    method: string;
    candidates: string[];
    replacement: ReplacementSummary | null;
    savingsUsdPerHour: number;
  } | null;
}

/** A command's replacement as the answers name it (instance type, capacity type, zone, price), or null for a delete. */
export function replacementSummary(cmd: Pick<ConsolidationCommand, 'replacement'>): ReplacementSummary | null {
  const launch = cmd.replacement?.launch;
  return launch === undefined
    ? null
    : { instanceType: launch.instanceType.name, capacityType: launch.capacityType, zone: launch.zone, usdPerHour: launch.usdPerHour };
}

export function whyNotConsolidated(ctx: EngineContext): WhyNotResult {
  const outcome = consolidate(ctx, provision(ctx));
  const cmd = outcome.command;
  const action = cmd === null ? null : cmd.replacement === null ? 'delete' : 'replace';
  const rows: NodeDecision[] = [];
  const describeNode = (name: string) => {
    const n = ctx.nodeByName.get(name);
    return {
      nodePool: n?.nodePool ?? null,
      instanceType: n?.instanceType ?? null,
      capacityType: n?.capacityType ?? null,
      zone: n?.zone ?? null,
      pods: n?.pods.filter((p) => p.phase !== 'Succeeded' && p.phase !== 'Failed').length ?? 0,
    };
  };
  for (const c of cmd?.candidates ?? []) {
    rows.push({
      node: c.node.name,
      ...describeNode(c.node.name),
      usdPerHour: nodePrice(ctx, c.node),
      decision: action ?? 'keep',
      reason: `${cmd?.reason ?? ''} (${cmd?.method ?? ''} consolidation)`,
      wording: 'ledger',
    });
  }
  for (const v of outcome.unconsolidatable) {
    if (!ctx.nodeByName.has(v.node.name)) continue;
    rows.push({
      node: v.node.name,
      ...describeNode(v.node.name),
      usdPerHour: v.usdPerHour,
      decision: 'keep',
      reason: v.reason,
      wording: v.wording,
    });
  }
  rows.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  return {
    nodes: rows,
    command:
      cmd === null || action === null
        ? null
        : {
            action,
            reason: cmd.reason,
            method: cmd.method,
            candidates: cmd.candidates.map((c) => c.node.name),
            replacement: replacementSummary(cmd),
            savingsUsdPerHour: cmd.savingsUsdPerHour,
          },
  };
}
