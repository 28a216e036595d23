import type { TeamCostResponse, TeamCostRow, TeamCostSeriesResponse } from '@schemas/teams';
import type { JsonParams } from '../../../lib/api-client';
import type { ParamUpdates } from '../../../lib/url-params';

/**
 * The Teams page's URL state (beside range, NodePool and team):
 *   ?by=namespace        group by namespace instead of team
 *   &idle=spread         spread idle cost over the teams instead of showing it as its own band
 *   &method=aws-split    AWS split cost allocation instead of the weighted request share (or method=opencost)
 *   &sort=costUsd&order=desc   the table's order
 */
export type TeamMethod = TeamCostResponse['method'];
const METHODS: readonly TeamMethod[] = ['request-share', 'aws-split', 'opencost'];

export interface TeamsState {
  groupBy: 'team' | 'namespace';
  idle: 'line' | 'spread';
  method: TeamMethod;
  sort: TeamSort;
  order: 'asc' | 'desc';
}

export type TeamSort = 'team' | 'nodePool' | 'costUsd' | 'share';
const SORTS: readonly TeamSort[] = ['team', 'nodePool', 'costUsd', 'share'];

export function parseTeams(params: URLSearchParams): TeamsState {
  const order = params.get('order');
  return {
    groupBy: params.get('by') === 'namespace' ? 'namespace' : 'team',
    idle: params.get('idle') === 'spread' ? 'spread' : 'line',
    method: METHODS.find((m) => m === params.get('method')) ?? 'request-share',
    sort: SORTS.find((s) => s === params.get('sort')) ?? 'costUsd',
    order: order === 'asc' || order === 'desc' ? order : 'desc',
  };
}

/** Same column flips the order; a new column starts with the biggest (money) or A–Z (names). */
export function teamSortUpdates(state: TeamsState, column: TeamSort): ParamUpdates {
  const order =
    column === state.sort ? (state.order === 'asc' ? 'desc' : 'asc') : column === 'costUsd' || column === 'share' ? 'desc' : 'asc';
  return { sort: column, order };
}

/** The key of the idle band (not a team name: those cannot start with "_"). */
export const IDLE_KEY = '_idle';
/** Teams past the top N, summed. */
export const OTHER_KEY = '_other';
/** Pods without the team label. */
export const UNLABELLED_KEY = '_unlabelled';

export interface TeamChartRow {
  day: string;
  /** USD per band key. */
  usd: Record<string, number>;
}

export interface TeamChart {
  rows: TeamChartRow[];
  /** Band keys, bottom to top: teams by total cost (largest first), then "other", then idle. */
  keys: string[];
}

/** A band per team, or per cluster and team when the series names clusters (every cluster of several). */
const keyOf = (r: { cluster?: string; kind: 'team' | 'idle'; team: string | null }): string => {
  if (r.kind === 'idle') return IDLE_KEY;
  const team = r.team ?? UNLABELLED_KEY;
  return r.cluster === undefined ? team : `${team}${CLUSTER_SEPARATOR}${r.cluster}`;
};

/** Between a team and its cluster in a band key (neither a team nor a cluster name holds a space). */
export const CLUSTER_SEPARATOR = ' · ';

/**
 * One chart row per bucket of the series, one band per team (the `top` largest over the whole range; the rest
 * summed into "other"), idle as its own band on top.
 */
export function toTeamChart(series: TeamCostSeriesResponse | undefined, top = 8): TeamChart {
  const buckets = series?.buckets ?? [];
  const totals = new Map<string, number>();
  for (const b of buckets)
    for (const t of b.teams) {
      const k = keyOf(t);
      totals.set(k, (totals.get(k) ?? 0) + t.costUsd);
    }
  const teams = [...totals]
    .filter(([k]) => k !== IDLE_KEY)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k]) => k);
  const shown = new Set(teams.length > top ? teams.slice(0, top - 1) : teams);
  const keys = [...shown];
  if (teams.length > shown.size) keys.push(OTHER_KEY);
  if (totals.has(IDLE_KEY)) keys.push(IDLE_KEY);
  const rows = buckets.map((b) => {
    const usd: Record<string, number> = {};
    for (const t of b.teams) {
      const k = keyOf(t);
      const band = k === IDLE_KEY || shown.has(k) ? k : OTHER_KEY;
      usd[band] = (usd[band] ?? 0) + t.costUsd;
    }
    return { day: b.from.slice(0, 10), usd };
  });
  return { rows, keys };
}

/** Table rows in the chosen order; by name, idle rows come after the named ones either way. Ties by NodePool then team. */
export function sortTeamRows(rows: readonly TeamCostRow[], sort: TeamSort, order: 'asc' | 'desc'): TeamCostRow[] {
  const name = (r: TeamCostRow) => (r.kind === 'idle' ? '(idle)' : (r.team ?? '(no label)'));
  const cluster = (r: TeamCostRow) => r.cluster ?? '';
  const value = (r: TeamCostRow): number | string => {
    if (sort === 'team') return name(r);
    if (sort === 'nodePool') return r.nodePool;
    if (sort === 'share') return r.share ?? -1;
    return r.costUsd;
  };
  const sign = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (sort === 'team' && a.kind !== b.kind) return a.kind === 'idle' ? 1 : -1;
    const va = value(a);
    const vb = value(b);
    const c = typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
    return sign * c || a.nodePool.localeCompare(b.nodePool) || name(a).localeCompare(name(b)) || cluster(a).localeCompare(cluster(b));
  });
}

/** The query of /api/teams/cost for the page's state (without the team filter when `team` is undefined). */
export function teamCostParams(
  range: { from?: string; to?: string; nodepool?: string },
  state: TeamsState,
  team: string | undefined,
): JsonParams<'/api/teams/cost'> {
  return {
    ...range,
    team,
    groupBy: state.groupBy === 'team' ? undefined : state.groupBy,
    idle: state.idle === 'line' ? undefined : state.idle,
    method: state.method === 'request-share' ? undefined : state.method,
  };
}

/** What the idle row stands for under each method (idle as a line). */
export function idleRowLabel(method: TeamMethod): string {
  if (method === 'aws-split') return 'Idle (unused capacity)';
  if (method === 'opencost') return 'Idle (charged to no pod)';
  return 'Idle (requested by no pod)';
}

/** Team (or namespace) names of a response, for the filter, A–Z. */
export const teamNames = (r: TeamCostResponse | undefined): string[] =>
  [...new Set((r?.teams ?? []).flatMap((t) => (t.kind === 'team' && t.team !== null ? [t.team] : [])))].sort();
