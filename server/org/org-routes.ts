import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OrgEngineError, type OrgService } from './org-service.js';

/**
 * GET /api/org/overview and /api/org/teams: the organisation's all-clusters views from Athena (`serve --org`). Not in
 * the one-ledger route map (server/schemas/api-routes.ts): they exist only when the server was given an engine.
 */

const DAY_PARAM = (what: string) =>
  Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T00:00:00(\\.000)?Z)?$', maxLength: 24, description: what }));

const RangeQuery = {
  from: DAY_PARAM('First UTC day (YYYY-MM-DD). Default: 7 days before `to`.'),
  to: DAY_PARAM('The UTC day after the last (exclusive). Default: tomorrow.'),
};

const OverviewQuery = Type.Object(RangeQuery, { additionalProperties: false });
const TeamsQuery = Type.Object(
  {
    ...RangeQuery,
    method: Type.Optional(Type.Union([Type.Literal('request-share'), Type.Literal('aws-split'), Type.Literal('opencost')])),
    idle: Type.Optional(Type.Union([Type.Literal('line'), Type.Literal('spread')])),
    groupBy: Type.Optional(Type.Union([Type.Literal('team'), Type.Literal('namespace')])),
  },
  { additionalProperties: false },
);

export async function orgRoutes(app: FastifyInstance, opts: { org: OrgService }): Promise<void> {
  const { org } = opts;
  const answer = async <T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> => {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof OrgEngineError)) throw err;
      return reply.code(502).send({ statusCode: 502, error: 'Bad Gateway', message: err.message });
    }
  };
  app.get('/api/org/overview', { schema: { querystring: OverviewQuery } }, async (req, reply) =>
    answer(reply, () => org.overview(req.query as { from?: string; to?: string })),
  );
  app.get('/api/org/teams', { schema: { querystring: TeamsQuery } }, async (req, reply) =>
    answer(reply, () => org.teams(req.query as Parameters<OrgService['teams']>[0])),
  );
}
