import type { FastifyInstance } from 'fastify';
import type { LedgerMetrics } from '../metrics/ledger-metrics.js';

/**
 * GET /metrics: the Prometheus exposition (server/metrics/ledger-metrics.ts). Outside /api and its OpenAPI contract
 * (hidden from /docs), never answered from the response cache (it keeps /api answers only: the snapshot age moves
 * with the clock), and behind the access token like /api when the server has one (server/access-token.ts).
 */
export async function metricsRoutes(app: FastifyInstance, opts: { metrics: LedgerMetrics }): Promise<void> {
  const { metrics } = opts;
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    const body = await metrics.scrape();
    return reply.type(metrics.contentType).header('cache-control', 'no-store').send(body);
  });
}
