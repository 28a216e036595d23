/**
 * Team attribution of node cost (pure, no I/O): each node-hour's cost split over its pods, summed per team
 * and NodePool from the per-namespace rollup; what the method does not charge to a pod is idle, per NodePool.
 * The methods themselves are in core/attribution/ (computed per node and snapshot by core/rollup.ts):
 *
 * request-share: a pod's share of a node is w_cpu × pod cpu ÷ node cpu + w_memory × pod memory ÷ node memory,
 * so a team's cost is w_cpu × Σ(cpu share × price) + w_memory × Σ(memory share × price), both sums stored per
 * namespace per snapshot. With the default 0.5/0.5 the stored request-share cost is used as is.
 * aws-split: AWS split cost allocation data for EKS. idle=line shows AWS's split cost per team and the instances'
 * unused cost as idle; idle=spread hands the unused cost to the teams as AWS does (by allocation, node by node:
 * AWS's "total split cost"), then spreads what AWS leaves unassigned (nodes without pods) by cost like the others.
 * opencost: the OpenCost specification's workload cost; idle = node cost − workload cost.
 */

import type { NamespaceSumsRow } from '../../db/repositories/analytics-teams-repository.js';
import { allocateCents, toCents } from './cents.js';
import { DEFAULT_SHARE_WEIGHTS, type ShareWeights } from './packing.js';

/** Hours-weighted sums of one namespace x NodePool over the range, USD: the teams repository's row (declared there). */
export type NamespaceCostSums = NamespaceSumsRow;

export interface PoolCostSums {
  nodePool: string;
  costUsd: number;
  costWeightedCpuUsd: number;
  costWeightedMemoryUsd: number;
}

export type TeamMethod = 'request-share' | 'aws-split' | 'opencost';
export type IdleMode = 'line' | 'spread';

export interface TeamCostOptions {
  method: TeamMethod;
  weights: ShareWeights;
  idle: IdleMode;
  /** The team (or namespace) a namespace row belongs to. */
  teamOf: (row: NamespaceCostSums) => string | null;
}

export interface TeamCostLine {
  kind: 'team' | 'idle';
  team: string | null;
  nodePool: string;
  /** Rounded to cents; all lines add up to nodeCostUsd. */
  costUsd: number;
  share: number | null;
  idleSpreadUsd: number;
}

export interface TeamCostResult {
  rows: TeamCostLine[];
  teams: { kind: 'team' | 'idle'; team: string | null; costUsd: number }[];
  totals: { nodeCostUsd: number; teamsUsd: number; idleUsd: number; residualUsd: number };
  notes: string[];
}

const isDefaultWeights = (w: ShareWeights): boolean => w.cpu === DEFAULT_SHARE_WEIGHTS.cpu && w.memory === DEFAULT_SHARE_WEIGHTS.memory;

/**
 * One namespace row's cost under the method, USD: what the method charges its pods (`ownUsd`), and the idle cost
 * the method itself hands them (`handedIdleUsd`: AWS's unused cost; 0 for the others). Legacy rows keep their
 * stored 50/50 request-share cost.
 */
function namespaceCost(r: NamespaceCostSums, o: TeamCostOptions): { ownUsd: number; handedIdleUsd: number } {
  if (o.method === 'aws-split') return { ownUsd: r.awsSplitCostUsd + r.legacyMethodsUsd, handedIdleUsd: r.awsUnusedCostUsd };
  if (o.method === 'opencost') return { ownUsd: r.openCostUsd + r.legacyMethodsUsd, handedIdleUsd: 0 };
  if (isDefaultWeights(o.weights)) return { ownUsd: r.requestShareUsd, handedIdleUsd: 0 };
  return { ownUsd: o.weights.cpu * r.cpuShareUsd + o.weights.memory * r.memoryShareUsd + r.legacyRequestShareUsd, handedIdleUsd: 0 };
}

/** Says how much cost the method could not split its way (snapshots stored before it was recorded). */
export function legacyNotes(namespaces: readonly NamespaceCostSums[], o: TeamCostOptions): string[] {
  if (o.method === 'aws-split' || o.method === 'opencost') {
    const legacy = namespaces.reduce((t, r) => t + r.legacyMethodsUsd, 0);
    if (legacy <= 0) return [];
    const name = o.method === 'aws-split' ? 'AWS split' : 'OpenCost';
    return [
      `$${legacy.toFixed(2)} of team cost comes from snapshots stored before ${name} was recorded (before migration 0010): split by request share 50/50 there.`,
    ];
  }
  const legacy = namespaces.reduce((t, r) => t + r.legacyRequestShareUsd, 0);
  if (legacy > 0 && !isDefaultWeights(o.weights)) {
    return [`$${legacy.toFixed(2)} of team cost comes from snapshots stored before per-resource shares were recorded: split 50/50 there.`];
  }
  return [];
}

/**
 * Team lines per NodePool plus one idle line per NodePool (idle=line), or idle spread over the NodePool's
 * teams in proportion to their cost there (idle=spread; a NodePool without team cost keeps its idle line). Under
 * aws-split, idle=spread first hands each team the unused cost AWS assigns it, then spreads the rest.
 *
 * Idle is the NodePool's cost minus its team lines, so the lines always add up to the node cost (OpenCost's idle
 * can be negative where usage above requests adds up past a node's capacity); residualUsd says how far the
 * independent figure — Σ price × (1 − weighted efficiency) from the NodePool rollup — is from that (0 up to float
 * noise when the rollups agree; aws-split and opencost have no independent figure: 0).
 */
