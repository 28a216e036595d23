import type { FastifyInstance } from 'fastify';
import {
  NodePoolCompareQuerySchema,
  NodePoolCompareResponseSchema,
  ReconciliationQuerySchema,
  ReconciliationResponseSchema,
  type NodePoolCompareQuery,
  type ReconciliationQuery,
} from '../schemas/nodepool-cost.js';
import { ErrorResponseSchema } from '../schemas/reports.js';
import type { NodePoolCostService } from '../services/nodepool-cost-service.js';
import { TABLE_PRODUCES, tableReply } from './table-reply.js';

const errors = { 400: ErrorResponseSchema, 500: ErrorResponseSchema };

/** NodePool cost comparison and reconciliation routes; each is one call into the service, JSON or CSV. */
export async function nodePoolCostRoutes(app: FastifyInstance, opts: { nodePoolCost: NodePoolCostService }): Promise<void> {
  const { nodePoolCost } = opts;

  app.get<{ Querystring: NodePoolCompareQuery }>(
    '/api/nodepools/compare',
    {
      schema: {
        summary: 'Cost, node-hours, cost per vCPU-hour and GiB-hour (allocatable and requested), spot savings per NodePool x capacity type',
        tags: ['nodepools'],
        produces: TABLE_PRODUCES,
        querystring: NodePoolCompareQuerySchema,
        response: { 200: NodePoolCompareResponseSchema, ...errors },
      },
    },
    async (req, reply) => tableReply(req, reply, nodePoolCost.compare(req.query), (b) => b.rows, 'nodepools-compare'),
  );

  app.get<{ Querystring: ReconciliationQuery }>(
    '/api/reconciliation/daily',
    {
      schema: {
        summary: 'The Cost Explorer bill beside our estimate per day x NodePool x purchase kind, the difference and its likely cause',
        tags: ['cost'],
        produces: TABLE_PRODUCES,
        querystring: ReconciliationQuerySchema,
        response: { 200: ReconciliationResponseSchema, ...errors },
      },
    },
    async (req, reply) => tableReply(req, reply, nodePoolCost.reconciliation(req.query), (b) => b.rows, 'reconciliation-daily'),
  );
}
