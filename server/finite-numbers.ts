import type { FastifyInstance } from 'fastify';

/**
 * Refuses "Infinity", "1e309" and the like for numeric query parameters. Fastify's ajv coerces such strings to
 * Infinity and the number keywords (minimum, maximum, integer) then let it through, so a handler would get
 * Infinity (and a response holding it fails to serialize: a 500). Checked once here for every route.
 */
export function refuseNonFiniteNumbers(app: FastifyInstance): void {
  app.addHook('preHandler', async (req, reply) => {
    const props = (req.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
    if (props === undefined || typeof req.query !== 'object' || req.query === null) return undefined;
    const query = req.query as Record<string, unknown>;
    for (const [param, schema] of Object.entries(props)) {
      const value = query[param];
      if ((schema.type === 'integer' || schema.type === 'number') && typeof value === 'number' && !Number.isFinite(value)) {
        return reply
          .code(400)
          .send({ statusCode: 400, error: 'Bad Request', message: `Invalid querystring parameter "${param}": must be a finite number` });
      }
    }
    return undefined;
  });
}
