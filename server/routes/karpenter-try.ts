import type { FastifyInstance } from 'fastify';
import type { EngineRunner } from '../engine-pool/engine-runner.js';
import { oneCluster } from '../cluster-param.js';
import { apiRoutes } from './api-route.js';
import { ONE_CLUSTER_NOTE, type ClusterList } from './whatif.js';

const NOTE =
  'A simulation by the scheduling engine over one stored snapshot (`at`, default the newest), Karpenter v1.14.1’s decisions; computed off the API’s thread like the other what-ifs (503 with Retry-After while it runs).';

/** Try a Karpenter setting before applying it: Balanced consolidation on a NodePool, a NodeOverlay price adjustment. */
export async function karpenterTryRoutes(app: FastifyInstance, opts: { engine: EngineRunner; clusters?: ClusterList }): Promise<void> {
  const { engine } = opts;
  const routes = apiRoutes(app, 'whatif');
  /** The cluster the try runs on (the engine's second argument, as the what-ifs': its own world in the pool). */
  const theCluster = (clusterId: number | null, what: string) => oneCluster(clusterId, opts.clusters?.() ?? [], what);
  routes.get(
    '/api/whatif/balanced',
    {
      summary:
        'A NodePool switched to consolidationPolicy Balanced (v1.14, k = 2): Karpenter’s next round then and today, what it saves and disrupts, the score of each move and the nodes kept under the threshold',
      description: `${NOTE} ${ONE_CLUSTER_NOTE}`,
      errors: [404, 503],
      engineAnswer: true,
    },
    (q, ctx) =>
      engine.run('karpenterTry', 'balanced', [q, theCluster(ctx.clusterId, 'a NodePool’s consolidation policy')], { signal: ctx.signal }),
  );
  routes.get(
    '/api/whatif/overlay',
    {
      summary:
        'A NodeOverlay priceAdjustment on every instance type (“our EDP discount is -12%”): Karpenter’s next round on the adjusted prices beside the one on real prices, and its savings at the real prices',
      description: `${NOTE} Overlays change Karpenter’s decisions, not the bill: the ledger’s estimate stays on the real prices. ${ONE_CLUSTER_NOTE}`,
      errors: [404, 503],
      engineAnswer: true,
    },
    (q, ctx) => engine.run('karpenterTry', 'overlay', [q, theCluster(ctx.clusterId, 'a NodeOverlay try')], { signal: ctx.signal }),
  );
}
