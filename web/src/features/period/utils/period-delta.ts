import type { DailyCostResponse } from '@schemas/cost';
import type { EfficiencySummaryResponse } from '@schemas/efficiency';

/** The figures of one period that the overview compares with the period before. */
export interface PeriodFigures {
  /** Cost Explorer UnblendedCost, USD; null without bill lines. */
  billUsd: number | null;
  /** Our estimate, USD; null without snapshots. */
  estimateUsd: number | null;
  nodesAvg: number | null;
  /** Fractions 0..1. */
  cpu: number | null;
  memory: number | null;
  /** Idle money, USD per hour. */
  idleUsdPerHour: number | null;
}

export type FigureKey = keyof PeriodFigures;

/** Money: lower is better; efficiency: higher is better; node count: neither. */
export const FIGURE_DIRECTION: Record<FigureKey, 'lower' | 'higher' | 'neutral'> = {
  billUsd: 'lower',
  estimateUsd: 'lower',
  nodesAvg: 'neutral',
  cpu: 'higher',
  memory: 'higher',
  idleUsdPerHour: 'lower',
};

export interface FigureDelta {
  key: FigureKey;
  current: number | null;
  previous: number | null;
  /** current − previous (fractions: in fraction points, 0.031 = 3.1 points); null when either side is missing. */
  change: number | null;
  /** change ÷ previous; null when either is missing or previous is 0. */
  relative: number | null;
  verdict: 'better' | 'worse' | 'same' | 'unknown';
}

/** Figures of a period from the daily cost route and the efficiency summary (cluster row, or the filtered NodePool's). */
export function periodFigures(
  cost: DailyCostResponse | undefined,
  summary: EfficiencySummaryResponse | undefined,
  nodePool: string | undefined,
): PeriodFigures {
  const row =
    summary?.rows.find((r) => (nodePool === undefined ? r.scope === 'cluster' : r.nodePool === nodePool)) ??
    summary?.rows.find((r) => r.scope === 'cluster');
  const covered = summary !== undefined && summary.hours > 0 && row !== undefined;
  const hasBill = cost?.rows.some((r) => r.billUsd !== null) ?? false;
  const hasEstimate = cost?.rows.some((r) => r.estimateUsd !== null) ?? false;
  return {
    billUsd: hasBill && cost !== undefined ? cost.totals.billUsd : null,
    estimateUsd: hasEstimate && cost !== undefined ? cost.totals.estimateUsd : null,
    nodesAvg: covered ? row.nodesAvg : null,
    cpu: covered ? row.cpu : null,
    memory: covered ? row.memory : null,
    idleUsdPerHour: covered ? row.idleUsdPerHourAvg : null,
  };
}

/** Changes are "same" below half a percent (money, nodes) or half a point (efficiency): noise, not news. */
const SAME_RELATIVE = 0.005;
const SAME_POINTS = 0.005;

export function compareFigures(current: PeriodFigures, previous: PeriodFigures): FigureDelta[] {
  return (Object.keys(FIGURE_DIRECTION) as FigureKey[]).map((key) => {
    const c = current[key];
    const p = previous[key];
    const change = c === null || p === null ? null : c - p;
    const relative = change === null || p === null || p === 0 ? null : change / p;
    const isFraction = key === 'cpu' || key === 'memory';
    let verdict: FigureDelta['verdict'] = 'unknown';
    if (change !== null) {
      const small = isFraction ? Math.abs(change) < SAME_POINTS : relative === null ? change === 0 : Math.abs(relative) < SAME_RELATIVE;
      const direction = FIGURE_DIRECTION[key];
      verdict = small || direction === 'neutral' ? 'same' : change < 0 === (direction === 'lower') ? 'better' : 'worse';
    }
    return { key, current: c, previous: p, change, relative, verdict };
  });
}
