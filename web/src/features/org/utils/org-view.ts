import type { OrgRangeParams, OrgTeamLine, OrgTeamMethod, OrgTeams } from '../api/org-api';

/**
 * The organisation page's state in the URL and what it derives, pure: the range (the shared filters' `from`/`to`, UTC
 * days both inclusive, become the org routes' [from, to) days), the team method, the drill-down link into one
 * cluster's ledger, and the teams table's rows (a team per row, its cost in each cluster).
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
export const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
export const previousDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);

/** `?from=D1&to=D2` (inclusive) -> the org routes' { from: D1, to: D2 + 1 day }; anything else: the server's default. */
export function orgRangeOf(params: URLSearchParams): OrgRangeParams {
  const from = params.get('from');
  const to = params.get('to');
  if (from === null || to === null || !DAY.test(from) || !DAY.test(to) || to < from) return {};
  return { from, to: nextDay(to) };
}

export const ORG_TEAM_METHODS: readonly { value: OrgTeamMethod; label: string }[] = [
  { value: 'request-share', label: 'Request share' },
  { value: 'aws-split', label: 'AWS split' },
  { value: 'opencost', label: 'OpenCost' },
];

export function orgMethodOf(params: URLSearchParams): OrgTeamMethod {
  const m = params.get('method');
  return ORG_TEAM_METHODS.some((o) => o.value === m) ? (m as OrgTeamMethod) : 'request-share';
}

/** The one-ledger dashboard's Overview of one cluster over the answer's days ([from, to) -> inclusive `to`). */
export const drillDownHref = (cluster: string, fromDay: string, toDayExclusive: string): string =>
  `/?${new URLSearchParams({ cluster, from: fromDay, to: previousDay(toDayExclusive) })}`;

export interface OrgTeamRow {
  key: string;
  kind: OrgTeamLine['kind'];
  team: string | null;
  totalUsd: number;
  /** cluster -> its cost for this team (absent: the team has nothing there). */
  byCluster: Record<string, number>;
}

/** One row per team (idle last, as the server orders them), each cluster's cost beside the total. */
export function orgTeamRows(answer: OrgTeams): OrgTeamRow[] {
  const key = (t: OrgTeamLine): string => `${t.kind}:${t.team ?? ''}`;
  const rows = answer.teams.map((t) => ({
    key: key(t),
    kind: t.kind,
    team: t.team,
    totalUsd: t.costUsd,
    byCluster: {} as Record<string, number>,
  }));
  const byKey = new Map(rows.map((r) => [r.key, r]));
  for (const c of answer.clusters)
    for (const t of c.teams) {
      const row = byKey.get(key(t));
      if (row !== undefined) row.byCluster[c.cluster] = t.costUsd;
    }
  return rows;
}

/** A query's price as Athena bills it, with enough digits to show its 10 MB minimum (USD 0.00005). */
export const formatQueryUsd = (usd: number): string =>
  usd === 0 ? 'USD 0' : `USD ${usd < 0.01 ? String(Number(usd.toPrecision(2))) : usd.toFixed(2)}`;

/** Bytes in decimal units, as Athena bills them (10 MB = 10^7 bytes). */
export function formatScanBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${u === 0 ? v : Number(v.toFixed(v >= 100 ? 0 : 1))} ${units[u]}`;
}
