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
  /**
   * The clusters an answer is of: the one asked for, else each cluster of the ledger (its own snapshots compared with
   * its own, never another cluster's); `named` when rows say their cluster (several clusters, none asked for).
   */
  const scope = (clusterId: number | null): { ids: (number | null)[]; names: Map<number, string>; named: boolean } => {
    const all = repo.clusters();
    const names = new Map(all.map((c) => [c.id, c.name]));
    if (clusterId !== null) return { ids: [clusterId], names, named: false };
    return all.length <= 1 ? { ids: [null], names, named: false } : { ids: all.map((c) => c.id), names, named: true };
  };
  const newest = (refs: (SnapshotRef | null)[]): SnapshotRef | null =>
    refs.reduce<SnapshotRef | null>((m, s) => (s !== null && (m === null || s.takenAtMs > m.takenAtMs) ? s : m), null);

  return {
    /** Instance types per NodePool at the snapshot at or before `at` (default the newest), each cluster's own. */
    mix(q: NodeMixQuery, clusterId: number | null = null): NodeMixResponse {
      const { ids, names, named } = scope(clusterId);
      const at = optionalInstant('at', q.at);
      const snaps = ids.map((id) => ({ id, s: repo.snapshotAtOrBefore(at, id) }));
      const rows = snaps.flatMap(({ id, s }) =>
        s === null ? [] : repo.mix(s.id, q.nodepool).map((r) => (named && id !== null ? { ...r, cluster: names.get(id) ?? '' } : r)),
      );
      return { snapshotAt: iso(newest(snaps.map((x) => x.s))), rows };
    },

    /**
     * The nodes that went and came between the last snapshot before `from` and the last before `to`, of each cluster
     * (counts and prices added over clusters, lists one after the other, at most `limit` in all).
     */
    changes(q: NodeChangesQuery, clusterId: number | null = null): NodeChangesResponse {
      const range = rangeOf(ctx, q);
      const limit = q.limit ?? NODE_CHANGES_LIST_MAX;
      const { ids } = scope(clusterId);
      const add = (x: NodeChangeSide, y: NodeChangeSide): NodeChangeSide => ({
        count: x.count + y.count,
        usdPerHour: x.usdPerHour + y.usdPerHour,
        nodes: [...x.nodes, ...y.nodes].slice(0, limit),
      });
      let removed = NO_CHANGE;
      let added = NO_CHANGE;
      const befores: (SnapshotRef | null)[] = [];
      const afters: (SnapshotRef | null)[] = [];
      for (const id of ids) {
        const before = repo.snapshotAtOrBefore(range.fromMs - 1, id);
        const after = repo.snapshotAtOrBefore(range.toMs - 1, id);
        befores.push(before);
        afters.push(after);
        if (before?.id === after?.id) continue;
        const changed = repo.changes(before?.id ?? null, after?.id ?? null, range.nodePool, limit);
        removed = add(removed, changed.removed);
        added = add(added, changed.added);
      }
      return { beforeAt: iso(newest(befores)), afterAt: iso(newest(afters)), removed, added };
    },
  };
}

export type NodeAggregatesService = ReturnType<typeof createNodeAggregatesService>;
