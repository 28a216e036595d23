import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cluster, ClustersRepository } from '../db/repositories/clusters-repository.js';
import { QueryParamError } from './analytics/range.js';

/**
 * `?cluster=NAME` on every /api route (docs/clusters.md): the cluster the answer is about. Absent, the answer is the
 * ledger's whole (a one-cluster ledger answers as it always did); a name the ledger does not hold is a 400 naming it
 * and the clusters it holds. The resolved cluster is `req.cluster` (null: every cluster) for the routes to pass on.
 */

export const CLUSTER_PARAM = 'cluster';

export const ClusterQueryProperty = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The EKS cluster the answer is about (its eks:eks-cluster-name); absent: every cluster of the ledger.',
});

declare module 'fastify' {
  interface FastifyRequest {
    /** The cluster named by ?cluster=, or null when none was named (every cluster). */
    cluster: Cluster | null;
  }
}

const isApiPath = (url: string): boolean => url === '/api' || url.startsWith('/api/');

interface QuerySchemaShape {
  type?: string;
  properties?: Record<string, unknown>;
}

/** A copy of a route's query schema that also takes `cluster` (TypeBox objects are shared: never changed in place). */
function withClusterProperty(query: QuerySchemaShape | undefined): QuerySchemaShape {
  const base = query ?? { type: 'object', properties: {} };
  if (base.properties?.[CLUSTER_PARAM] !== undefined) return base;
  return { ...base, type: 'object', properties: { ...(base.properties ?? {}), [CLUSTER_PARAM]: ClusterQueryProperty } };
}

/** A cluster the ledger does not hold, and those it holds (the 400 below; a budgets file's entry). */
export function unknownClusterText(name: string, held: readonly string[]): string {
  const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
  const holds = held.length === 0 ? 'no cluster yet' : held.map((h) => `"${h}"`).join(', ');
  return `unknown cluster "${shown}"; this ledger holds ${holds}`;
}

/** The 400 for a cluster the ledger does not hold. */
export function unknownClusterMessage(name: string, held: readonly string[]): string {
  return `Query parameter "${CLUSTER_PARAM}": ${unknownClusterText(name, held)}`;
}

/**
 * The cluster a one-cluster answer is about: `clusterId` (from ?cluster=), or the ledger's only cluster (null). A ledger
 * of several asked without ?cluster= is a 400 naming the clusters to choose from: a what-if runs on one cluster's
 * NodePools and snapshot, and the newest snapshot of any cluster would be one cluster picked silently.
 */
export function oneCluster(clusterId: number | null, held: readonly { name: string }[], what: string): number | null {
  if (clusterId !== null || held.length < 2) return clusterId;
  throw new QueryParamError(
    CLUSTER_PARAM,
    `this ledger holds ${held.length} clusters (${held.map((c) => `"${c.name}"`).join(', ')}): ${what} is one cluster's, name it with ?${CLUSTER_PARAM}=`,
  );
}

/**
 * Registers the parameter on every /api route (added before strictQueryStrings, so it is a declared parameter there
 * and in the OpenAPI document) and the hook resolving it.
 */
export function clusterQueryParam(app: FastifyInstance, clusters: Pick<ClustersRepository, 'byName' | 'list'>): void {
  app.decorateRequest('cluster', null);
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) return;
    const schema = route.schema ?? {};
    route.schema = { ...schema, querystring: withClusterProperty(schema.querystring as QuerySchemaShape | undefined) };
  });
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!isApiPath(req.routeOptions.url ?? '')) return;
    const name = (req.query as Record<string, unknown> | undefined)?.[CLUSTER_PARAM];
    if (typeof name !== 'string') return;
    const cluster = clusters.byName(name);
    if (cluster === null) {
      await reply.code(400).send({
        statusCode: 400,
        error: 'Bad Request',
        message: unknownClusterMessage(
          name,
          clusters.list().map((c) => c.name),
        ),
      });
      return reply;
    }
    req.cluster = cluster;
  });
}
