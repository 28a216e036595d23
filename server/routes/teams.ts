import type { FastifyInstance } from 'fastify';
import { ErrorResponseSchema } from '../schemas/reports.js';
import {
  TeamCostQuerySchema,
  TeamCostResponseSchema,
  TeamCostSeriesQuerySchema,
  TeamCostSeriesResponseSchema,
  type TeamCostQuery,
  type TeamCostSeriesQuery,
} from '../schemas/teams.js';
import type { TeamsService } from '../services/teams-service.js';
import { TABLE_PRODUCES, tableReply } from './table-reply.js';

const errors = { 400: ErrorResponseSchema, 500: ErrorResponseSchema };

/** Team attribution routes, JSON or CSV. */
export async function teamsRoutes(app: FastifyInstance, opts: { teams: TeamsService }): Promise<void> {
  const { teams } = opts;

  app.get<{ Querystring: TeamCostQuery }>(
    '/api/teams/cost',
    {
      schema: {
        summary:
          'Node cost split over teams by request share, AWS split cost allocation or OpenCost (method=), idle per NodePool; cents add up to the node cost',
        tags: ['teams'],
        produces: TABLE_PRODUCES,
        querystring: TeamCostQuerySchema,
        response: { 200: TeamCostResponseSchema, ...errors },
      },
    },
    async (req, reply) => tableReply(req, reply, teams.cost(req.query), (b) => b.rows, 'teams-cost'),
  );

  app.get<{ Querystring: TeamCostSeriesQuery }>(
    '/api/teams/cost/series',
    {
      schema: {
        summary:
          'The same split per day or week from `from` (each bucket as /api/teams/cost over its range, cents adding up per bucket); CSV: one line per bucket and team',
        tags: ['teams'],
        produces: TABLE_PRODUCES,
        querystring: TeamCostSeriesQuerySchema,
        response: { 200: TeamCostSeriesResponseSchema, ...errors },
      },
    },
    async (req, reply) =>
      tableReply(
        req,
        reply,
        teams.series(req.query),
        (b) => b.buckets.flatMap((k) => k.teams.map((t) => ({ from: k.from, to: k.to, kind: t.kind, team: t.team, costUsd: t.costUsd }))),
        'teams-cost-series',
      ),
  );
}
