import type { FastifyInstance } from 'fastify';
import type { EfficiencyService } from '../services/efficiency-service.js';
import type { ReportsService } from '../services/reports-service.js';
import { apiRoutes } from './api-route.js';

/** Efficiency: how well nodes are packed, over time, per NodePool and per node. */
export async function efficiencyRoutes(
  app: FastifyInstance,
  opts: { reports: ReportsService; efficiency: EfficiencyService },
): Promise<void> {
  const { reports, efficiency } = opts;
  const routes = apiRoutes(app, 'efficiency');

  routes.get(
    '/api/efficiency/nodepools',
    {
      summary: 'CPU and memory requests ÷ allocatable per NodePool over time, with node count and cost per hour',
      description:
        'At most 400 points per series (buckets aligned on UTC: 5 minutes for a day, 2 hours for 30 days, 6 hours for 90 days). CSV: one line per NodePool and bucket.',
      csv: {
        fileName: 'efficiency-nodepools',
        table: (b) => b.series.flatMap((s) => s.points.map((p) => ({ nodePool: s.nodePool, ...p }))),
      },
    },
    (q, c) => reports.efficiency(q, c.clusterId),
  );

  routes.get(
    '/api/efficiency/summary',
    {
      summary:
        'Efficiency (cpu, memory, pods, GPU; plain and cost-weighted) and idle vCPU, GiB and USD per hour, per NodePool and the cluster',
      csv: { fileName: 'efficiency-summary', table: (b) => b.rows },
    },
    (q, c) => efficiency.summary(q, c.clusterId),
  );

  routes.get(
    '/api/efficiency/nodes',
    {
      summary: 'Efficiency per node at a snapshot, or averaged over up to 24 h before it (`window`)',
      description: 'By node name, a page at a time (`limit` 1–5000, default 500; `total` counts every node). The CSV holds every node.',
      csv: { fileName: 'efficiency-nodes', table: (b) => b.rows },
    },
    (q, ctx) => efficiency.nodeEfficiency(q, { allRows: ctx.csv }),
  );

  routes.get(
    '/api/nodes',
    {
      summary: 'The node table at a snapshot: packing, instance type, capacity type, zone, age and price; sorted, searched and paged',
      description:
        '`q` keeps the nodes whose name, NodeClaim, instance type, NodePool or zone contains the text (ASCII case-insensitive, `%` and `_` match themselves, at most 100 characters); paged by `limit` (1–5000, default 500) and `offset`. The CSV holds every matching node.',
      csv: { fileName: 'nodes', table: (b) => b.rows },
    },
    (q, ctx) => efficiency.nodes(q, { allRows: ctx.csv }, ctx.clusterId),
  );
}
