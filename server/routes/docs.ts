import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { docsHtml } from './docs-page.js';

/**
 * OpenAPI for every route registered after this: @fastify/swagger builds the document from the route
 * schemas (the same TypeBox schemas that validate), served at /docs/json, rendered at /docs.
 * Call before registering routes.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'NodePool Ledger',
        version: '0.1.0',
        description:
          'What a Karpenter cluster costs, NodePool by NodePool, and how well its nodes are packed. Money in USD, ' +
          'cpu in vCPU, memory in GiB, fractions 0..1, instants ISO 8601 UTC. 400s name the parameter; parameters a route does not declare are refused.',
      },
    },
  });
  app.register(async (docs) => {
    docs.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
    docs.get('/docs', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('text/html; charset=utf-8').send(docsHtml(app.swagger())),
    );
  });
}
