import type { Db } from '../open-db.js';

/**
 * Each NodePool's disruption settings over time (issue 23: the packing-drop rule names the edit that preceded a fall),
 * read from the versioned NodePool objects migration 0019 keeps: every distinct spec a snapshot saw, with the snapshot
 * time it was first seen. A version is a settings change only when spec.disruption differs from the version before it
 * (an edit of requirements or limits is not one).
 */

export interface NodePoolDisruptionSettings {
  nodePool: string;
  /** The snapshot that first saw these settings. */
  firstSeenMs: number;
  /** spec.disruption as served, each field absent when the object left it out (the API server's defaults apply). */
  consolidationPolicy: string | null;
  consolidateAfter: string | null;
  budgets: unknown[] | null;
}

interface Row {
  name: string;
  first_seen: number;
  body_json: string;
}

const disruptionOf = (json: string): Omit<NodePoolDisruptionSettings, 'nodePool' | 'firstSeenMs'> => {
  let spec: { disruption?: { consolidationPolicy?: unknown; consolidateAfter?: unknown; budgets?: unknown } } = {};
  try {
    spec = (JSON.parse(json) as { spec?: typeof spec }).spec ?? {};
  } catch {
    spec = {};
  }
  const d = spec.disruption ?? {};
  return {
    consolidationPolicy: typeof d.consolidationPolicy === 'string' ? d.consolidationPolicy : null,
    consolidateAfter: typeof d.consolidateAfter === 'string' ? d.consolidateAfter : null,
    budgets: Array.isArray(d.budgets) ? (d.budgets as unknown[]) : null,
  };
};

const sameSettings = (a: NodePoolDisruptionSettings, b: NodePoolDisruptionSettings): boolean =>
  a.consolidationPolicy === b.consolidationPolicy &&
  a.consolidateAfter === b.consolidateAfter &&
  JSON.stringify(a.budgets) === JSON.stringify(b.budgets);

export function createNodePoolSettingsRepository(db: Db) {
  // Every NodePool version seen up to `to`, oldest first (a handful per NodePool: one per edit of its spec).
  const versions = db.prepare(`
    SELECT v.name, v.first_seen, b.body_json
    FROM kube_object_versions v JOIN kube_object_bodies b ON b.hash = v.hash
    WHERE v.kind = 'NodePool' AND v.namespace = '' AND v.first_seen <= @toMs AND (@clusterId IS NULL OR v.cluster_id = @clusterId)
    ORDER BY v.name, v.first_seen`);
  return {
    /**
     * Each NodePool's settings as they changed, up to `toMs`: its first stored version, then each later one whose
     * disruption settings differ from the one before.
     */
    history(toMs: number, clusterId: number | null = null): NodePoolDisruptionSettings[] {
      const out: NodePoolDisruptionSettings[] = [];
      let last: NodePoolDisruptionSettings | null = null;
      for (const r of versions.all({ toMs, clusterId }) as Row[]) {
        const s: NodePoolDisruptionSettings = { nodePool: r.name, firstSeenMs: r.first_seen, ...disruptionOf(r.body_json) };
        if (last !== null && last.nodePool === s.nodePool && sameSettings(last, s)) continue;
        out.push(s);
        last = s;
      }
      return out;
    },
  };
}
