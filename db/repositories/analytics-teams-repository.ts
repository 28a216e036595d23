import type { Db } from '../open-db';
import { WEIGHTED_SNAPSHOTS_CTE } from './analytics-intervals';
import type { AnalyticsRange } from './analytics-packing-repository';

/**
 * Read SQL behind team attribution: the per-namespace rollup summed over a range (hours-weighted, with the
 * same snapshot weights as the NodePool sums, so team lines and node cost share one time base) and the
 * namespaces' labels (to name teams by another label than the one collected).
 */

export interface NamespaceSumsRow {
  namespace: string;
  nodePool: string;
  team: string | null;
  /** Σ stored request-share cost (cpu/memory 50/50) × hours, USD. */
  requestShareUsd: number;
  /** Σ cpu share × price × hours, USD, over rows that recorded it (likewise memory, AWS split). */
  cpuShareUsd: number;
  memoryShareUsd: number;
  awsSplitUsd: number;
  /** Σ stored 50/50 cost × hours of rows without the per-resource columns (written before migration 0003). */
  legacyRequestShareUsd: number;
}

interface RawNamespaceSums {
  namespace: string; nodepool: string; team: string | null; request_share_usd: number; cpu_share_usd: number;
  memory_share_usd: number; aws_split_usd: number; legacy_usd: number;
}

export function createAnalyticsTeamsRepository(db: Db) {
  // A namespace's team is the one recorded at its newest snapshot in the range (a relabel mid-range moves all of
  // it): with a single MAX() aggregate, SQLite takes the bare column `team` from the row holding the maximum.
  const namespaceSums = db.prepare(`
    WITH ${WEIGHTED_SNAPSHOTS_CTE}
    SELECT n.namespace, n.nodepool, n.team, MAX(w.taken_at) AS newest,
           TOTAL(w.hours * n.usd_per_hour) AS request_share_usd,
           TOTAL(w.hours * n.cpu_share_usd_per_hour) AS cpu_share_usd,
           TOTAL(w.hours * n.memory_share_usd_per_hour) AS memory_share_usd,
           TOTAL(w.hours * n.aws_split_usd_per_hour) AS aws_split_usd,
           TOTAL(CASE WHEN n.cpu_share_usd_per_hour IS NULL THEN w.hours * n.usd_per_hour ELSE 0 END) AS legacy_usd
    FROM w JOIN snapshot_namespaces n ON n.snapshot_id = w.id
    WHERE (@nodePool IS NULL OR n.nodepool = @nodePool)
    GROUP BY n.namespace, n.nodepool
    ORDER BY n.namespace, n.nodepool`);

  const namespaceLabels = db.prepare('SELECT name, labels_json FROM namespaces ORDER BY name');

  return {
    /** Per namespace x NodePool over [fromMs, toMs). */
    namespaceSums(range: AnalyticsRange): NamespaceSumsRow[] {
      return (namespaceSums.all({ fromMs: range.fromMs, toMs: range.toMs, nodePool: range.nodePool ?? null }) as RawNamespaceSums[]).map((r) => ({
        namespace: r.namespace, nodePool: r.nodepool, team: r.team, requestShareUsd: r.request_share_usd, cpuShareUsd: r.cpu_share_usd,
        memoryShareUsd: r.memory_share_usd, awsSplitUsd: r.aws_split_usd, legacyRequestShareUsd: r.legacy_usd,
      }));
    },

    /** Labels of every namespace seen (unparseable JSON reads as no labels). */
    namespaceLabels(): Map<string, Record<string, string>> {
      const out = new Map<string, Record<string, string>>();
      for (const r of namespaceLabels.all() as { name: string; labels_json: string }[]) {
        out.set(r.name, parseLabels(r.labels_json));
      }
      return out;
    },
  };
}

function parseLabels(json: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(json);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

export type AnalyticsTeamsRepository = ReturnType<typeof createAnalyticsTeamsRepository>;
