import type { FastifyInstance } from 'fastify';
import type { ExplanationsService } from '../services/explanations-service.js';
import { apiRoutes } from './api-route.js';

/** Karpenter's own explanations of consolidation, beside the engine's (the why-not table) and the disruptions. */
export async function karpenterExplanationsRoutes(app: FastifyInstance, opts: { explanations: ExplanationsService }): Promise<void> {
  const { explanations } = opts;
  const routes = apiRoutes(app, 'consolidation');

  routes.get(
    '/api/consolidation/karpenter-explanations',
    {
      summary:
        'What Karpenter itself said about consolidation (v1.9+ ConsolidationCandidate/Rejected, v1.14+ ConsolidationApproved with the Balanced score, Unconsolidatable), oldest first',
      description:
        'One row per decision (the Node’s and the NodeClaim’s copy of an event count once); `node` names a node or NodeClaim. At most 5,000 rows (the newest; `total` counts all); the CSV holds every row.',
      csv: { fileName: 'karpenter-explanations', table: (b) => b.rows },
    },
    (q, ctx) => explanations.list(q, { allRows: ctx.csv, clusterId: ctx.clusterId }),
  );
}
