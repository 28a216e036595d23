/**
 * AWS's own split from the Cost and Usage Report beside our three team methods (pure, no I/O): the CUR's split
 * cost allocation rows (per namespace x NodePool x UTC day) summed per team with the same team rules as the
 * methods, AWS's unused cost shown as the idle line (or handed to the teams, as AWS's "total split cost" does,
 * when idle is spread), and the difference CUR − ours per team and day for each method.
 */

import { toCents } from './cents.js';
import type { IdleMode, TeamMethod } from './team-cost.js';

export const TEAM_METHOD_IDS: readonly TeamMethod[] = ['request-share', 'aws-split', 'opencost'];

/** One namespace x NodePool x day of the CUR's split lines, in the metric chosen (split cost or net split cost). */
export interface CurSplitDay {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  namespace: string;
  nodePool: string;
  /** Σ split_line_item_split_cost (or the net variant) of the namespace's pods that day, USD. */
  splitUsd: number;
  /** Σ split_line_item_unused_cost (or the net variant): the parent instances' unused capacity AWS assigns to those pods, USD. */
  unusedUsd: number;
}

/** A team's (or the idle) figure of one day, USD. */
export interface TeamFigure {
  kind: 'team' | 'idle';
  team: string | null;
  usd: number;
}

/** Σ per team of one day's CUR split rows: split cost per team, unused cost as idle (idle=line) or added to the team (spread). */
export function curTeamFigures(rows: readonly CurSplitDay[], teamOf: (namespace: string) => string | null, idle: IdleMode): TeamFigure[] {
  const byKey = new Map<string, TeamFigure>();
  const add = (kind: 'team' | 'idle', team: string | null, usd: number) => {
    const k = keyOf(kind, team);
    const f = byKey.get(k) ?? { kind, team, usd: 0 };
    f.usd += usd;
    byKey.set(k, f);
  };
  for (const r of rows) {
    const team = teamOf(r.namespace);
    if (idle === 'spread') add('team', team, r.splitUsd + r.unusedUsd);
    else {
      add('team', team, r.splitUsd);
      add('idle', null, r.unusedUsd);
    }
  }
  return [...byKey.values()].map((f) => ({ ...f, usd: toCents(f.usd) / 100 }));
}

const keyOf = (kind: 'team' | 'idle', team: string | null): string => `${kind}\u0000${team ?? '\u0001'}`;

export interface TeamCurRow {
  /** UTC day (YYYY-MM-DD). */
  day: string;
  kind: 'team' | 'idle';
  team: string | null;
  /** AWS's split from the CUR, USD; null on a day the CUR has no split lines for. */
  curUsd: number | null;
  /** Each of our methods' figure, USD (0 where the method charges the team nothing that day). */
  ours: Record<TeamMethod, number>;
  /** curUsd − ours, USD, to the cent; null where curUsd is. */
  differenceUsd: Record<TeamMethod, number | null>;
}

export interface TeamCurTotal {
  kind: 'team' | 'idle';
  team: string | null;
  /** Over the days the CUR covers only (a day without CUR lines is not compared), USD. */
  curUsd: number;
  ours: Record<TeamMethod, number>;
  differenceUsd: Record<TeamMethod, number>;
}

const perMethod = <T>(f: (m: TeamMethod) => T): Record<TeamMethod, T> =>
  Object.fromEntries(TEAM_METHOD_IDS.map((m) => [m, f(m)])) as Record<TeamMethod, T>;

const cents = (usd: number): number => toCents(usd) / 100;

/**
 * Per day and team, the CUR figure beside each method's and their differences; then the totals per team over the
 * days the CUR covers. `curByDay` holds only days with CUR split lines; `oursByDay` every day of the range.
 * Rows: by day, then teams largest CUR (else largest request share) first, idle last.
 */
