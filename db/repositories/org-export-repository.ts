import type { Db } from '../open-db.js';

/**
 * What `export` needs from the ledger besides the rollups: which hours hold data, and what was exported where
 * (remembered in the settings table, one key per destination, so a ledger exported to two places tracks each).
 */

/** The setting where a ledger names its cluster, when one does (a multi-cluster ledger keys its rows instead). */
export const CLUSTER_NAME_SETTING = 'cluster.name';

/** What the last export to one destination wrote: per cluster and UTC day, the SHA-256 of the day's objects. */
export interface ExportState {
  /** `cluster|YYYY-MM-DD` -> hex digest of the day's tables (as written). */
  days: Record<string, string>;
  /** The newest snapshot the last export saw, epoch ms (its day, and the days after, are read again next time). */
  newestSnapshotMs: number | null;
  /** The same per cluster, for a ledger of several clusters (each cluster's snapshots run on their own clock). */
  newestSnapshotMsByCluster: Record<string, number | null>;
}

const stateKey = (destination: string): string => `org-export:${destination}`;

export function createOrgExportRepository(db: Db) {
  // @clusterId NULL: every cluster's rows (a one-cluster ledger's export, as before clusters were keyed).
  const hourSpan = db.prepare(
    'SELECT MIN(bucket_ms) AS first_ms, MAX(bucket_ms) AS last_ms FROM rollup_spans WHERE span_ms = 3600000 AND hours > 0 AND (@clusterId IS NULL OR cluster_id = @clusterId)',
  );
  const snapshotSpan = db.prepare(
    'SELECT MIN(taken_at) AS first_ms, MAX(taken_at) AS last_ms FROM snapshots WHERE @clusterId IS NULL OR cluster_id = @clusterId',
  );
  const getSetting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const putSetting = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');

  return {
    /** The first and last instant with data (hour rollups or snapshots) of one cluster (null: all), epoch ms; null when none. */
    dataSpan(clusterId: number | null = null): { firstMs: number; lastMs: number } | null {
      const spans = [hourSpan.get({ clusterId }), snapshotSpan.get({ clusterId })] as { first_ms: number | null; last_ms: number | null }[];
      const firsts = spans.map((s) => s.first_ms).filter((v): v is number => v !== null);
      const lasts = spans.map((s) => s.last_ms).filter((v): v is number => v !== null);
      if (firsts.length === 0 || lasts.length === 0) return null;
      return { firstMs: Math.min(...firsts), lastMs: Math.max(...lasts) };
    },

    /** The newest snapshot's time of one cluster (null: of any), epoch ms, or null. */
    newestSnapshotMs(clusterId: number | null = null): number | null {
      return (snapshotSpan.get({ clusterId }) as { last_ms: number | null }).last_ms;
    },

    clusterName(): string | null {
      return (getSetting.get(CLUSTER_NAME_SETTING) as string | undefined) ?? null;
    },

    state(destination: string): ExportState {
      const text = getSetting.get(stateKey(destination)) as string | undefined;
      const empty: ExportState = { days: {}, newestSnapshotMs: null, newestSnapshotMsByCluster: {} };
      if (text === undefined) return empty;
      try {
        const v = JSON.parse(text) as Partial<ExportState>;
        return {
          days: v.days ?? {},
          newestSnapshotMs: v.newestSnapshotMs ?? null,
          newestSnapshotMsByCluster: v.newestSnapshotMsByCluster ?? {},
        };
      } catch {
        return empty;
      }
    },

    saveState(destination: string, state: ExportState): void {
      putSetting.run(stateKey(destination), JSON.stringify(state));
    },
  };
}

export type OrgExportRepository = ReturnType<typeof createOrgExportRepository>;
