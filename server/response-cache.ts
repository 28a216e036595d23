import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/open-db.js';
import { createDataVersionRepository } from '../db/repositories/data-version-repository.js';

/**
 * Answers repeated GET /api requests from memory while the database has not changed. The dashboard's reads are
 * the same few URLs for every viewer and the data changes once per collection (every few minutes), but one read
 * costs 1–200 ms of synchronous SQLite work on the one event loop: without this, 200 viewers queue for seconds.
 *
 * Invalidation is exact: SQLite's data_version moves when another connection (the collector) commits, and
 * total_changes() when this one writes (a bill import). A TTL covers answers that depend on the clock (the
 * default range of an empty database). Only whole 200 answers of bounded size are kept, keyed by URL and Accept
 * (CSV is negotiated by Accept). Runs after the access-token hook, so it never answers a request that hook refused.
 */
export interface ResponseCacheOptions {
  maxEntries?: number;
  /** Answers bigger than this are not kept. */
  maxBodyBytes?: number;
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  version: string;
  storedAt: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const KEPT_HEADERS = ['content-type', 'content-disposition', 'cache-control', 'vary'];
const HIT_HEADER = 'x-ledger-cache';

export function cacheApiResponses(app: FastifyInstance, db: Db, opts: ResponseCacheOptions = {}): void {
  const maxEntries = opts.maxEntries ?? 500;
  const maxBodyBytes = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const ttlMs = opts.ttlMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const dataVersion = createDataVersionRepository(db);
  const entries = new Map<string, Entry>();
  /** The data version each request started under: what its answer was read from. */
  const startedUnder = new WeakMap<object, string>();
  let version = '';

  const cacheable = (method: string, url: string): boolean => (method === 'GET' || method === 'HEAD') && url.startsWith('/api/');
  const keyOf = (url: string, accept: string | undefined): string => `${url}\n${accept ?? ''}`;
  /** The current data version; drops every entry when it moved. */
  const current = (): string => {
    const v = dataVersion.current();
    if (v !== version) {
      entries.clear();
      version = v;
    }
    return v;
  };

  app.addHook('onRequest', async (req, reply) => {
    if (!cacheable(req.method, req.url)) return undefined;
    const v = current();
    startedUnder.set(req, v);
    const key = keyOf(req.url, req.headers.accept);
    const hit = entries.get(key);
    if (hit === undefined || hit.version !== v || now() - hit.storedAt > ttlMs) return undefined;
    entries.delete(key); // re-insert: most recently used last
    entries.set(key, hit);
    return reply
      .code(200)
      .headers({ ...hit.headers, [HIT_HEADER]: 'hit' })
      .send(hit.body);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const v = startedUnder.get(req);
    if (v === undefined || reply.statusCode !== 200 || reply.getHeader(HIT_HEADER) !== undefined) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload; // streams are not kept
    if (Buffer.byteLength(payload) > maxBodyBytes) return payload;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    // Kept only if nothing was committed while it was computed (it could mix both versions).
    if (current() !== v) return payload;
    entries.set(keyOf(req.url, req.headers.accept), { version: v, storedAt: now(), headers, body: payload });
    if (entries.size > maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    return payload;
  });
}
