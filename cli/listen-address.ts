import { UsageError } from './usage-error.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 5173;

/** Where `serve` and `demo` listen, and where each half came from (for messages, and whether a busy port may move). */
export interface ListenAddress {
  host: string;
  port: number;
  hostFrom: '--host' | '$HOST' | 'default';
  portFrom: '--port' | '$PORT' | 'default';
}

/** A port can't be bound: printed as it is, with exit code 1. */
export class ListenError extends Error {}

/**
 * --host and --port, else $HOST and $PORT (what container platforms, PaaS and most dev servers set; `PORT=8080 npm
 * start` works), else 127.0.0.1:5173. A flag wins over the variable; an empty variable counts as unset.
 */
export function listenAddress(flags: { host?: string; port?: string }, env: NodeJS.ProcessEnv = process.env): ListenAddress {
  const envHost = env.HOST === '' ? undefined : env.HOST;
  const envPort = env.PORT === '' ? undefined : env.PORT;
  const host = flags.host ?? envHost ?? DEFAULT_HOST;
  const hostFrom = flags.host !== undefined ? '--host' : envHost !== undefined ? '$HOST' : 'default';
  if (flags.port !== undefined) return { host, hostFrom, port: parsePort(flags.port, '--port'), portFrom: '--port' };
  if (envPort !== undefined) return { host, hostFrom, port: parsePort(envPort, '$PORT'), portFrom: '$PORT' };
  return { host, hostFrom, port: DEFAULT_PORT, portFrom: 'default' };
}

function parsePort(value: string, from: '--port' | '$PORT'): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535)
    throw new UsageError(`${from === '--port' ? '--port' : 'the PORT environment variable'} must be a port number 0-65535, got "${value}"`);
  return Number(value);
}

interface Listener {
  listen(options: { host: string; port: number }): Promise<string>;
}

/**
 * Listens and returns the address. Only the default port moves on to the next free one (up to 20): a port that was
 * asked for (--port, $PORT) is the one a proxy, a probe or a bookmark expects, so a busy one is an error naming it.
 */
export async function listenOn(app: Listener, address: ListenAddress): Promise<string> {
  const { host, port, portFrom } = address;
  const last = portFrom === 'default' ? port + 19 : port;
  for (let p = port; p <= last; p++) {
    try {
      return await app.listen({ host, port: p });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new ListenError(
    portFrom === 'default'
      ? `ports ${port}..${last} on ${host} are all in use: pass --port (or set PORT)`
      : `port ${port} on ${host} (from ${portFrom}) is in use: stop what holds it, or choose another port`,
  );
}
