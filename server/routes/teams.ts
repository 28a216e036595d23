import type { FastifyInstance } from 'fastify';
import { ErrorResponseSchema } from '../schemas/reports';
import { TeamCostQuerySchema, TeamCostResponseSchema, type TeamCostQuery } from '../schemas/teams';
import type { TeamsService } from '../services/teams-service';
import { TABLE_PRODUCES, tableReply } from './table-reply';

const errors = { 400: ErrorResponseSchema, 500: ErrorResponseSchema };

/** Team attribution route, JSON or CSV. */
export async function teamsRoutes(app: FastifyInstance, opts: { teams: TeamsService }): Promise<void> {
  const { teams } = opts;

  app.get<{ Querystring: TeamCostQuery }>('/api/teams/cost', {
    schema: {
      summary: 'Node cost split over teams by request share (or AWS split cost allocation), idle per NodePool; cents add up to the node cost',
      tags: ['teams'], produces: TABLE_PRODUCES, querystring: TeamCostQuerySchema, response: { 200: TeamCostResponseSchema, ...errors },
    },
  }, async (req, reply) => tableReply(req, reply, teams.cost(req.query), (b) => b.rows, 'teams-cost'));
}
