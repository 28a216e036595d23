import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import { compareWindows, timelineSeries } from '../analytics/before-after.js';
import type { Disruption } from '../analytics/disruptions.js';
import { chooseBucketMs } from '../analytics/efficiency.js';
import { eventIdTime, parseWindow } from '../analytics/query-params.js';
import { isoInstant, parseInstant, QueryParamError } from '../analytics/range.js';
import {
  DEFAULT_EVENTS_PAGE,
  type ConsolidationCompareQuery,
  type ConsolidationCompareResponse,
  type ConsolidationEventsQuery,
  type ConsolidationEventsResponse,
  type ConsolidationTimelineResponse,
  type DisruptionEvent,
} from '../schemas/consolidation.js';
import { NotFoundError, rangeOf, type RangeContext } from './analytics-range.js';
import type { DisruptionSource } from './disruption-source.js';
import { HOUR_MS } from '../../core/time.js';

const DEFAULT_WINDOW_MS = HOUR_MS;
/**
 * Points per timeline series and markers at most: a chart a screen wide shows no more. A day keeps its 5-minute
 * points (289), a week gets hourly ones and a month 3-hour ones: a month of hourly points for every NodePool made a
 * 1 MB answer, and of 2-hour ones (at 400) still missed the bench's p99 of 100 ms (npm run bench, store).
 */
export const TIMELINE_MAX_POINTS = 300;

const toEvent = (d: Disruption): DisruptionEvent => ({
  id: d.id,
  at: isoInstant(d.atMs),
  atMs: d.atMs,
  nodeName: d.nodeName,
  nodeClaim: d.nodeClaim,
  nodePool: d.nodePool,
  reason: d.reason,
  action: d.action,
  source: d.source,
  spotInterrupted: d.spotInterrupted,
  instanceType: d.instanceType,
  capacityType: d.capacityType,
  nodeDeletedAt: d.nodeDeletedAtMs === null ? null : isoInstant(d.nodeDeletedAtMs),
  replacements: d.replacements,
  message: d.message,
});

/** Disruption events, before/after comparison and the timeline. */
export function createConsolidationService(disruptions: DisruptionSource, packing: AnalyticsPackingRepository, ctx: RangeContext) {
  const disruptionsIn = (fromMs: number, toMs: number): Disruption[] => disruptions.inRange(fromMs, toMs);

  return {
    /** One page of the disruptions matching the filters (every one with `allRows`: the CSV download), counted in full. */
    events(q: ConsolidationEventsQuery, opts: { allRows?: boolean } = {}): ConsolidationEventsResponse {
      const range = rangeOf(ctx, q);
      const offset = opts.allRows === true ? 0 : (q.offset ?? 0);
      const page = disruptions.page({
        fromMs: range.fromMs,
        toMs: range.toMs,
        kind: q.kind ?? 'disruption',
        nodePool: range.nodePool,
        reason: q.reason,
        offset,
        limit: opts.allRows === true ? null : (q.limit ?? DEFAULT_EVENTS_PAGE),
      });
      return {
        from: isoInstant(range.fromMs),
        to: isoInstant(range.toMs),
        total: page.total,
        limit: opts.allRows === true ? page.total : (q.limit ?? DEFAULT_EVENTS_PAGE),
        offset,
        rows: page.rows.map(toEvent),
        counts: page.counts,
      };
    },

    /** Equal windows [at − window, at) and [at, at + window) around an event or a chosen instant. */
    compare(q: ConsolidationCompareQuery): ConsolidationCompareResponse {
      if (q.event === undefined && q.at === undefined)
        throw new QueryParamError('event', 'give event=<id from /api/consolidation/events> or at=<instant>');
      if (q.event !== undefined && q.at !== undefined) throw new QueryParamError('at', 'give either event or at, not both');
      const windowMs = q.window === undefined ? DEFAULT_WINDOW_MS : parseWindow('window', q.window);
      let event: Disruption | null = null;
      if (q.event !== undefined) {
        const t = eventIdTime('event', q.event);
        event = disruptionsIn(t, t + 1).find((d) => d.id === q.event) ?? null;
        if (event === null) throw new NotFoundError(`No disruption event "${q.event}": list them with /api/consolidation/events`);
      }
      const atMs = event?.atMs ?? parseInstant('at', q.at ?? '');
      const before = { fromMs: atMs - windowMs, toMs: atMs, nodePool: q.nodepool };
      const after = { fromMs: atMs, toMs: atMs + windowMs, nodePool: q.nodepool };
      const rows = compareWindows(
        { rows: packing.poolSums(before), hours: packing.coverage(before).hours },
        { rows: packing.poolSums(after), hours: packing.coverage(after).hours },
        event?.nodePool ?? null,
      );
      return {
        at: isoInstant(atMs),
        windowMs,
        before: { from: isoInstant(before.fromMs), to: isoInstant(before.toMs) },
        after: { from: isoInstant(after.fromMs), to: isoInstant(after.toMs) },
        event: event === null ? null : toEvent(event),
        rows,
      };
    },

    /** Efficiency and cost per hour per bucket (≤ TIMELINE_MAX_POINTS per series), with the disruptions marked. */
    timeline(q: { from?: string; to?: string; nodepool?: string }): ConsolidationTimelineResponse {
      const range = rangeOf(ctx, q);
      const bucketMs = chooseBucketMs(range.toMs - range.fromMs, TIMELINE_MAX_POINTS);
      const series = timelineSeries(packing.bucketSums({ ...range, bucketMs }), packing.bucketCoverage({ ...range, bucketMs }));
      const events = disruptions.markers({ ...range, bucketMs, max: TIMELINE_MAX_POINTS });
      return { from: isoInstant(range.fromMs), to: isoInstant(range.toMs), bucketMs, series, events };
    },
  };
}

export type ConsolidationService = ReturnType<typeof createConsolidationService>;
