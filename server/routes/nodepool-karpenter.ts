import type { FastifyInstance } from 'fastify';
import type { NodePoolKarpenterService } from '../services/nodepool-karpenter-service.js';
import { apiRoutes } from './api-route.js';

/** Static NodePools, limits.nodes, NodeOverlay prices and capacity reservations (the NodePools page). */
export async function nodePoolKarpenterRoutes(app: FastifyInstance, opts: { nodePoolKarpenter: NodePoolKarpenterService }): Promise<void> {
  const routes = apiRoutes(app, 'nodepools');
  routes.get(
    '/api/nodepools/karpenter',
    {
      summary:
        'Per NodePool at a snapshot: static (spec.replicas, fixed cost per hour, never consolidated) or dynamic, limits.nodes, the NodeOverlay pricing each running node type as Karpenter sees it, and the EC2NodeClasses’ capacity reservations',
      description:
        'Overlays change Karpenter’s decisions, not the bill: `usdPerHour` is the price the ledger bills, `karpenterUsdPerHour` the one Karpenter decides with (when its NodeOverlay feature gate is on). 404 before any snapshot.',
      errors: [404],
    },
    (q, ctx) => opts.nodePoolKarpenter.setup(q, ctx.clusterId),
  );
}
