import type { ApiResponse } from '@schemas/api-routes';
import type { JsonParams } from '../../../lib/api-client';

/** GET /api/whatif/workload: a stored workload's pods provisioned on fresh nodes of each NodePool asked. */
export type WorkloadWhatIfQuery = JsonParams<'/api/whatif/workload'>;
export type WorkloadWhatIfAnswer = ApiResponse<'/api/whatif/workload'>;
type Placement = WorkloadWhatIfAnswer['placements'][number];

/** One NodePool's line of the answer, as the Workloads detail shows it. */
export interface PlacementLine {
  nodePool: string;
  /** Where most of its pods run at the snapshot (the answer's workload.nodePool). */
  current: boolean;
  nodes: number;
  /** "1 × c7i.xlarge on-demand, 1 × m7i.large on-demand" (costliest first, as the engine lists them). */
  mix: string;
  usdPerHour: number;
  usdPerMonth: number;
  /**
   * This NodePool's month less its current NodePool's, USD; null when either leaves a pod out (a placement of part of
   * the pods is not a price of the workload) or the current NodePool was not asked.
   */
  vsCurrentUsdPerMonth: number | null;
  /** Pods no node of the NodePool could take. */
  unschedulable: number;
  /** Karpenter's reasons for them, each once. */
  reasons: string[];
}

const mixOf = (p: Placement): string =>
  p.footprint.mix.length === 0 ? '—' : p.footprint.mix.map((m) => `${m.nodes} × ${m.instanceType} ${m.capacityType}`).join(', ');

/** The answer's placements in its order (the NodePools as asked), each beside the NodePool the workload runs on now. */
export function placementLines(answer: Pick<WorkloadWhatIfAnswer, 'workload' | 'placements'>): PlacementLine[] {
  const currentPool = answer.workload?.nodePool;
  const current = answer.placements.find((p) => p.nodePool === currentPool);
  const whole = (p: Placement | undefined): p is Placement => p !== undefined && p.unschedulable.length === 0;
  return answer.placements.map((p) => ({
    nodePool: p.nodePool,
    current: p.nodePool === currentPool,
    nodes: p.footprint.nodes,
    mix: mixOf(p),
    usdPerHour: p.footprint.usdPerHour,
    usdPerMonth: p.usdPerMonth,
    vsCurrentUsdPerMonth: whole(p) && whole(current) ? Math.round((p.usdPerMonth - current.usdPerMonth) * 100) / 100 : null,
    unschedulable: p.unschedulable.length,
    reasons: [...new Set(p.unschedulable.map((u) => u.reason))],
  }));
}

/**
 * The `nodepools` parameter from what was typed: names split on commas and spaces, blanks dropped; nothing typed:
 * undefined (every NodePool). Names are not checked here: the server's 400 names a bad one and the NodePools it holds.
 */
export function nodePoolsParam(typed: string): string | undefined {
  const names = typed
    .split(/[\s,]+/)
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return names.length === 0 ? undefined : names.join(',');
}
