import type { ApiQuery } from '@schemas/api-routes';
import type { CompareRow } from '@schemas/consolidation';
import type { ParamUpdates } from '../../../lib/url-params';

/**
 * The Consolidation page's URL state (beside the shared range and NodePool):
 *   ?event=1793523600000-general-5xzjd   compare around this disruption
 *   ?at=2026-11-09T10:00:00.000Z         or around this instant (a click on the timeline)
 *   &window=1h                           length of each window (before and after)
 *   &reason=Underutilized                only these events in the list
 */
export interface CompareState {
  event: string | undefined;
  at: string | undefined;
  window: WindowChoice;
  reason: DisruptionReason | undefined;
}

/** A reason /api/consolidation/events filters by. */
export type DisruptionReason = NonNullable<ApiQuery<'/api/consolidation/events'>['reason']>;
/** Every reason the API takes (a reason it no longer takes is a compile error here). */
export const DISRUPTION_REASONS: readonly DisruptionReason[] = ['Underutilized', 'Empty', 'Drifted', 'Expired', 'Interrupted'];

export const WINDOWS = ['15m', '30m', '1h', '3h', '6h', '24h'] as const;
export type WindowChoice = (typeof WINDOWS)[number];

const EVENT_RE = /^[0-9]{1,16}-[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export function parseCompare(params: URLSearchParams): CompareState {
  const event = params.get('event');
  const at = params.get('at');
  const reason = params.get('reason');
  const validEvent = event !== null && EVENT_RE.test(event) ? event : undefined;
  return {
    event: validEvent,
    // An event wins over an instant: it carries its own time.
    at: validEvent === undefined && at !== null && Number.isFinite(Date.parse(at)) && /Z$/.test(at) ? at : undefined,
    window: WINDOWS.find((w) => w === params.get('window')) ?? '1h',
    reason: DISRUPTION_REASONS.find((r) => r === reason),
  };
}

/** The instant being compared, to mark on the timeline: the chosen one, or the event's (its id starts with its epoch ms). */
export function selectedInstantMs(state: CompareState): number | undefined {
  if (state.at !== undefined) return Date.parse(state.at);
  const ms = state.event === undefined ? NaN : Number(state.event.split('-')[0]);
  return Number.isFinite(ms) ? ms : undefined;
}

export const pickEventUpdates = (id: string): ParamUpdates => ({ event: id, at: undefined });
/** A click on the timeline: compare around the clicked bucket, rounded to the minute. */
export const pickTimeUpdates = (tMs: number): ParamUpdates => ({
  at: new Date(Math.round(tMs / 60_000) * 60_000).toISOString(),
  event: undefined,
});

/**
 * The range whose node changes are listed (/api/nodes/changes): from the compared instant (its last snapshot before
 * it) to the end of the after window (its last snapshot before that).
 */
export function nodeChangesRange(compare: { at: string; after: { to: string } }): { from: string; to: string } {
  return { from: compare.at, to: compare.after.to };
}

export type CompareMetric = 'nodes' | 'usdPerHour' | 'cpu' | 'memory';

export interface CompareBar {
  metric: CompareMetric;
  label: string;
  before: number | null;
  after: number | null;
  /** 'percent' values are 0..100. */
  unit: 'count' | 'usd' | 'percent';
}

/** The four before/after pairs of one comparison row, efficiency as percent. */
export function compareBars(row: CompareRow): CompareBar[] {
  const pct = (v: number | null) => (v === null ? null : v * 100);
  return [
    { metric: 'nodes', label: 'Nodes (average)', before: row.before.nodesAvg, after: row.after.nodesAvg, unit: 'count' },
    { metric: 'usdPerHour', label: 'Cost per hour', before: row.before.usdPerHourAvg, after: row.after.usdPerHourAvg, unit: 'usd' },
    { metric: 'cpu', label: 'CPU packed', before: pct(row.before.cpu), after: pct(row.after.cpu), unit: 'percent' },
    { metric: 'memory', label: 'Memory packed', before: pct(row.before.memory), after: pct(row.after.memory), unit: 'percent' },
  ];
}

/** The row to chart: the filtered NodePool's, else the consolidated NodePool's when comparing an event, else the cluster's. */
export function focusRow(rows: readonly CompareRow[], nodePool: string | undefined): CompareRow | undefined {
  if (nodePool !== undefined) {
    const own = rows.find((r) => r.scope === 'nodepool' && r.nodePool === nodePool);
    if (own !== undefined) return own;
  }
  return rows.find((r) => r.scope === 'cluster') ?? rows[0];
}
