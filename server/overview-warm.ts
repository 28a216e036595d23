import type { FastifyInstance } from 'fastify';

/**
 * The Overview's routes (what its panels ask for, web/src/routes/overview-queries.ts) answered once when the server is
 * ready, before its first viewer. A route's first answer in a process costs far more than the next: at 500 nodes these
 * eight took 235–277 CPU ms the first time against 11–20 ms after (measured in one process; a second app over another
 * copy of the ledger in the same process took 12 ms, so it is the process's, not the data's). Most of it is
 * fast-json-stringify compiling, on its first use, the ajv check of each nullable field's anyOf; the rest is V8
 * compiling the routes' code. The landing page's first viewer after `serve` started waited for that; later viewers, of
 * the same data or not, did not. No from / to: the server's default range takes the same code as the dashboard's.
 */
export const OVERVIEW_WARM_URLS = [
  '/api/status',
  '/api/clusters',
  '/api/nodepools',
  '/api/cost/nodepools/daily',
  '/api/efficiency/summary',
  '/api/reconciliation/daily',
  '/api/cost/cur/daily',
  '/api/consolidation/timeline',
] as const;

/** Asks the app for OVERVIEW_WARM_URLS in turn once it is ready (`headers`: the access token, when the API asks for one). */
export function warmOverviewRoutes(app: FastifyInstance, headers: Record<string, string> = {}): void {
  app.addHook('onReady', async () => {
    void (async () => {
      try {
        for (const url of OVERVIEW_WARM_URLS) await app.inject({ method: 'GET', url, headers });
      } catch {
        // A closed app: nothing to warm; its first viewer pays as before.
      }
    })();
  });
}
