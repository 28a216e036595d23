import type { AnalyticsEventsRepository } from '../../db/repositories/analytics-events-repository.js';
import type { DisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import {
  buildDisruptions,
  INTERRUPTION_MATCH_MS,
  pageDisruptions,
  REPLACEMENT_MATCH_MS,
  SAME_DISRUPTION_MS,
  sortReasonCounts,
  timelineMarkers,
  type Disruption,
  type DisruptionMarker,
  type DisruptionPage,
  type DisruptionPageQuery,
} from '../analytics/disruptions.js';
import { DAY_MS } from '../../core/time.js';

/**
 * Events are read a little beyond a range so that what pairs across its edge is whole: a Node/NodeClaim pair, a
 * replacement, a spot interruption warning and the termination minutes after it (else the range after the edge
 * lost the "spot interrupted" flag).
 */
export const EDGE_MS = Math.max(SAME_DISRUPTION_MS, REPLACEMENT_MATCH_MS, INTERRUPTION_MATCH_MS);
/**
 * A rebuild starts this long before the earliest change, so that what a late event or deletion changes near
 * that time is rebuilt whole. (A NodeClaim deleted long after its removal event is matched in SQL, however far.)
 */
export const REBUILD_LOOKBACK_MS = 24 * 3_600_000;
/** A long rebuild (the first one on a big database) goes a week at a time, so memory stays bounded. */
const REBUILD_CHUNK_MS = 7 * 24 * 3_600_000;

export interface DisruptionSource {
  /** Disruptions (and blocked attempts) in [fromMs, toMs), sorted as the analytics sort them. */
  inRange(fromMs: number, toMs: number): Disruption[];
  /** Timeline markers of the disruptions (not blocked attempts) in [fromMs, toMs) of one NodePool or all: see timelineMarkers. */
  markers(q: MarkerQuery): DisruptionMarker[];
  /** A page of the list, filtered, with the total and per-reason counts of every matching row. */
  page(q: DisruptionPageQuery): DisruptionPage;
}

export interface MarkerQuery {
  fromMs: number;
  toMs: number;
  bucketMs: number;
  nodePool?: string;
  max: number;
}

/** Built from the stored events and NodeClaims for the range asked (the whole work on every call). */
export function builtDisruptions(events: AnalyticsEventsRepository): DisruptionSource {
  const inRange = (fromMs: number, toMs: number): Disruption[] => {
    const read = { fromMs: fromMs - EDGE_MS, toMs: toMs + EDGE_MS };
    return buildDisruptions(events.disruptionEvents(read), events.goneNodeClaims(read)).filter((d) => d.atMs >= fromMs && d.atMs < toMs);
  };
  return {
    inRange,
    page: (q) => pageDisruptions(inRange(q.fromMs, q.toMs), q),
    markers: (q) =>
      timelineMarkers(
        inRange(q.fromMs, q.toMs).filter((d) => !d.blocked && (q.nodePool === undefined || d.nodePool === q.nodePool)),
        q.bucketMs,
        q.max,
      ),
  };
}

/**
 * Kept disruptions: before answering, rebuild what changed since the last answer (from a day before the earliest
 * changed event or NodeClaim, in week-long pieces), then read the range from the table. After a collection that
 * is the last day or so; the first answer on an existing database builds all of it once. Where the database
 * cannot be written (read-only file, full disk, a collector holding the lock too long) the answer is built for
 * the range asked instead, as before, so nothing is refused.
 */
export function keptDisruptions(
  events: AnalyticsEventsRepository,
  kept: DisruptionsRepository,
  hooks: {
    /** The kept disruptions could not be brought up to date (the answer is built for the range instead). */
    onError?: (err: unknown) => void;
    /** They were: rebuilt from `rebuiltFromMs`, `rows` disruptions written, in `ms`. */
    onRefresh?: (r: { rebuiltFromMs: number; rows: number; ms: number }) => void;
  } = {},
): DisruptionSource {
  const built = builtDisruptions(events);
  const rebuild = (dirtyFromMs: number): { fromMs: number; rows: Disruption[] } => {
    // Whole UTC days, so a rebuild and the ranges people ask for cut at the same places.
    const dayOf = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;
    const extent = kept.sourceExtentMs();
    const fromMs = dayOf(Math.max(dirtyFromMs - REBUILD_LOOKBACK_MS, extent?.oldestMs ?? 0));
    const untilMs = extent === null ? fromMs : extent.newestMs + 1;
    const rows: Disruption[] = [];
    for (let a = fromMs; a < untilMs; a += REBUILD_CHUNK_MS) rows.push(...built.inRange(a, Math.min(untilMs, a + REBUILD_CHUNK_MS)));
    return { fromMs, rows };
  };
  /** Brings the kept disruptions up to date; false when they cannot be (then build for the range instead). */
  const refreshed = (): boolean => {
    try {
      const t0 = performance.now();
      const r = kept.refresh(rebuild);
      if (r !== null) hooks.onRefresh?.({ ...r, ms: performance.now() - t0 });
      return true;
    } catch (err) {
      hooks.onError?.(err);
      return false;
    }
  };
  return {
    inRange: (fromMs, toMs) => (refreshed() ? kept.inRange({ fromMs, toMs }) : built.inRange(fromMs, toMs)),
    markers: (q) => (refreshed() ? timelineMarkers(kept.markerRows(q), q.bucketMs, q.max) : built.markers(q)),
    page: (q) => {
      if (!refreshed()) return built.page(q);
      const p = kept.page(q);
      return { rows: p.rows, total: p.total, counts: sortReasonCounts(p.counts) };
    },
  };
}
