import type { FastifyInstance } from 'fastify';
import type { NodePoolKarpenterService } from '../services/nodepool-karpenter-service.js';
import { oneCluster } from '../cluster-param.js';
import { apiRoutes } from './api-route.js';
import type { ClusterList } from './whatif.js';

/** Static NodePools, limits.nodes, NodeOverlay prices and capacity reservations (the NodePools page). */
export async function nodePoolKarpenterRoutes(
  app: FastifyInstance,
  opts: { nodePoolKarpenter: NodePoolKarpenterService; clusters?: ClusterList },
): Promise<void> {
  const routes = apiRoutes(app, 'nodepools');
  routes.get(
    '/api/nodepools/karpenter',
    {
      summary:
        'Per NodePool at a snapshot: static (spec.replicas, fixed cost per hour, never consolidated) or dynamic, limits.nodes, the NodeOverlay pricing each running node type as Karpenter sees it, and the EC2NodeClasses’ capacity reservations',
      description:
        'Overlays change Karpenter’s decisions, not the bill: `usdPerHour` is the price the ledger bills, `karpenterUsdPerHour` the one Karpenter decides with (when its NodeOverlay feature gate is on). 404 before any snapshot. On a ledger of several clusters `cluster` is required (a 400 names the clusters to choose from): the setup is one cluster’s, at its own newest snapshot.',
      errors: [404],
    },
    (q, ctx) => opts.nodePoolKarpenter.setup(q, oneCluster(ctx.clusterId, opts.clusters?.() ?? [], 'a Karpenter setup')),
  );
}
