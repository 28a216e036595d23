import type { FastifyInstance } from 'fastify';
import {
  EfficiencyNodesQuerySchema,
  EfficiencySummaryQuerySchema,
  EfficiencySummaryResponseSchema,
  NodesQuerySchema,
  NodesResponseSchema,
  type EfficiencyNodesQuery,
  type EfficiencySummaryQuery,
  type NodesQuery,
} from '../schemas/efficiency.js';
import { ErrorResponseSchema } from '../schemas/reports.js';
import type { EfficiencyService } from '../services/efficiency-service.js';
import { TABLE_PRODUCES, tableReply, wantsCsv } from './table-reply.js';

const errors = { 400: ErrorResponseSchema, 500: ErrorResponseSchema };
const tags = ['efficiency'];

/** Bin-packing efficiency routes; each is one call into the service, JSON or CSV. */
export async function efficiencyRoutes(app: FastifyInstance, opts: { efficiency: EfficiencyService }): Promise<void> {
  const { efficiency } = opts;

  app.get<{ Querystring: EfficiencySummaryQuery }>(
    '/api/efficiency/summary',
    {
      schema: {
        summary: 'Efficiency per NodePool and for the cluster over a range',
        tags,
        produces: TABLE_PRODUCES,
        querystring: EfficiencySummaryQuerySchema,
        response: { 200: EfficiencySummaryResponseSchema, ...errors },
      },
    },
    async (req, reply) => tableReply(req, reply, efficiency.summary(req.query), (b) => b.rows, 'efficiency-summary'),
  );

  app.get<{ Querystring: EfficiencyNodesQuery }>(
    '/api/efficiency/nodes',
    {
      schema: {
        summary: 'Efficiency per node at a snapshot, or averaged over a window before it',
        tags,
        produces: TABLE_PRODUCES,
        querystring: EfficiencyNodesQuerySchema,
        response: { 200: NodesResponseSchema, ...errors },
      },
    },
    async (req, reply) =>
      tableReply(req, reply, efficiency.nodeEfficiency(req.query, { allRows: wantsCsv(req) }), (b) => b.rows, 'efficiency-nodes'),
  );

  app.get<{ Querystring: NodesQuery }>(
    '/api/nodes',
    {
      schema: {
        summary: 'Every node at a snapshot with packing, type, capacity type, zone, age and price; sorted and paged',
        tags: ['nodes'],
        produces: TABLE_PRODUCES,
        querystring: NodesQuerySchema,
        response: { 200: NodesResponseSchema, ...errors },
      },
    },
    async (req, reply) => tableReply(req, reply, efficiency.nodes(req.query, { allRows: wantsCsv(req) }), (b) => b.rows, 'nodes'),
  );
}
