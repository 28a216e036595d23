import type { FastifyInstance } from 'fastify';

/**
 * The Savings and Workloads pages' engine answers computed ahead of their first viewer: once the server is ready, and again whenever
 * the data changes (a collection, a fold), the pool is asked for the pages' default requests (no `at`: the newest
 * snapshot), exactly as the pages ask, so the pool keeps their answers for this data version (pool.ts) and the first
 * viewer after a collection reads them instead of waiting for two simulations (npm run bench, first-render: /savings
 * at 500 nodes waited for /api/whatif/headroom and /why-not, /workloads at 5,000 for
 * /api/workloads/recommendations). A viewer arriving while they run shares the running
 * task. Only with the pool (worker threads): the engine on the API's own thread would block the API meanwhile.
 *
 * After a change, only once the data has held still for a check (the same version at two checks in a row): a file
 * written without pause (the demo filling in its snapshots, a backfill) is not warmed, three simulations in a worker
 * beside the writing, at every check for a version no viewer would read; a collector writing every few minutes is
 * warmed one check later than before.
 */

/** What the Savings page asks first (web/src/features/savings: useHeadroom({}), useWhyNot({})). */
export const SAVINGS_DEFAULT_URLS = ['/api/whatif/headroom', '/api/whatif/why-not'] as const;

/** What the Workloads page asks first (web/src/routes/workloads.tsx: useRecommendations({ window: '14d' })): its re-packs. */
export const WORKLOADS_DEFAULT_URLS = ['/api/workloads/recommendations?window=14d'] as const;

/**
 * Every answer the warm-up computes, in order: the Savings page's, then the Workloads page's (on the same prepared
 * snapshot, so the second costs only its re-packs). The pool keys answers on what they simulate (engine-call-key.ts):
 * a what-if's on its snapshot, so "All clusters" warms each cluster's `?cluster=` answer too; the recommendations on
 * their query and cluster, so that URL is exactly the page's.
 */
export const ENGINE_WARM_URLS = [...SAVINGS_DEFAULT_URLS, ...WORKLOADS_DEFAULT_URLS] as const;

export interface EngineWarmOptions {
  /** The database's data version (the pool keys its answers on it). */
  version: () => string;
  /** How often the version is looked at, ms. */
  checkEveryMs: number;
  /** Headers the requests need (the access token, when the API asks for one). */
  headers?: Record<string, string>;
}

export function warmEngineAnswers(app: FastifyInstance, o: EngineWarmOptions): void {
  let warmedFor: string | null = null;
  /** The version the last check saw (null: none yet, so the check at ready warms at once). */
  let seen: string | null = null;
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  const warm = async (): Promise<void> => {
    const version = o.version();
    const held = seen === null || seen === version;
    seen = version;
    if (running || version === warmedFor || !held) return;
    running = true;
    try {
      // One after the other: the pool's workers stay free for viewers' other simulations meanwhile.
      for (const url of ENGINE_WARM_URLS) await app.inject({ method: 'GET', url, headers: o.headers ?? {} });
      warmedFor = version;
    } catch {
      // A closed app or a refused request: the next check tries again; viewers compute as before.
    } finally {
      running = false;
    }
  };
  app.addHook('onReady', async () => {
    void warm();
    timer = setInterval(() => void warm(), o.checkEveryMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer !== null) clearInterval(timer);
  });
}
