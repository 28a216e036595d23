import type { FastifyInstance } from 'fastify';
import type { ConsolidationService } from '../services/consolidation-service.js';
import { apiRoutes } from './api-route.js';

/** Consolidation: the disruptions, and the cluster before and after them. */
export async function consolidationRoutes(app: FastifyInstance, opts: { consolidation: ConsolidationService }): Promise<void> {
  const { consolidation } = opts;
  const routes = apiRoutes(app, 'consolidation');

  routes.get(
    '/api/consolidation/events',
    {
      summary: 'Disruptions (Underutilized, Empty, Drifted, Expired, Interrupted) with their action and replacements, a page at a time',
      description:
        '`kind=blocked` for DisruptionBlocked ones. `limit` 1–1000 rows (default 200), `offset` from 0; `total` and the per-reason `counts` cover every matching row. The CSV holds every matching row (limit and offset are ignored).',
      csv: { fileName: 'consolidation-events', table: (b) => b.rows },
    },
    (q, ctx) => consolidation.events(q, { allRows: ctx.csv, clusterId: ctx.clusterId }),
  );

  routes.get(
    '/api/consolidation/compare',
    {
      summary: 'Equal windows before and after a disruption (`event`) or an instant (`at`): nodes, cost per hour, efficiency, per NodePool',
      description: '`window` from 5m to 24h (default 1h). 404 when the event is not found.',
      errors: [404],
      csv: { fileName: 'consolidation-compare', table: (b) => b.rows },
    },
    (q, ctx) => consolidation.compare(q, ctx.clusterId),
  );

  routes.get(
    '/api/consolidation/timeline',
    {
      summary: 'Efficiency and cost per hour over time per NodePool and the cluster, with the disruptions marked',
      description:
        'At most 300 points per series (5-minute points for a day, hourly ones for a week, 3-hour ones for a month). Every disruption is a mark while there are at most 300; beyond, the first of each bucket × NodePool × reason with how many it stands for (`count`), the bucket widened until at most 300 marks are left. CSV: one line per series point.',
      csv: {
        fileName: 'consolidation-timeline',
        table: (b) =>
          b.series.flatMap((s) =>
            s.points.map((p) => ({
              ...(s.cluster === undefined ? {} : { cluster: s.cluster }),
              scope: s.scope,
              nodePool: s.nodePool,
              ...p,
            })),
          ),
      },
    },
    (q, ctx) => consolidation.timeline(q, ctx.clusterId),
  );
}
