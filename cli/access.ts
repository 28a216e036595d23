import { MIN_TOKEN_LENGTH } from '../server/access-token.js';
import { UsageError } from './usage-error.js';

/** Hosts that keep the server on this machine: no token needed (one may still be given). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The token rule of `serve` and `demo`: loopback by default; any other host needs an access token from --token or
 * $LEDGER_TOKEN (the environment is better: a flag shows in `ps`), then required on every /api route.
 */
export function accessFor(
  host: string,
  tokenFlag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  /** Where the host came from, named when it is refused (a $HOST set for another program is a likely surprise). */
  hostFrom: string = '--host',
): { host: string; token: string | undefined } {
  const token = tokenFlag ?? (env.LEDGER_TOKEN === '' ? undefined : env.LEDGER_TOKEN);
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(`the access token must be at least ${MIN_TOKEN_LENGTH} characters (e.g. LEDGER_TOKEN=$(openssl rand -hex 24))`);
  }
  if (!isLoopback(host) && token === undefined) {
    throw new UsageError(
      `binding to ${host}${hostFrom === '$HOST' ? ' (from $HOST)' : ''} exposes cost data beyond this machine: set LEDGER_TOKEN (or pass --token) to an access token of ${MIN_TOKEN_LENGTH}+ characters, e.g. LEDGER_TOKEN=$(openssl rand -hex 24); every /api request must then carry it`,
    );
  }
  return { host, token };
}

/** What to print once listening: how a browser gets in (never the token itself: output ends up in logs). */
export function accessHint(address: string, token: string | undefined): string | null {
  return token === undefined
    ? null
    : `access token required: open ${address}/?token=<your token> once in the browser (it sets a session cookie), or send "Authorization: Bearer <your token>" to /api`;
}