export function attributeTeamCost(
  namespaces: readonly NamespaceCostSums[],
  pools: readonly PoolCostSums[],
  o: TeamCostOptions,
): TeamCostResult {
  const notes = legacyNotes(namespaces, o);

  type TeamSums = { ownUsd: number; handedIdleUsd: number };
  const teamUsd = new Map<string, Map<string | null, TeamSums>>(); // nodePool -> team -> USD
  for (const r of namespaces) {
    const byTeam = teamUsd.get(r.nodePool) ?? new Map<string | null, TeamSums>();
    const team = o.teamOf(r);
    const c = namespaceCost(r, o);
    const t = byTeam.get(team) ?? { ownUsd: 0, handedIdleUsd: 0 };
    byTeam.set(team, { ownUsd: t.ownUsd + c.ownUsd, handedIdleUsd: t.handedIdleUsd + c.handedIdleUsd });
    teamUsd.set(r.nodePool, byTeam);
  }

  const raw: Omit<TeamCostLine, 'costUsd' | 'share'>[] = [];
  const rawUsd: number[] = [];
  let nodeCostUsd = 0;
  let residualUsd = 0;
  const poolNames = [...new Set([...pools.map((p) => p.nodePool), ...teamUsd.keys()])].sort((a, b) => a.localeCompare(b));
  const poolOf = new Map(pools.map((p) => [p.nodePool, p]));
  for (const name of poolNames) {
    const p = poolOf.get(name) ?? { nodePool: name, costUsd: 0, costWeightedCpuUsd: 0, costWeightedMemoryUsd: 0 };
    nodeCostUsd += p.costUsd;
    const teams = [...(teamUsd.get(name) ?? new Map<string | null, TeamSums>()).entries()]
      // Largest first; equal to a nano-dollar counts as equal (float noise), then by name.
      .sort(([ta, a], [tb, b]) => Math.round((b.ownUsd - a.ownUsd) * 1e9) || (ta ?? '').localeCompare(tb ?? ''));
    const ownTotal = teams.reduce((t, [, c]) => t + c.ownUsd, 0);
    const idle = p.costUsd - ownTotal;
    if (o.method === 'request-share') {
      const independentIdle = p.costUsd - (o.weights.cpu * p.costWeightedCpuUsd + o.weights.memory * p.costWeightedMemoryUsd);
      residualUsd += idle - independentIdle;
    }
    // With idle spread: the idle the method hands each team first (AWS's unused cost), then what is left by cost.
    const handedTotal = teams.reduce((t, [, c]) => t + c.handedIdleUsd, 0);
    const spread = o.idle === 'spread' && ownTotal + handedTotal > 0;
    const rest = idle - handedTotal;
    for (const [team, c] of teams) {
      const withHanded = c.ownUsd + c.handedIdleUsd;
      const idleSpreadUsd = spread ? c.handedIdleUsd + (rest * withHanded) / (ownTotal + handedTotal) : 0;
      raw.push({ kind: 'team', team, nodePool: name, idleSpreadUsd });
      rawUsd.push(c.ownUsd + idleSpreadUsd);
    }
    if (!spread) {
      raw.push({ kind: 'idle', team: null, nodePool: name, idleSpreadUsd: 0 });
      rawUsd.push(idle);
    }
  }

  const totalCents = toCents(nodeCostUsd);
  const cents = allocateCents(rawUsd, totalCents);
  const total = totalCents / 100;
  const lines: TeamCostLine[] = raw.map((r, i) => ({
    kind: r.kind,
    team: r.team,
    nodePool: r.nodePool,
    costUsd: cents[i] / 100,
    share: total === 0 ? null : cents[i] / totalCents,
    idleSpreadUsd: toCents(r.idleSpreadUsd) / 100,
  }));
  const rows = [...lines.filter((l) => l.kind === 'team'), ...lines.filter((l) => l.kind === 'idle')];

  const teamCents = new Map<string, { kind: 'team' | 'idle'; team: string | null; cents: number }>();
  rows.forEach((l) => {
    const k = `${l.kind}\u0000${l.team ?? '\u0001'}`;
    const t = teamCents.get(k) ?? { kind: l.kind, team: l.team, cents: 0 };
    t.cents += Math.round(l.costUsd * 100);
    teamCents.set(k, t);
  });
  const teams = [...teamCents.values()]
    .sort(
      (a, b) => Number(a.kind === 'idle') - Number(b.kind === 'idle') || b.cents - a.cents || (a.team ?? '').localeCompare(b.team ?? ''),
    )
    .map((t) => ({ kind: t.kind, team: t.team, costUsd: t.cents / 100 }));
  const sumCents = (kind: 'team' | 'idle') => rows.filter((l) => l.kind === kind).reduce((t, l) => t + Math.round(l.costUsd * 100), 0);
  return {
    rows,
    teams,
    totals: { nodeCostUsd: total, teamsUsd: sumCents('team') / 100, idleUsd: sumCents('idle') / 100, residualUsd },
    notes,
  };
}
