import type { Db } from '../open-db.js';

/**
 * Deleting a snapshot for retention (a 5-minute one folded into its hour, an hourly one past the horizon), fast at the
 * envelope. SQLite checks a deleted parent row against every table referencing it, and a child column without an index
 * is checked by a scan of the whole table: usage_samples (150,000 rows a snapshot at the envelope, kept days) and
 * usage_oom_kills have none on snapshot_id, and an index there would cost every snapshot's write. So the rows of every
 * table referencing snapshots are deleted here by name, by an indexed key, and the snapshot row itself with foreign keys
 * off for that transaction (cascades included: nothing is left for them).
 *
 * A table that references snapshots and is not listed here (added by a later migration) would be left with rows of a
 * deleted snapshot: retention refuses to run until it is listed (assertKnownSnapshotChildren), naming it.
 */

/** Every table with a foreign key to snapshots(id), and how its rows of a snapshot go (`@j` its id, `@t` its time). */
export const SNAPSHOT_CHILDREN: Readonly<Record<string, string>> = {
  // The node rows themselves, not the snapshot_nodes view over them (migration 0026): by their key's first column.
  snapshot_node_rows: 'DELETE FROM snapshot_node_rows WHERE snapshot_id = @j',
  snapshot_nodepools: 'DELETE FROM snapshot_nodepools WHERE snapshot_id = @j',
  snapshot_namespaces: 'DELETE FROM snapshot_namespaces WHERE snapshot_id = @j',
  // A sample's taken_at is its snapshot's, and indexed (its snapshot_id is not); the rows under the usage_samples view (0031).
  // ... of the snapshot's own cluster (another cluster's snapshot may share the instant).
  usage_sample_rows:
    'DELETE FROM usage_sample_rows WHERE taken_at = @t AND dims_id IN (SELECT d.id FROM usage_sample_dims d JOIN snapshots s ON s.cluster_id = d.cluster_id WHERE s.id = @j)',
  usage_node_rows: 'DELETE FROM usage_node_rows WHERE snapshot_id = @j',
  usage_snapshots: 'DELETE FROM usage_snapshots WHERE snapshot_id = @j',
  usage_namespaces: 'DELETE FROM usage_namespaces WHERE snapshot_id = @j',
  usage_nodepools: 'DELETE FROM usage_nodepools WHERE snapshot_id = @j',
  // OOM kills are kept (until the horizon by their own time): they lose the snapshot that first saw them.
  usage_oom_kills: 'UPDATE usage_oom_kills SET snapshot_id = NULL WHERE snapshot_id = @j',
};

export class UnknownSnapshotChildError extends Error {
  constructor(tables: string[]) {
    super(
      `retention cannot delete snapshots: ${tables.join(', ')} reference${tables.length === 1 ? 's' : ''} snapshots(id) and ` +
        `${tables.length === 1 ? 'is' : 'are'} not folded or deleted by db/repositories/retention-snapshot-rows.ts (add ${tables.length === 1 ? 'it' : 'them'} there, and to the fold)`,
    );
    this.name = 'UnknownSnapshotChildError';
  }
}

/** Throws when a table references snapshots(id) that retention does not know how to keep or delete. */
export function assertKnownSnapshotChildren(db: Db): void {
  const referencing = db
    .prepare(
      `SELECT DISTINCT m.name FROM sqlite_schema m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND f."table" = 'snapshots' ORDER BY m.name`,
    )
    .pluck()
    .all() as string[];
  const unknown = referencing.filter((t) => !(t in SNAPSHOT_CHILDREN));
  if (unknown.length > 0) throw new UnknownSnapshotChildError(unknown);
}

/** Deletes snapshot `j` (taken at `t`) and its rows in every table that references it. Call through withoutForeignKeys. */
export function createSnapshotRowsDeleter(db: Db): (j: number, t: number) => void {
  const children = Object.values(SNAPSHOT_CHILDREN).map((sql) => db.prepare(sql));
  const snapshot = db.prepare('DELETE FROM snapshots WHERE id = @j');
  return (j, t) => {
    for (const st of children) st.run({ j, t });
    snapshot.run({ j });
  };
}

/**
 * Runs `fn` (one transaction) with foreign keys off: SQLite takes the switch only outside a transaction, so it is set
 * around it, and set back whatever happens. The collector's connection does one thing at a time, so nothing else
 * writes through it meanwhile.
 */
export function withoutForeignKeys<T>(db: Db, fn: () => T): T {
  const was = db.pragma('foreign_keys', { simple: true }) as number;
  if (was === 0) return fn();
  db.pragma('foreign_keys = OFF');
  try {
    return fn();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
