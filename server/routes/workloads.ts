import type { FastifyInstance } from 'fastify';
import type { WorkloadsService } from '../services/workloads-service.js';
import { RecommendationRowSchema } from '../schemas/workloads.js';
import { apiRoutes } from './api-route.js';

/** Workloads: what they request beside what they use, and what right-sized requests would change. */
export async function workloadsRoutes(app: FastifyInstance, opts: { workloads: WorkloadsService }): Promise<void> {
  const { workloads } = opts;
  const routes = apiRoutes(app, 'workloads');

  routes.get(
    '/api/workloads/recommendations',
    {
      summary:
        'Right-sized requests per workload and container over a usage window (CPU at p95, memory at peak + 15 %, floors 10m / 20 MiB), usage ÷ request, idle USD, and the monthly USD effect by request share',
      description:
        '`window` (1h–90d, default 14d) of hourly usage rollups ending at `at` (default: the newest snapshot); `namespace`. Flags: short-history (under a day), throttled (p95 above the request), oom-killed (memory not lowered), no-request. The USD effect is by request share of the NodePool’s node cost at the newest snapshot × 730 h, without re-packing nodes. CSV: one line per workload container, biggest saving first.',
      csv: {
        fileName: 'workload-recommendations',
        // The columns named, so a window without usage still downloads its header.
        table: (b) => ({ columns: Object.keys(RecommendationRowSchema.properties), rows: b.rows }),
      },
    },
    (q) => workloads.recommendations(q),
  );
}
