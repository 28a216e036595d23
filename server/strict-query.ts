import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Every /api route refuses query parameters it does not declare (a 400 naming them, see unknown-query-param.ts),
 * instead of ajv dropping them. Needs ajv's `removeAdditional: false` (buildApp sets it). Done here, at route
 * registration, so a route added later is strict even when its schema forgets `additionalProperties: false`, and a
 * route without a querystring schema (/api/status) takes no parameters at all.
 */

interface QuerySchemaShape {
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
}

const isApiPath = (url: string): boolean => url === '/api' || url.startsWith('/api/');

/** A route with no query parameters. */
const NO_QUERY_PARAMS = { type: 'object', properties: {}, additionalProperties: false } as const;

export function strictQueryStrings(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) return;
    const schema = route.schema ?? {};
    const query = schema.querystring as QuerySchemaShape | undefined;
    if (query === undefined) route.schema = { ...schema, querystring: NO_QUERY_PARAMS };
    // A copy: the TypeBox object may be shared with other routes and with the web's types.
    else if (query.additionalProperties !== false) route.schema = { ...schema, querystring: { ...query, additionalProperties: false } };
  });
}

/** The query parameters the request's route declares, in schema order. */
export function declaredQueryParams(req: FastifyRequest): string[] {
  const query = req.routeOptions.schema?.querystring as QuerySchemaShape | undefined;
  return Object.keys(query?.properties ?? {});
}

/** The request's query parameters its route does not declare, in the order sent; none if the route takes any. */
export function undeclaredQueryParams(req: FastifyRequest): string[] {
  const schema = req.routeOptions.schema?.querystring as QuerySchemaShape | undefined;
  if (schema?.additionalProperties !== false) return [];
  const declared = new Set(declaredQueryParams(req));
  const query = typeof req.query === 'object' && req.query !== null ? Object.keys(req.query) : [];
  return query.filter((name) => !declared.has(name));
}
