import type { ApiResponse } from '@schemas/api-routes';

type Headroom = ApiResponse<'/api/whatif/headroom'>;

/** One bar of the savings waterfall, USD per month. */
export interface WaterfallStep {
  key: string;
  label: string;
  /** total: a bar from zero; saving: the running total goes down; increase: it goes up (an edit that costs more). */
  kind: 'total' | 'saving' | 'increase';
  /** What the lever saves per month (negative: it costs more); for a total, the total. */
  valueUsd: number;
  /** The invisible part of a floating bar and the visible part: Recharts stacks the two. */
  baseUsd: number;
  barUsd: number;
}

/** A NodePool edit the user tried, as the waterfall shows it. */
export interface TriedEdit {
  label: string;
  savingsUsdPerMonth: number;
}

const HOURS_PER_MONTH = 730;

/**
 * Today's cost per month, then each lever per NodePool (consolidation headroom, then spot), then the tried edit, then
 * what is left. Each step starts where the previous one ended; an edit saving less than nothing goes up.
 */
export function savingsWaterfall(headroom: Headroom, edit: TriedEdit | null): WaterfallStep[] {
  const today = headroom.totals.todayUsdPerHour * HOURS_PER_MONTH;
  const steps: WaterfallStep[] = [{ key: 'today', label: 'Today', kind: 'total', valueUsd: today, baseUsd: 0, barUsd: today }];
  let running = today;
  const lever = (key: string, label: string, saving: number) => {
    const next = running - saving;
    steps.push({
      key,
      label,
      kind: saving >= 0 ? 'saving' : 'increase',
      valueUsd: saving,
      baseUsd: Math.min(running, next),
      barUsd: Math.abs(saving),
    });
    running = next;
  };
  for (const r of headroom.rows) {
    // Every cluster of several: a NodePool is one cluster's (two clusters' "general" are two levers).
    const pool = r.cluster === undefined ? r.nodePool : `${r.cluster}/${r.nodePool}`;
    lever(`${pool}:consolidation`, `${pool} · consolidation`, r.headroomUsdPerMonth);
    lever(`${pool}:spot`, `${pool} · spot`, r.spotUsdPerMonth);
  }
  if (edit !== null) lever('edit', `edit · ${edit.label}`, edit.savingsUsdPerMonth);
  steps.push({ key: 'after', label: 'After', kind: 'total', valueUsd: running, baseUsd: 0, barUsd: Math.max(running, 0) });
  return steps;
}
