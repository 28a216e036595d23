import type { FastifyInstance } from 'fastify';
import type { ReportsService } from '../services/reports-service.js';
import {
  DailyCostResponseSchema,
  EfficiencyResponseSchema,
  ErrorResponseSchema,
  NodePoolsResponseSchema,
  RangeQuerySchema,
  StatusResponseSchema,
  type RangeQuery,
} from '../schemas/reports.js';

const errors = { 400: ErrorResponseSchema, 500: ErrorResponseSchema };

/** The overview's read-only routes; each is a one-liner over the reports service. */
export async function reportsRoutes(app: FastifyInstance, opts: { reports: ReportsService }): Promise<void> {
  const { reports } = opts;

  app.get('/api/status', { schema: { response: { 200: StatusResponseSchema, ...errors } } }, async () => reports.status());

  app.get('/api/nodepools', { schema: { response: { 200: NodePoolsResponseSchema, ...errors } } }, async () => reports.nodePools());

  app.get<{ Querystring: RangeQuery }>(
    '/api/cost/nodepools/daily',
    { schema: { querystring: RangeQuerySchema, response: { 200: DailyCostResponseSchema, ...errors } } },
    async (req) => reports.dailyCost(req.query),
  );

  app.get<{ Querystring: RangeQuery }>(
    '/api/efficiency/nodepools',
    { schema: { querystring: RangeQuerySchema, response: { 200: EfficiencyResponseSchema, ...errors } } },
    async (req) => reports.efficiency(req.query),
  );
}
