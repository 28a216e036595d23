import type { FastifyInstance } from 'fastify';
import type { NodePool } from '../schemas/nodepools.js';
import type { NodePoolCostService } from '../services/nodepool-cost-service.js';
import type { ReportsService } from '../services/reports-service.js';
import { apiRoutes } from './api-route.js';

/** One CSV row per NodePool: requirements, budgets and limits written as a person reads them. */
const nodePoolRow = (n: NodePool) => ({
  name: n.name,
  weight: n.weight,
  consolidationPolicy: n.consolidationPolicy,
  consolidateAfter: n.consolidateAfter,
  expireAfter: n.expireAfter,
  capacityTypes: n.capacityTypes,
  requirements: n.requirements.map((r) => `${r.key} ${r.operator} ${r.values.join(', ')}`.trim()),
  budgets: n.budgets.map((b) =>
    [
      b.nodes,
      b.reasons.length > 0 ? `for ${b.reasons.join('/')}` : '',
      b.schedule === null ? '' : `at ${b.schedule} for ${b.duration ?? '?'}`,
    ]
      .filter((s) => s !== '')
      .join(' '),
  ),
  limits: n.limits.resources.map((l) => `${l.resource}=${l.quantity}`),
  usage: n.usage,
  nodeClass: n.nodeClass,
  updatedAt: n.updatedAt,
});

/** NodePools: how each is set up, and what each costs per capacity type. */
export async function nodePoolsRoutes(
  app: FastifyInstance,
  opts: { reports: ReportsService; nodePoolCost: NodePoolCostService },
): Promise<void> {
  const { reports, nodePoolCost } = opts;
  const routes = apiRoutes(app, 'nodepools');

  routes.get(
    '/api/nodepools',
    {
      summary:
        'Each NodePool as last collected: weight, consolidation, expireAfter, capacity types, requirements, disruption budgets, NodeClass',
      description:
        'Limits as written and parsed (cpu millicores, memory bytes, any other resource), with the capacity of its nodes at the newest snapshot against each (what Karpenter counts against limits). No range: the newest state.',
      csv: { fileName: 'nodepools', table: (b) => b.items.map(nodePoolRow) },
    },
    (_q, c) => reports.nodePools(c.clusterId),
  );

  routes.get(
    '/api/nodepools/compare',
    {
      summary: 'Per NodePool x capacity type: cost, node-hours, cost per vCPU-hour and GiB-hour (allocatable and requested), spot savings',
      csv: { fileName: 'nodepools-compare', table: (b) => b.rows },
    },
    (q, c) => nodePoolCost.compare(q, c.clusterId),
  );
}
