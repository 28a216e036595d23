import type { Db } from '../open-db.js';

/**
 * Empties every table but `locks`, `budgets` (configuration, not collected) and the disruptions' state row, in one transaction, for `demo --fresh` and a demo database seeded with another
 * scenario. Clearing in place (rather than deleting the file) keeps the collector lock held throughout, so no
 * other process can slip in between a delete and a re-create.
 */
export function createResetRepository(db: Db) {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('locks', 'disruptions_state', 'budgets') ORDER BY name",
    )
    .pluck();
  // Its one row is what the triggers update: kept, and clean (nothing is left to derive disruptions from).
  const disruptionsClean = db.prepare('UPDATE disruptions_state SET dirty_from_ms = NULL WHERE id = 1');
  const clear = db.transaction(() => {
    // Rows reference each other (snapshots -> runs); the checks hold again once everything is gone, at commit.
    db.pragma('defer_foreign_keys = ON');
    for (const name of tables.all() as string[]) db.prepare(`DELETE FROM "${name.replaceAll('"', '""')}"`).run();
    disruptionsClean.run();
  });
  return {
    clearCollectedData: (): void => {
      clear.immediate();
    },
  };
}
