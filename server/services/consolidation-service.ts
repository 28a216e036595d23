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

/** The ledger's clusters, by name (clusters-repository list()). */
export type ClusterList = () => readonly { id: number; name: string }[];

const toEvent = (d: Disruption, cluster?: string): DisruptionEvent => ({
  ...(cluster === undefined ? {} : { cluster }),
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

/**
 * Disruption events, before/after comparison and the timeline, of one cluster (`clusterId`) or of every cluster
 * (null): a ledger of several clusters then answers each cluster's rows, each naming its cluster (packing is never
 * summed across clusters); a ledger of one answers as before several clusters.
 */
export function createConsolidationService(
  disruptions: DisruptionSource,
  packing: AnalyticsPackingRepository,
  ctx: RangeContext,
  clusters: ClusterList = () => [],
) {
  /** Every cluster by name when the answer spans several (no cluster asked, several held); else null. */
  const spanned = (clusterId: number | null): readonly { id: number; name: string }[] | null => {
    if (clusterId !== null) return null;
    const all = clusters();
    return all.length > 1 ? [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : null;
  };
  const nameOf = (list: readonly { id: number; name: string }[] | null, id: number | undefined): string | undefined =>
    list === null ? undefined : list.find((c) => c.id === id)?.name;

  return {
    /** One page of the disruptions matching the filters (every one with `allRows`: the CSV download), counted in full. */
    events(q: ConsolidationEventsQuery, opts: { allRows?: boolean; clusterId?: number | null } = {}): ConsolidationEventsResponse {
      const clusterId = opts.clusterId ?? null;
      const range = rangeOf(ctx, q, clusterId);
      const offset = opts.allRows === true ? 0 : (q.offset ?? 0);
      const page = disruptions.page({
        fromMs: range.fromMs,
        toMs: range.toMs,
        kind: q.kind ?? 'disruption',
        nodePool: range.nodePool,
        reason: q.reason,
        clusterId,
        offset,
        limit: opts.allRows === true ? null : (q.limit ?? DEFAULT_EVENTS_PAGE),
      });
      const named = spanned(clusterId);
      return {
        from: isoInstant(range.fromMs),
        to: isoInstant(range.toMs),
        total: page.total,
        limit: opts.allRows === true ? page.total : (q.limit ?? DEFAULT_EVENTS_PAGE),
        offset,
        rows: page.rows.map((d) => toEvent(d, nameOf(named, d.clusterId))),
        counts: page.counts,
      };
    },

    /** Equal windows [at − window, at) and [at, at + window) around an event or a chosen instant. */
    compare(q: ConsolidationCompareQuery, clusterId: number | null = null): ConsolidationCompareResponse {
      if (q.event === undefined && q.at === undefined)
        throw new QueryParamError('event', 'give event=<id from /api/consolidation/events> or at=<instant>');
      if (q.event !== undefined && q.at !== undefined) throw new QueryParamError('at', 'give either event or at, not both');
      const windowMs = q.window === undefined ? DEFAULT_WINDOW_MS : parseWindow('window', q.window);
      const named = spanned(clusterId);
      let event: Disruption | null = null;
      if (q.event !== undefined) {
        const t = eventIdTime('event', q.event);
        // Ids are unique within a cluster: another cluster's event of the same id is not this cluster's.
        const found = disruptions.page({ fromMs: t, toMs: t + 1, kind: 'all', clusterId, offset: 0, limit: null });
        event = found.rows.find((d) => d.id === q.event) ?? null;
        if (event === null) throw new NotFoundError(`No disruption event "${q.event}": list them with /api/consolidation/events`);
      }
      const atMs = event?.atMs ?? parseInstant('at', q.at ?? '');
      const before = { fromMs: atMs - windowMs, toMs: atMs, nodePool: q.nodepool };
      const after = { fromMs: atMs, toMs: atMs + windowMs, nodePool: q.nodepool };
      const rowsOf = (id: number | null, cluster?: string) =>
        compareWindows(
          { rows: packing.poolSums({ ...before, clusterId: id }), hours: packing.coverage({ ...before, clusterId: id }).hours },
          { rows: packing.poolSums({ ...after, clusterId: id }), hours: packing.coverage({ ...after, clusterId: id }).hours },
          event?.nodePool ?? null,
        ).map((r) => (cluster === undefined ? r : { cluster, ...r }));
      // An event's windows are its own cluster's; an instant under "All clusters" of several: each cluster's rows.
      const rows =
        event !== null
          ? rowsOf(event.clusterId ?? clusterId, nameOf(named, event.clusterId))
          : named === null
            ? rowsOf(clusterId)
            : named.flatMap((c) => rowsOf(c.id, c.name));
      return {
        at: isoInstant(atMs),
        windowMs,
        before: { from: isoInstant(before.fromMs), to: isoInstant(before.toMs) },
        after: { from: isoInstant(after.fromMs), to: isoInstant(after.toMs) },
        event: event === null ? null : toEvent(event, nameOf(named, event.clusterId)),
        rows,
      };
    },

    /** Efficiency and cost per hour per bucket (≤ TIMELINE_MAX_POINTS per series), with the disruptions marked. */
    timeline(q: { from?: string; to?: string; nodepool?: string }, clusterId: number | null = null): ConsolidationTimelineResponse {
      const range = rangeOf(ctx, q, clusterId);
      const bucketMs = chooseBucketMs(range.toMs - range.fromMs, TIMELINE_MAX_POINTS);
      const seriesOf = (id: number | null) =>
        timelineSeries(
          packing.bucketSums({ ...range, clusterId: id, bucketMs }),
          packing.bucketCoverage({ ...range, clusterId: id, bucketMs }),
        );
      const named = spanned(clusterId);
      const markers = disruptions.markers({ ...range, bucketMs, max: TIMELINE_MAX_POINTS });
      const events = markers.map(({ clusterId: id, ...m }) => {
        const cluster = nameOf(named, id);
        return cluster === undefined ? m : { cluster, ...m };
      });
      const head = { from: isoInstant(range.fromMs), to: isoInstant(range.toMs), bucketMs };
      if (named === null) return { ...head, series: seriesOf(clusterId), events };
      // Several clusters: each one's series (packing is per cluster), and nodes and cost per hour summed per bucket.
      const series = named.flatMap((c) => seriesOf(c.id).map((sr) => ({ cluster: c.name, ...sr })));
      const totals = new Map<number, { tMs: number; nodesAvg: number; usdPerHourAvg: number }>();
      for (const sr of series)
        if (sr.scope === 'cluster')
          for (const p of sr.points) {
            const t = totals.get(p.tMs) ?? { tMs: p.tMs, nodesAvg: 0, usdPerHourAvg: 0 };
            t.nodesAvg += p.nodesAvg;
            t.usdPerHourAvg += p.usdPerHourAvg;
            totals.set(p.tMs, t);
          }
      return { ...head, series, totals: [...totals.values()].sort((a, b) => a.tMs - b.tMs), events };
    },
  };
}

export type ConsolidationService = ReturnType<typeof createConsolidationService>;
