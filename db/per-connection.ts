import type { Db } from './open-db.js';

/**
 * `make` run once per database connection, its result kept as long as the connection is (a WeakMap on it): for what
 * prepares statements when made (a repository, a reader), which cost more than most of their reads, and which a
 * collector's or a page's every call would otherwise prepare again.
 */
export function perConnection<T>(make: (db: Db) => T): (db: Db) => T {
  const made = new WeakMap<Db, T>();
  return (db) => {
    let value = made.get(db);
    if (value === undefined) {
      value = make(db);
      made.set(db, value);
    }
    return value;
  };
}
