import type { Db } from '../open-db.js';

/**
 * Empties every table but `locks`, in one transaction, for `demo --fresh` and a demo database seeded with another
 * scenario. Clearing in place (rather than deleting the file) keeps the collector lock held throughout, so no
 * other process can slip in between a delete and a re-create.
 */
export function createResetRepository(db: Db) {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'locks' ORDER BY name")
    .pluck();
  const clear = db.transaction(() => {
    // Rows reference each other (snapshots -> runs); the checks hold again once everything is gone, at commit.
    db.pragma('defer_foreign_keys = ON');
    for (const name of tables.all() as string[]) db.prepare(`DELETE FROM "${name.replaceAll('"', '""')}"`).run();
  });
  return {
    clearCollectedData: (): void => {
      clear.immediate();
    },
  };
}
