import type { Db } from '../open-db.js';

/**
 * Whether the database changed since last asked: PRAGMA data_version moves when another connection commits,
 * total_changes() counts this connection's own writes. Together: a cheap version of the whole file's data.
 */
export function createDataVersionRepository(db: Db) {
  const ownChanges = db.prepare('SELECT total_changes()').pluck();
  return {
    current: (): string => `${db.pragma('data_version', { simple: true }) as number}:${ownChanges.get() as number}`,
  };
}
export type DataVersionRepository = ReturnType<typeof createDataVersionRepository>;
