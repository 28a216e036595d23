import type { FastifyInstance } from 'fastify';
import {
  ConsolidationCompareQuerySchema,
  ConsolidationCompareResponseSchema,
  ConsolidationEventsQuerySchema,
  ConsolidationEventsResponseSchema,
  ConsolidationTimelineQuerySchema,
  ConsolidationTimelineResponseSchema,
  type ConsolidationCompareQuery,
  type ConsolidationEventsQuery,
  type ConsolidationTimelineQuery,
} from '../schemas/consolidation.js';
import { ErrorResponseSchema } from '../schemas/reports.js';
import type { ConsolidationService } from '../services/consolidation-service.js';
import { TABLE_PRODUCES, tableReply, wantsCsv } from './table-reply.js';

const errors = { 400: ErrorResponseSchema, 500: ErrorResponseSchema };
const tags = ['consolidation'];

/** Consolidation routes; each is one call into the service, JSON or CSV. */
export async function consolidationRoutes(app: FastifyInstance, opts: { consolidation: ConsolidationService }): Promise<void> {
  const { consolidation } = opts;

  app.get<{ Querystring: ConsolidationEventsQuery }>(
    '/api/consolidation/events',
    {
      schema: {
        summary: 'Disruptions (Underutilized, Empty, Drifted, Expired, Interrupted) with their replacements, paged',
        tags,
        produces: TABLE_PRODUCES,
        description:
          'JSON answers one page (limit, offset; total and counts cover every matching row). CSV downloads every matching row: limit and offset are ignored.',
        querystring: ConsolidationEventsQuerySchema,
        response: { 200: ConsolidationEventsResponseSchema, ...errors },
      },
    },
    async (req, reply) =>
      tableReply(req, reply, consolidation.events(req.query, { allRows: wantsCsv(req) }), (b) => b.rows, 'consolidation-events'),
  );

  app.get<{ Querystring: ConsolidationCompareQuery }>(
    '/api/consolidation/compare',
    {
      schema: {
        summary: 'Equal windows before and after an event or an instant: nodes, cost per hour, efficiency, per NodePool',
        tags,
        produces: TABLE_PRODUCES,
        querystring: ConsolidationCompareQuerySchema,
        response: { 200: ConsolidationCompareResponseSchema, 404: ErrorResponseSchema, ...errors },
      },
    },
    async (req, reply) => tableReply(req, reply, consolidation.compare(req.query), (b) => b.rows, 'consolidation-compare'),
  );

  app.get<{ Querystring: ConsolidationTimelineQuery }>(
    '/api/consolidation/timeline',
    {
      schema: {
        summary: 'Efficiency and cost per hour over time per NodePool, with the disruptions marked',
        tags,
        produces: TABLE_PRODUCES,
        querystring: ConsolidationTimelineQuerySchema,
        response: { 200: ConsolidationTimelineResponseSchema, ...errors },
      },
    },
    async (req, reply) =>
      tableReply(
        req,
        reply,
        consolidation.timeline(req.query),
        (b) => b.series.flatMap((s) => s.points.map((p) => ({ scope: s.scope, nodePool: s.nodePool, ...p }))),
        'consolidation-timeline',
      ),
  );
}
