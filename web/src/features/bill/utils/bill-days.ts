import type { BillGroupBy, BillLine } from '@schemas/bill';
import type { ParamUpdates } from '../../../lib/url-params';

/**
 * The bill page's URL state:
 *   ?mode=practice&seed=3       practice mode, question 3 (default: your bill)
 *   ?source=csv:costs&day=2026-11-09&groupBy=INSTANCE_TYPE   which stored bill, which UTC day, which grouping
 *   &line=42                    the expanded line
 *   ?mode=cur&day=2026-11-09&resource=i-0abc,vol-0def   the CUR's resource lines of a day, those expanded
 */
export interface BillPageState {
  mode: 'bill' | 'practice' | 'cur';
  source: string | undefined;
  day: string | undefined;
  groupBy: BillGroupBy | undefined;
  /** Expanded line ids. */
  lines: number[];
  /** Expanded CUR resource ids (mode cur). */
  resources: string[];
  seed: number;
}

const GROUP_BYS: readonly BillGroupBy[] = ['PURCHASE_TYPE', 'INSTANCE_TYPE', 'RESOURCE_ID', 'USAGE_TYPE', 'NONE'];
const SOURCE_RE = /^(cost-explorer|csv:[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const RESOURCE_RE = /^[A-Za-z0-9][A-Za-z0-9:/._-]{0,199}$/;

export function parseBillPage(params: URLSearchParams): BillPageState {
  const source = params.get('source');
  const day = params.get('day');
  const seedText = params.get('seed');
  const seed = seedText === null || seedText === '' ? NaN : Number(seedText);
  return {
    mode: params.get('mode') === 'practice' ? 'practice' : params.get('mode') === 'cur' ? 'cur' : 'bill',
    source: source !== null && SOURCE_RE.test(source) ? source : undefined,
    day: day !== null && DAY_RE.test(day) ? day : undefined,
    groupBy: GROUP_BYS.find((g) => g === params.get('groupBy')),
    lines: (params.get('line') ?? '')
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
    resources: (params.get('resource') ?? '').split(',').filter((r) => RESOURCE_RE.test(r)),
    seed: Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31 ? seed : 1,
  };
}

/** Expanding a line adds it to `line=`; collapsing removes it. */
export function toggleLineUpdates(state: BillPageState, id: number): ParamUpdates {
  const lines = state.lines.includes(id) ? state.lines.filter((l) => l !== id) : [...state.lines, id];
  return { line: lines.length === 0 ? undefined : lines.join(',') };
}

/** Expanding a CUR resource adds it to `resource=`; collapsing removes it. */
export function toggleResourceUpdates(state: BillPageState, id: string): ParamUpdates {
  const resources = state.resources.includes(id) ? state.resources.filter((r) => r !== id) : [...state.resources, id];
  return { resource: resources.length === 0 ? undefined : resources.join(',') };
}

/** The UTC days the lines cover (by period start), newest last. */
export function lineDays(lines: readonly BillLine[]): string[] {
  return [...new Set(lines.map((l) => l.periodStart.slice(0, 10)))].sort();
}

/** The day to show: the one asked for if the bill has it, else the newest. */
export function pickDay(days: readonly string[], wanted: string | undefined): string | undefined {
  return wanted !== undefined && days.includes(wanted) ? wanted : days[days.length - 1];
}

export interface DayBill {
  lines: BillLine[];
  totalUsd: number;
  /**
   * Σ per NodePool ('' = untagged), largest first; per cluster and NodePool when the lines name their cluster (two
   * clusters' `default` are two totals).
   */
  byNodePool: { nodePool: string; cluster?: string; usd: number }[];
  anyEstimated: boolean;
}

/** The lines of one UTC day with their totals. */
export function dayBill(lines: readonly BillLine[], day: string | undefined): DayBill {
  const of = day === undefined ? [] : lines.filter((l) => l.periodStart.slice(0, 10) === day);
  const pools = new Map<string, { nodePool: string; cluster?: string; usd: number }>();
  for (const l of of) {
    const k = l.cluster === undefined ? l.nodePool : `${l.cluster}\u0000${l.nodePool}`;
    const t = pools.get(k) ?? { nodePool: l.nodePool, ...(l.cluster === undefined ? {} : { cluster: l.cluster }), usd: 0 };
    pools.set(k, { ...t, usd: t.usd + l.unblendedUsd });
  }
  return {
    lines: of,
    totalUsd: of.reduce((s, l) => s + l.unblendedUsd, 0),
    byNodePool: [...pools.values()].sort(
      (a, b) => b.usd - a.usd || a.nodePool.localeCompare(b.nodePool) || (a.cluster ?? '').localeCompare(b.cluster ?? ''),
    ),
    anyEstimated: of.some((l) => l.estimated),
  };
}

const GROUP_BY_LABEL: Record<BillGroupBy, string> = {
  PURCHASE_TYPE: 'Purchase type',
  INSTANCE_TYPE: 'Instance type',
  RESOURCE_ID: 'Instance',
  USAGE_TYPE: 'Storage and network (EC2 - Other)',
  NONE: 'NodePool only',
};
export const groupByLabel = (g: BillGroupBy): string => GROUP_BY_LABEL[g];

/** A source for a picker: "Cost Explorer (synced)" or "costs.csv (imported)". */
export function sourceLabel(s: { source: string; fileName: string | null }): string {
  if (s.source === 'cost-explorer') return 'Cost Explorer (synced)';
  return `${s.fileName ?? s.source.slice(4)} (imported)`;
}
