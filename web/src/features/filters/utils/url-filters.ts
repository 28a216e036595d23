import type { CostMetric } from '@schemas/cost';
import type { ParamUpdates } from '../../../lib/url-params';
import { DAY_MS } from '../../../lib/time';

/**
 * The filters every page shares, kept in the URL so a link shows the same view:
 *   ?range=7d                       the last 7 days of the data (presets: 1d 7d 14d 30d 90d)
 *   ?from=2026-11-03&to=2026-11-05  UTC days, both inclusive (three days here)
 *   &nodepool=general               one NodePool ('' = all)
 *   &team=payments                  one team (the Teams page)
 *   &cluster=staging                one cluster of the ledger (absent: all clusters; lib/cluster.ts)
 *   &metric=unblended               the Cost Explorer metric of bill figures (unset = the server's default: amortized
 *                                   when commitments apply, else unblended)
 * Presets end at the newest data, not at "now": sandbox data and an idle collector sit in the past.
 */

export const RANGE_PRESET_DAYS = [1, 7, 14, 30, 90] as const;
export type RangePresetDays = (typeof RANGE_PRESET_DAYS)[number];
export const DEFAULT_PRESET_DAYS: RangePresetDays = 7;

export type RangeChoice =
  | { kind: 'preset'; days: RangePresetDays }
  /** `fromDay` and `toDay` are YYYY-MM-DD UTC days, both inclusive. */
  | { kind: 'custom'; fromDay: string; toDay: string };

export interface Filters {
  range: RangeChoice;
  nodePool: string | undefined;
  team: string | undefined;
  /** The bill's cost metric; undefined = the server's default. */
  metric: CostMetric | undefined;
}

/** The query keys a link to another page carries over. */
export const FILTER_KEYS = ['range', 'from', 'to', 'nodepool', 'team', 'metric', 'cluster'] as const;

export const COST_METRICS: readonly { value: CostMetric; label: string }[] = [
  { value: 'amortized', label: 'Amortized' },
  { value: 'unblended', label: 'Unblended' },
  { value: 'net-amortized', label: 'Net amortized' },
  { value: 'net-unblended', label: 'Net unblended' },
];

const parseMetric = (text: string | null): CostMetric | undefined => COST_METRICS.find((m) => m.value === text)?.value;

/** The bill query of a bill route: the range query with the metric when one is chosen. */
export function withMetric<Q extends object>(
  query: Q | undefined,
  metric: CostMetric | undefined,
): (Q & { metric?: CostMetric }) | undefined {
  if (query === undefined) return undefined;
  return metric === undefined ? query : { ...query, metric };
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isDay(text: string | null): text is string {
  if (text === null || !DAY_RE.test(text)) return false;
  const t = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === text;
}

/** Filters from the query string; anything malformed falls back to the default (7 days, all NodePools). */
export function parseFilters(params: URLSearchParams): Filters {
  const nodePool = params.get('nodepool') ?? '';
  const team = params.get('team') ?? '';
  return {
    range: parseRange(params),
    nodePool: nodePool === '' ? undefined : nodePool,
    team: team === '' ? undefined : team,
    metric: parseMetric(params.get('metric')),
  };
}

function parseRange(params: URLSearchParams): RangeChoice {
  const fromDay = params.get('from');
  const toDay = params.get('to');
  if (isDay(fromDay) && isDay(toDay) && fromDay <= toDay) return { kind: 'custom', fromDay, toDay };
  const preset = /^(\d+)d$/.exec(params.get('range') ?? '');
  const days = Number(preset?.[1]);
  const known = RANGE_PRESET_DAYS.find((d) => d === days);
  return { kind: 'preset', days: known ?? DEFAULT_PRESET_DAYS };
}

/** The URL edits for a range choice (a preset clears from/to and the other way round). */
export function rangeUpdates(range: RangeChoice): ParamUpdates {
  return range.kind === 'preset'
    ? { range: range.days === DEFAULT_PRESET_DAYS ? undefined : `${range.days}d`, from: undefined, to: undefined }
    : { range: undefined, from: range.fromDay, to: range.toDay };
}

/** An instant range for the API: `from` inclusive, `to` exclusive, ISO 8601 UTC. */
export interface InstantRange {
  from: string;
  to: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The range as API instants. A preset ends at `dataEndIso` (the status route's defaultRange.to, the UTC
 * midnight after the newest data); a custom range runs from its first day's midnight to the midnight
 * after its last day. Undefined for a preset while the data end is unknown.
 */
export function resolveRange(range: RangeChoice, dataEndIso: string | undefined): InstantRange | undefined {
  if (range.kind === 'custom') {
    return { from: `${range.fromDay}T00:00:00.000Z`, to: iso(Date.parse(`${range.toDay}T00:00:00Z`) + DAY_MS) };
  }
  if (dataEndIso === undefined) return undefined;
  const toMs = Date.parse(dataEndIso);
  return { from: iso(toMs - range.days * DAY_MS), to: iso(toMs) };
}

/** The range of equal length just before `r`: "this period vs the previous". */
export function previousRange(r: InstantRange): InstantRange {
  const fromMs = Date.parse(r.from);
  const toMs = Date.parse(r.to);
  return { from: iso(fromMs - (toMs - fromMs)), to: iso(fromMs) };
}

/** Days in a range (rounded), for labels like "7 days". */
export const rangeDays = (r: InstantRange): number => Math.round((Date.parse(r.to) - Date.parse(r.from)) / DAY_MS);

/** "Nov 3 – Nov 5" style label input: the inclusive last day of an instant range. */
export const lastDayOf = (r: InstantRange): string => iso(Date.parse(r.to) - DAY_MS).slice(0, 10);

export interface StatusLike {
  isPending: boolean;
  data?: { defaultRange: { to: string } };
}

/**
 * The from / to / nodepool query for the API routes, or undefined while the status (which knows where
 * the data ends) is loading. When the status failed, presets fall back to the server's default range ({}).
 */
export function rangeQuery(filters: Filters, status: StatusLike): { from?: string; to?: string; nodepool?: string } | undefined {
  if (status.isPending && filters.range.kind === 'preset') return undefined;
  const range = resolveRange(filters.range, status.data?.defaultRange.to) ?? {};
  return filters.nodePool === undefined ? range : { ...range, nodepool: filters.nodePool };
}
