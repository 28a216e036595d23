import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The access token a server bound beyond loopback requires on every /api route and on /metrics. Clients send
 * `Authorization: Bearer <token>`; a browser opens the dashboard once as `/?token=<token>`, which sets an HttpOnly,
 * SameSite=Strict session cookie and redirects to the same page without the token (so it leaves the address bar
 * and history). The dashboard's static files hold no data and are served without it.
 */

/** Shorter tokens are refused at start: a guessable token is no protection. */
export const MIN_TOKEN_LENGTH = 16;
export const SESSION_COOKIE = 'ledger_session';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Equal-length digests compared in constant time: the time taken tells nothing about the token. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The cookie carries a value derived from the token, not the token itself: it cannot be replayed as a Bearer. */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('nodepool-ledger dashboard session v1').digest('base64url');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');
/** The paths that need the token: /api and the Prometheus exposition (/metrics, a Bearer in Prometheus' `authorization`). */
const isProtectedPath = (path: string): boolean => isApiPath(path) || path === '/metrics';

/** `url` with the `token` query parameter's value replaced, for logs. */
export function redactToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

function unauthorized(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(401)
    .header('www-authenticate', 'Bearer realm="nodepool-ledger"')
    .send({ statusCode: 401, error: 'Unauthorized', message });
}

/** Requires `token` on /api routes (Bearer header or the session cookie) and turns `?token=` links into the cookie. */
export function requireAccessToken(app: FastifyInstance, token: string): void {
  if (token.length < MIN_TOKEN_LENGTH) throw new Error(`the access token must be at least ${MIN_TOKEN_LENGTH} characters`);
  const session = sessionValue(token);

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const [path, search = ''] = req.url.split('?', 2);
    const linkToken = new URLSearchParams(search).get('token');
    if (linkToken !== null && !isProtectedPath(path) && (req.method === 'GET' || req.method === 'HEAD')) {
      if (!sameSecret(linkToken, token)) return unauthorized(reply, "The token in this link is not this server's token.");
      const rest = new URLSearchParams(search);
      rest.delete('token');
      const query = rest.toString();
      const secure = req.protocol === 'https' ? '; Secure' : '';
      return reply
        .code(303)
        .header('set-cookie', `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict${secure}`)
        .header('cache-control', 'no-store')
        .header('location', `${path}${query === '' ? '' : `?${query}`}`)
        .send();
    }
    if (!isProtectedPath(path)) return undefined;
    const fromHeader = bearer(req.headers.authorization);
    if (fromHeader !== undefined && sameSecret(fromHeader, token)) return undefined;
    const fromCookie = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (fromCookie !== undefined && sameSecret(fromCookie, session)) return undefined;
    return unauthorized(
      reply,
      fromHeader === undefined && fromCookie === undefined
        ? 'This server needs its access token: send "Authorization: Bearer <token>", or open the dashboard once as /?token=<token>.'
        : 'The access token is not valid for this server.',
    );
  });
}
