import type { FastifyInstance } from 'fastify';
import type { NodeAggregatesService } from '../services/node-aggregates-service.js';
import { apiRoutes } from './api-route.js';

/** Aggregates over a snapshot's nodes: what the dashboard shows of every node without fetching every node. */
export async function nodeAggregatesRoutes(app: FastifyInstance, opts: { nodeAggregates: NodeAggregatesService }): Promise<void> {
  const { nodeAggregates } = opts;
  const routes = apiRoutes(app, 'efficiency');

  routes.get(
    '/api/nodes/mix',
    {
      summary: 'Instance types per NodePool at a snapshot: nodes of each, and of those on spot',
      description:
        'The snapshot at or before `at` (default the newest). A few rows whatever the cluster size. CSV: one line per NodePool and type.',
      csv: { fileName: 'nodes-mix', table: (b) => b.rows },
    },
    (q, c) => nodeAggregates.mix(q, c.clusterId),
  );

  routes.get(
    '/api/nodes/changes',
    {
      summary: 'The nodes that went and came across a range: in the last snapshot before `from` and not the last before `to`, and back',
      description:
        'Each side: every node counted and its prices per hour summed, the first `limit` (0–500, default 500) listed by name. `nodepool` narrows both snapshots.',
    },
    (q, c) => nodeAggregates.changes(q, c.clusterId),
  );
}