export function compareTeamsWithCur(
  days: readonly string[],
  curByDay: ReadonlyMap<string, readonly TeamFigure[]>,
  oursByDay: Record<TeamMethod, ReadonlyMap<string, readonly TeamFigure[]>>,
): { rows: TeamCurRow[]; totals: TeamCurTotal[]; curDays: string[] } {
  const rows: TeamCurRow[] = [];
  const totals = new Map<string, TeamCurTotal>();
  const curDays = days.filter((d) => curByDay.has(d));
  for (const day of days) {
    const cur = curByDay.get(day);
    const keys = new Map<string, { kind: 'team' | 'idle'; team: string | null }>();
    // Each series' figures of the day by key, the first of a key as a search would find it (a day's lookups by
    // search were teams x figures key strings a series, 90 days of them per request).
    const indexed = (figures: readonly TeamFigure[] | undefined): Map<string, number> => {
      const out = new Map<string, number>();
      for (const f of figures ?? []) {
        const k = keyOf(f.kind, f.team);
        if (!keys.has(k)) keys.set(k, { kind: f.kind, team: f.team });
        if (!out.has(k)) out.set(k, f.usd);
      }
      return out;
    };
    const curAt = indexed(cur);
    const oursAt = perMethod((m) => indexed(oursByDay[m].get(day)));
    const dayRows: TeamCurRow[] = [...keys].map(([k, { kind, team }]) => {
      const ours = perMethod((m) => oursAt[m].get(k) ?? 0);
      const curUsd = cur === undefined ? null : (curAt.get(k) ?? 0);
      return {
        day,
        kind,
        team,
        curUsd,
        ours,
        differenceUsd: perMethod((m) => (curUsd === null ? null : cents(curUsd - ours[m]))),
      };
    });
    dayRows.sort(
      (a, b) =>
        Number(a.kind === 'idle') - Number(b.kind === 'idle') ||
        (b.curUsd ?? 0) - (a.curUsd ?? 0) ||
        b.ours['request-share'] - a.ours['request-share'] ||
        (a.team ?? '').localeCompare(b.team ?? ''),
    );
    rows.push(...dayRows);
    if (cur === undefined) continue;
    for (const r of dayRows) {
      const k = keyOf(r.kind, r.team);
      const t = totals.get(k) ?? { kind: r.kind, team: r.team, curUsd: 0, ours: perMethod(() => 0), differenceUsd: perMethod(() => 0) };
      t.curUsd = cents(t.curUsd + (r.curUsd ?? 0));
      for (const m of TEAM_METHOD_IDS) {
        t.ours[m] = cents(t.ours[m] + r.ours[m]);
        t.differenceUsd[m] = cents(t.curUsd - t.ours[m]);
      }
      totals.set(k, t);
    }
  }
  const sortedTotals = [...totals.values()].sort(
    (a, b) => Number(a.kind === 'idle') - Number(b.kind === 'idle') || b.curUsd - a.curUsd || (a.team ?? '').localeCompare(b.team ?? ''),
  );
  return { rows, totals: sortedTotals, curDays };
}

/**
 * The collected team of each namespace over the range (the one with the most pod-hours where a namespace's pods
 * carried several), so CUR namespaces are named by the same rule as our methods' rows.
 */
export function collectedTeams(rows: readonly { namespace: string; team: string | null; podHours: number }[]): Map<string, string | null> {
  const hours = new Map<string, Map<string | null, number>>();
  for (const r of rows) {
    const byTeam = hours.get(r.namespace) ?? new Map<string | null, number>();
    byTeam.set(r.team, (byTeam.get(r.team) ?? 0) + r.podHours);
    hours.set(r.namespace, byTeam);
  }
  const out = new Map<string, string | null>();
  for (const [ns, byTeam] of hours) {
    const best = [...byTeam].sort(
      (a, b) => b[1] - a[1] || Number(a[0] === null) - Number(b[0] === null) || (a[0] ?? '').localeCompare(b[0] ?? ''),
    )[0];
    out.set(ns, best[0]);
  }
  return out;
}
