import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../db/open-db.js';
import { buildApp } from './app.js';
import { API_PAGE_CACHE_MIB, pageCacheMib, sizePageCache } from '../db/page-cache.js';

let db: Db | undefined;
afterEach(() => db?.close());

describe('the page cache of the connection that answers the API', () => {
  it("is better-sqlite3's 15.6 MiB by default, set in whole MiB, and refuses anything else naming it", () => {
    db = openDb({ path: ':memory:' });
    // better-sqlite3 builds SQLite with SQLITE_DEFAULT_CACHE_SIZE=-16000: 16,000 KiB = 15.625 MiB.
    expect(pageCacheMib(db)).toBe(15.625);
    const own = db;
    sizePageCache(own, 64);
    // 64 MiB = 65,536 KiB, kept as cache_size -65536.
    expect(db.pragma('cache_size', { simple: true })).toBe(-65536);
    expect(pageCacheMib(db)).toBe(64);
    expect(() => sizePageCache(own, 0)).toThrow('page cache: 0 MiB is not a whole number of MiB above 0');
    expect(() => sizePageCache(own, 1.5)).toThrow('1.5 MiB');
  });

  it('is 64 MiB once the server is built over it', async () => {
    db = openDb({ path: ':memory:' });
    const app = buildApp({ db, cacheResponses: false });
    try {
      expect(API_PAGE_CACHE_MIB).toBe(64);
      expect(pageCacheMib(db)).toBe(64);
    } finally {
      await app.close();
    }
  });
});
