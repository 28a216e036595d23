import type { Db } from '../open-db.js';
import type { AnalyticsRange } from './analytics-packing-repository.js';
import { createRangeRollupReader, type NamespaceSumsArray, withBucketStart } from './range-rollups.js';

/**
 * Read SQL behind team attribution: the per-namespace rollup summed over a range (hours-weighted, with the
 * same snapshot weights as the NodePool sums, so team lines and node cost share one time base) and the
 * namespaces' labels (to name teams by another label than the one collected).
 */

/** Hours-weighted sums of one namespace x NodePool over the range, USD. */
export interface NamespaceSumsRow {
  namespace: string;
  nodePool: string;
  /** Team as collected (pod label, else namespace label); null when unlabelled. */
  team: string | null;
  /** Σ stored request-share cost (cpu/memory 50/50) × hours, USD. */
  requestShareUsd: number;
  /** Σ cpu share × price × hours, USD, over rows that recorded it (likewise memory). */
  cpuShareUsd: number;
  memoryShareUsd: number;
  /** Σ stored 50/50 cost × hours of rows without the per-resource columns (written before migration 0003). */
  legacyRequestShareUsd: number;
  /** Σ AWS split cost, AWS unused cost and OpenCost workload cost × hours, USD, over rows that recorded them. */
  awsSplitCostUsd: number;
  awsUnusedCostUsd: number;
  openCostUsd: number;
  /** Σ stored 50/50 cost × hours of rows without the AWS split and OpenCost figures (written before migration 0010). */
  legacyMethodsUsd: number;
  /** Σ pods × hours, and Σ pods whose usage fed AWS split and OpenCost × hours (rows since migration 0010). */
  podHours: number;
  usagePodHours: number;
}

export interface BucketNamespaceSumsRow extends NamespaceSumsRow {
  /** Start of the bucket, epoch ms UTC. */
  bucketStartMs: number;
}

/**
 * A namespace-sums row of the rollup reader's arrays, its columns from `at` (0, or 1 after a bucket's start): namespace,
 * nodepool, team, newest, then the NAMESPACE_WEIGHTED columns in order. Mapped once from the array: through the
 * reader's row objects each row of a 90-day series was made three times.
 */
const namespaceSumsRow = (a: NamespaceSumsArray, at: number): NamespaceSumsRow => {
  const n = (i: number): number => a[at + 4 + i] as number;
  return {
    namespace: a[at] as string,
    nodePool: a[at + 1] as string,
    team: a[at + 2] as string | null,
    requestShareUsd: n(0),
    cpuShareUsd: n(1),
    memoryShareUsd: n(2),
    legacyRequestShareUsd: n(3),
    awsSplitCostUsd: n(4),
    awsUnusedCostUsd: n(5),
    openCostUsd: n(6),
    legacyMethodsUsd: n(7),
    podHours: n(8),
    usagePodHours: n(9),
  };
};

export function createAnalyticsTeamsRepository(db: Db) {
  // Hour and day rollups (plus the snapshots of partial edge hours): a namespace's team is the one recorded at its
  // newest snapshot in the range (a relabel mid-range moves all of it).
  const rollups = createRangeRollupReader(db);

  const namespaceLabels = db.prepare('SELECT name, labels_json FROM namespaces ORDER BY name');

  return {
    /** Per namespace x NodePool over [fromMs, toMs). */
    namespaceSums(range: AnalyticsRange): NamespaceSumsRow[] {
      return rollups.namespaceSumArrays(range).map((a) => namespaceSumsRow(a, 0));
    },

    /**
     * The same per bucket of `bucketMs` from `originMs` (default: aligned on the epoch), each equal to namespaceSums
     * over that bucket's part of the range; one query for the whole range.
     */
    bucketNamespaceSums(range: AnalyticsRange & { bucketMs: number; originMs?: number }): BucketNamespaceSumsRow[] {
      return rollups.bucketNamespaceSumArrays(range).map((a) => withBucketStart(namespaceSumsRow(a, 1), a[0] as number));
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
