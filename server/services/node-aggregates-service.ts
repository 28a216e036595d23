import type { NodeAggregatesRepository, SnapshotRef } from '../../db/repositories/node-aggregates-repository.js';
import { isoInstant } from '../analytics/range.js';
import {
  NODE_CHANGES_LIST_MAX,
  type NodeChangeSide,
  type NodeChangesQuery,
  type NodeChangesResponse,
  type NodeMixQuery,
  type NodeMixResponse,
} from '../schemas/node-aggregates.js';
import { optionalInstant, rangeOf, type RangeContext } from './analytics-range.js';

const NO_CHANGE: NodeChangeSide = { count: 0, usdPerHour: 0, nodes: [] };
const iso = (s: SnapshotRef | null): string | null => (s === null ? null : isoInstant(s.takenAtMs));

/** Aggregates over the nodes of a snapshot, so the dashboard never asks for every node to count them itself. */
export function createNodeAggregatesService(repo: NodeAggregatesRepository, ctx: RangeContext) {
  return {
    /** Instance types per NodePool at the snapshot at or before `at` (default the newest). */
    mix(q: NodeMixQuery): NodeMixResponse {
      const s = repo.snapshotAtOrBefore(optionalInstant('at', q.at));
      return { snapshotAt: iso(s), rows: s === null ? [] : repo.mix(s.id, q.nodepool) };
    },

    /** The nodes that went and came between the last snapshot before `from` and the last before `to`. */
    changes(q: NodeChangesQuery): NodeChangesResponse {
      const range = rangeOf(ctx, q);
      const limit = q.limit ?? NODE_CHANGES_LIST_MAX;
      const before = repo.snapshotAtOrBefore(range.fromMs - 1);
      const after = repo.snapshotAtOrBefore(range.toMs - 1);
      const side = (a: SnapshotRef | null, b: SnapshotRef | null): NodeChangeSide =>
        a === null || a.id === b?.id ? NO_CHANGE : repo.missingFrom(a.id, b?.id ?? null, range.nodePool, limit);
      return { beforeAt: iso(before), afterAt: iso(after), removed: side(before, after), added: side(after, before) };
    },
  };
}

export type NodeAggregatesService = ReturnType<typeof createNodeAggregatesService>;
