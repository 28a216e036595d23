import type { TeamCurResponse } from '@schemas/teams-cur';
import type { CostMetric } from '@schemas/cost';
import type { TeamCostParams } from '../api/use-team-cost';
import type { TeamCurParams } from '../api/use-team-cur';
import { IDLE_KEY, OTHER_KEY, UNLABELLED_KEY, type TeamMethod } from './team-series';

export type CurBasis = 'billed' | 'public-on-demand';

/** `?basis=public-on-demand` compares with AWS's split of public on-demand cost; default what was billed. */
export const parseCurBasis = (params: URLSearchParams): CurBasis =>
  params.get('basis') === 'public-on-demand' ? 'public-on-demand' : 'billed';

/** The CUR comparison's query from the team query: every method is compared, so the method is left out; metric and basis added. */
export function teamCurParams(
  params: TeamCostParams | undefined,
  metric: CostMetric | undefined,
  basis: CurBasis = 'billed',
): TeamCurParams | undefined {
  if (params === undefined) return undefined;
  const { method: _method, ...rest } = params;
  return { ...rest, ...(metric === undefined ? {} : { metric }), ...(basis === 'billed' ? {} : { basis }) };
}

const keyOf = (kind: 'team' | 'idle', team: string | null): string => (kind === 'idle' ? IDLE_KEY : (team ?? UNLABELLED_KEY));

export interface CurDiffChartRow {
  day: string;
  /** CUR − the method, USD, per band key; absent on a day without CUR lines. */
  usd: Record<string, number>;
}

export interface CurDiffChart {
  rows: CurDiffChartRow[];
  /** Bands, largest absolute difference over the range first, idle last; past `top` the rest folded into OTHER_KEY. */
  keys: string[];
}

/** Per CUR day, the difference CUR − `method` per team (the teams with the largest differences, the rest as "other"). */
export function toCurDiffChart(r: TeamCurResponse | undefined, method: TeamMethod, top = 6): CurDiffChart {
  if (r === undefined || !r.available) return { rows: [], keys: [] };
  const totals = r.totals
    .filter((t) => t.kind === 'team')
    .map((t) => ({ key: keyOf(t.kind, t.team), abs: Math.abs(t.differenceUsd[method]) }))
    .sort((a, b) => b.abs - a.abs || a.key.localeCompare(b.key));
  const shown = new Set(totals.slice(0, top).map((t) => t.key));
  const folded = totals.length > top;
  const hasIdle = r.totals.some((t) => t.kind === 'idle');
  const keys = [...totals.slice(0, top).map((t) => t.key), ...(folded ? [OTHER_KEY] : []), ...(hasIdle ? [IDLE_KEY] : [])];
  const rows = r.curDays.map((day) => {
    const usd: Record<string, number> = {};
    for (const row of r.rows) {
      if (row.day !== day) continue;
      const d = row.differenceUsd[method];
      if (d === null) continue;
      const k = keyOf(row.kind, row.team);
      const band = row.kind === 'idle' || shown.has(k) ? k : OTHER_KEY;
      usd[band] = Math.round(((usd[band] ?? 0) + d) * 100) / 100;
    }
    return { day, usd };
  });
  return { rows, keys };
}
