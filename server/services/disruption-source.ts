import type { DisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import {
  sortReasonCounts,
  thinMarkerGroups,
  timelineMarkers,
  type Disruption,
  type DisruptionMarker,
  type DisruptionPage,
  type DisruptionPageQuery,
} from '../analytics/disruptions.js';

/**
 * The disruptions the collector keeps (db/repositories/disruptions-repository.ts), read as they are: a GET never
 * builds or writes them. The Consolidation page and Explain this bill both read these rows.
 */
export interface DisruptionSource {
  /** Disruptions (and blocked attempts) in [fromMs, toMs) of one cluster or (null) every cluster, sorted as they were built. */
  inRange(fromMs: number, toMs: number, clusterId?: number | null): Disruption[];
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
  /** One cluster's (clusters.id); null or absent: every cluster's, each marker with its clusterId. */
  clusterId?: number | null;
  max: number;
}

export function keptDisruptions(kept: DisruptionsRepository): DisruptionSource {
  return {
    inRange: (fromMs, toMs, clusterId = null) => kept.inRange({ fromMs, toMs, clusterId }),
    // Counted in SQL per bucket first: a range of more disruptions than markers is read as its groups, not row by row.
    markers: (q) => {
      const groups = kept.markerGroups(q);
      let total = 0;
      for (const g of groups) total += g.count;
      return total <= q.max ? timelineMarkers(kept.markerRows(q), q.bucketMs, q.max) : thinMarkerGroups(groups, q.bucketMs, q.max);
    },
    page: (q) => {
      const p = kept.page(q);
      return { rows: p.rows, total: p.total, counts: sortReasonCounts(p.counts) };
    },
  };
}
