import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/open-db.js';
import { sameSecret, SESSION_COOKIE, sessionValue } from '../../server/access-token.js';
import { buildApp } from '../../server/app.js';
import { fillSynthetic } from '../fixtures/synthetic.js';
import { apiGets, recordRoutes, type RouteInfo } from './fixtures/api-routes.js';

/*
 * A server started with an access token (what `serve --host 0.0.0.0 --token …` builds), over real HTTP on
 * 127.0.0.1: every /api route refuses requests without it, the Bearer header or the session cookie from a
 * one-time `/?token=` link lets them in, and the dashboard's files and security headers are served either way.
 */
const TOKEN = 'tok-3f9a1c77e2b54d0c9a8e';
let db: Db;
let app: FastifyInstance;
let base: string;
let routes: RouteInfo[];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-token-'));
  const webRoot = join(dir, 'web');
  mkdirSync(join(webRoot, 'assets'), { recursive: true });
  writeFileSync(
    join(webRoot, 'index.html'),
    '<!doctype html><title>NodePool Ledger</title><script type="module" src="/assets/app.js"></script>',
  );
  writeFileSync(join(webRoot, 'assets', 'app.js'), 'export {};');
  db = openDb({ path: join(dir, 'ledger.db') });
  fillSynthetic(db, { startDay: '2026-11-01', days: 2 });
  app = buildApp({ db, webRoot, accessToken: TOKEN, now: () => Date.parse('2026-11-03T00:00:00Z') });
  routes = recordRoutes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  db?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers, redirect: 'manual' });
/** A concrete URL for a route pattern (`:id` -> a plausible value); the query is left out (defaults apply). */
const concrete = (url: string): string => url.replace(/:[A-Za-z]+/g, '1');

describe('a server with an access token', () => {
  it('has /api routes to protect (the list grows as routes are added)', () => {
    expect(apiGets(routes).map((r) => r.url)).toEqual(expect.arrayContaining(['/api/status', '/api/cost/nodepools/daily']));
  });

  it('answers 401 with a WWW-Authenticate challenge on every /api route without the token', async () => {
    for (const r of routes.filter((x) => x.url.startsWith('/api/') && x.method !== 'HEAD')) {
      const res = await fetch(`${base}${concrete(r.url)}`, { method: r.method, redirect: 'manual' });
      expect({ route: `${r.method} ${r.url}`, status: res.status }).toEqual({ route: `${r.method} ${r.url}`, status: 401 });
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="nodepool-ledger"');
      expect(((await res.json()) as { message: string }).message).toContain('Authorization: Bearer');
    }
    // Unknown /api paths too: no hint of what exists.
    expect((await get('/api/does-not-exist')).status).toBe(401);
  });

  it('refuses a wrong token of any length, and a token in an /api query string', async () => {
    for (const wrong of ['x', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase()]) {
      const res = await get('/api/status', { authorization: `Bearer ${wrong}` });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toBe('The access token is not valid for this server.');
    }
    expect((await get('/api/status', { authorization: 'Bearer ' })).status).toBe(401);
    expect((await get(`/api/status?token=${TOKEN}`)).status).toBe(401);
    expect((await get('/api/status', { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` })).status).toBe(401);
  });

  it('serves every /api GET route to the right Bearer token', async () => {
    for (const r of apiGets(routes)) {
      const res = await get(concrete(r.url), { authorization: `Bearer ${TOKEN}` });
      expect({ route: r.url, unauthorized: res.status === 401 }).toEqual({ route: r.url, unauthorized: false });
    }
    expect((await get('/api/status', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('turns a one-time ?token= link into an HttpOnly SameSite=Strict cookie and drops the token from the URL', async () => {
    const res = await get(`/?token=${TOKEN}&nodepool=general`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?nodepool=general');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict$`));
    expect(cookie).not.toContain(TOKEN); // a value derived from the token, not the token

    const session = cookie.split(';')[0];
    expect((await get('/api/status', { cookie: session })).status).toBe(200);
    expect((await get('/api/status', { cookie: `other=1; ${session}` })).status).toBe(200);
    // The cookie is not a Bearer token, and a forged cookie is refused.
    expect((await get('/api/status', { authorization: `Bearer ${session.split('=')[1]}` })).status).toBe(401);
    expect((await get('/api/status', { cookie: `${SESSION_COOKIE}=${sessionValue('another-token-of-16+')}` })).status).toBe(401);
  });

  it('refuses a link with the wrong token, and serves the dashboard files without one', async () => {
    const wrong = await get('/?token=nope');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const index = await get('/');
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<title>NodePool Ledger</title>');
    expect((await get('/assets/app.js')).status).toBe(200);
    expect((await get('/teams')).status).toBe(200); // SPA route
  });

  it('sends the security headers on the dashboard, the API, 401s and 404s', async () => {
    const responses = [
      await get('/'),
      await get('/assets/app.js'),
      await get('/api/status'),
      await get('/api/status', { authorization: `Bearer ${TOKEN}` }),
      await get('/api/nope', { authorization: `Bearer ${TOKEN}` }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 200, 404]);
    for (const res of responses) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ]) {
        expect(csp).toContain(directive);
      }
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
    }
  });
});

describe('a server without a token (loopback only)', () => {
  it('serves the API without authentication', async () => {
    const open = buildApp({ db });
    try {
      expect((await open.inject({ url: '/api/status' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('refuses to start with a token shorter than 16 characters', () => {
    expect(() => buildApp({ db, accessToken: 'short' })).toThrow('at least 16 characters');
  });
});

describe('sameSecret', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['', 'abc', false],
  ])('%s vs %s -> %s', (a, b, same) => {
    expect(sameSecret(a, b)).toBe(same);
  });
});
