import type { FastifyInstance } from 'fastify';
import { UsageError } from './usage-error.js';

/** A --port or --seed value: a non-negative integer, or the fallback when absent. */
export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** Listens on the port asked for, or the next free ones, and says where. */
export async function listen(app: FastifyInstance, host: string, port: number): Promise<string> {
  for (let p = port; p < port + 20; p++) {
    try {
      return await app.listen({ host, port: p });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
    }
  }
  throw new Error(`ports ${port}..${port + 19} on ${host} are all in use: pass --port`);
}
